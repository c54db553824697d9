/** `projects/:id/repository/branches` (gitbeaker's Branches). */
import type { BranchEntity, ListBranchesInput } from '@forgelet/core';
import { ApiError } from '../infrastructure/api-error.js';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListBranchesParams = ListParams<ListBranchesInput>;

export class RepositoryBranches {
  constructor(private readonly requester: Requester) {}

  /** By name; `search` takes `^start` and `end$`, `regex` a regular expression. */
  all(projectId: ResourceId, params: ListBranchesParams = {}): Paginated<BranchEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/branches`, params);
  }

  /** A branch name may hold slashes (`feature/x`); it is URL-encoded here. */
  show(projectId: ResourceId, branch: string): Promise<BranchEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/branches/${branch}`);
  }

  /** Whether the branch exists (`HEAD`: 204 or 404). */
  async exists(projectId: ResourceId, branch: string): Promise<boolean> {
    try {
      await this.requester.request('HEAD', endpoint`projects/${projectId}/repository/branches/${branch}`);
      return true;
    } catch (err) {
      if (ApiError.is(err, 404)) return false;
      throw err;
    }
  }

  /** From `ref`: a branch, tag or commit sha (Developer). */
  create(projectId: ResourceId, branch: string, ref: string): Promise<BranchEntity> {
    return this.requester.post(endpoint`projects/${projectId}/repository/branches`, { branch, ref });
  }

  /** Not the default branch; protected ones need a Maintainer. */
  remove(projectId: ResourceId, branch: string): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/repository/branches/${branch}`);
  }

  /** Deletes the branches merged into the default branch, except protected ones (202). */
  async removeMerged(projectId: ResourceId): Promise<void> {
    await this.requester.send('DELETE', this.requester.url(endpoint`projects/${projectId}/repository/merged_branches`));
  }
}
