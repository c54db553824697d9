/** `projects/:id/repository/commits` (gitbeaker's Commits). */
import type {
  CommitDetailEntity,
  CommitDiffInput,
  DiffEntity,
  CommitEntity,
  CommitRefEntity,
  CommitRefsInput,
  CommitWithStatsEntity,
  CreateCommitInput,
  ListCommitsInput,
  CommitMergeRequestsInput,
  MergeRequestEntity,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** `since`/`until` as Date or ISO-8601 text. */
export type ListCommitsParams = Omit<ListParams<ListCommitsInput>, 'since' | 'until'> & { since?: Date | string; until?: Date | string };
export type CommitActionParams = CreateCommitInput['actions'][number];
export type CreateCommitParams = Partial<Omit<CreateCommitInput, 'id' | 'branch' | 'commit_message' | 'actions'>>;
export type ListCommitRefsParams = ListParams<Omit<CommitRefsInput, 'sha'>>;
export type ShowCommitDiffParams = ListParams<Omit<CommitDiffInput, 'sha'>>;
export type ListCommitMergeRequestsParams = ListParams<Omit<CommitMergeRequestsInput, 'sha'>>;

export class Commits {
  constructor(private readonly requester: Requester) {}

  /** The history of `ref_name` (default branch), newest first; `with_stats` adds line counts. */
  all(projectId: ResourceId, params: ListCommitsParams = {}): Paginated<CommitEntity | CommitWithStatsEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/commits`, params);
  }

  /** By sha (full or 7+ characters), branch or tag; stats unless `stats: false`. */
  show(projectId: ResourceId, sha: string, params: { stats?: boolean } = {}): Promise<CommitDetailEntity> {
    return this.requester.get(endpoint`projects/${projectId}/repository/commits/${sha}`, params);
  }

  /** Commits several file actions on `branch` (new branches start from `start_branch` or `start_sha`). */
  create(projectId: ResourceId, branch: string, message: string, actions: CommitActionParams[], params: CreateCommitParams = {}): Promise<CommitDetailEntity> {
    return this.requester.post(endpoint`projects/${projectId}/repository/commits`, { branch, commit_message: message, actions, ...params });
  }

  /** The commit's diff against its first parent, one entry per file (`unidiff: true` adds `---`/`+++` lines). */
  showDiff(projectId: ResourceId, sha: string, params: ShowCommitDiffParams = {}): Paginated<DiffEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/commits/${sha}/diff`, params);
  }

  /** The branches and tags whose history holds the commit. */
  allReferences(projectId: ResourceId, sha: string, params: ListCommitRefsParams = {}): Paginated<CommitRefEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/commits/${sha}/refs`, params);
  }

  /** The merge requests whose newest diff holds the commit, or that merged it (merge or squash commit); `state` filters. */
  allMergeRequests(projectId: ResourceId, sha: string, params: ListCommitMergeRequestsParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/repository/commits/${sha}/merge_requests`, params);
  }
}
