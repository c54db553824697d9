import type { CreateProtectedTagInput, ListProtectedTagsInput, ProtectedTagEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListProtectedTagsParams = ListParams<ListProtectedTagsInput>;
export type ProtectTagParams = Partial<Omit<CreateProtectedTagInput, 'id' | 'name'>>;

/**
 * Protected tags: `/projects/:id/protected_tags[/:name]` (Maintainer). `name` is a tag name or a
 * wildcard (`v*`); `create_access_level` 0 (No one), 30 (Developers + Maintainers),
 * 40 (Maintainers, the default), 60 (Instance admins). A protected tag is never moved by a
 * push, deleted only through the API, and created only by whom its entries admit.
 */
export class ProtectedTags {
  constructor(private readonly requester: Requester) {}

  all(projectId: ResourceId, params: ListProtectedTagsParams = {}): Paginated<ProtectedTagEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/protected_tags`, params);
  }

  show(projectId: ResourceId, name: string): Promise<ProtectedTagEntity> {
    return this.requester.get(endpoint`projects/${projectId}/protected_tags/${name}`);
  }

  protect(projectId: ResourceId, name: string, params: ProtectTagParams = {}): Promise<ProtectedTagEntity> {
    return this.requester.post(endpoint`projects/${projectId}/protected_tags`, { name, ...params });
  }

  unprotect(projectId: ResourceId, name: string): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/protected_tags/${name}`);
  }
}
