/** `projects/:id/repository/tags` (gitbeaker's Tags). */
import type { CreateTagInput, ListTagsInput, TagEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListTagsParams = ListParams<ListTagsInput>;
export type CreateTagParams = Omit<CreateTagInput, 'id' | 'tag_name' | 'ref'>;

export class RepositoryTags {
  constructor(private readonly requester: Requester) {}

  /** Newest first unless `order_by` (`name`, `updated`, `version`) and `sort` say otherwise. */
  all(projectId: ResourceId, params: ListTagsParams = {}): Paginated<TagEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/tags`, params);
  }

  show(projectId: ResourceId, tagName: string): Promise<TagEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/tags/${tagName}`);
  }

  /** A `message` makes an annotated tag (Developer). */
  create(projectId: ResourceId, tagName: string, ref: string, params: CreateTagParams = {}): Promise<TagEntity> {
    return this.requester.post(endpoint`projects/${projectId}/repository/tags`, { tag_name: tagName, ref, ...params });
  }

  /** The tag's release is deleted with it. */
  remove(projectId: ResourceId, tagName: string): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/repository/tags/${tagName}`);
  }
}
