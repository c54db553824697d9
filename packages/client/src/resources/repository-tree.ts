/** `projects/:id/repository/tree` (gitbeaker's `Repositories.allRepositoryTrees`). */
import type { ListTreeInput, TreeEntryEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListTreeParams = ListParams<ListTreeInput>;

export class RepositoryTree {
  constructor(private readonly requester: Requester) {}

  /** A directory's entries (trees first), or everything under it with `recursive: true`. */
  all(projectId: ResourceId, params: ListTreeParams = {}): Paginated<TreeEntryEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/tree`, params);
  }
}
