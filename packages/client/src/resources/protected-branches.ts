import type { CreateProtectedBranchInput, ListProtectedBranchesInput, ProtectedBranchEntity, UpdateProtectedBranchInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListProtectedBranchesParams = ListParams<ListProtectedBranchesInput>;
export type ProtectBranchParams = Partial<Omit<CreateProtectedBranchInput, 'id' | 'name'>>;
export type EditProtectedBranchParams = Omit<UpdateProtectedBranchInput, 'id' | 'name'>;

/**
 * Protected branches: `/projects/:id/protected_branches[/:name]`. `name` is a branch name or a
 * wildcard (`release/*`); access levels are 0 (No one), 30 (Developers + Maintainers),
 * 40 (Maintainers), 60 (Instance admins).
 */
export class ProtectedBranches {
  constructor(private readonly requester: Requester) {}

  all(projectId: ResourceId, params: ListProtectedBranchesParams = {}): Paginated<ProtectedBranchEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/protected_branches`, params);
  }

  show(projectId: ResourceId, name: string): Promise<ProtectedBranchEntity> {
    return this.requester.get(endpoint`projects/${projectId}/protected_branches/${name}`);
  }

  /** Maintainers. Push, merge and unprotect default to Maintainers unless `allowed_to_*` is given. */
  protect(projectId: ResourceId, name: string, params: ProtectBranchParams = {}): Promise<ProtectedBranchEntity> {
    return this.requester.post(endpoint`projects/${projectId}/protected_branches`, { name, ...params });
  }

  /** PATCH: `allowed_to_*` entries add (`{access_level}` / `{user_id}` / `{group_id}`), change (`{id, ...}`) or remove (`{id, _destroy: true}`). */
  async edit(projectId: ResourceId, name: string, params: EditProtectedBranchParams): Promise<ProtectedBranchEntity> {
    const url = this.requester.url(endpoint`projects/${projectId}/protected_branches/${name}`);
    return (await this.requester.send<ProtectedBranchEntity>('PATCH', url, params)).data;
  }

  unprotect(projectId: ResourceId, name: string): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/protected_branches/${name}`);
  }
}
