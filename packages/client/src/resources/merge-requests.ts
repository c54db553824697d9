import type {
  CreateMergeRequestInput,
  GetMergeRequestInput,
  RebaseMergeRequestInput,
  IssueBasicEntity,
  PipelineListEntity,
  ListGroupMergeRequestsInput,
  ListMergeRequestsInput,
  ListProjectMergeRequestsInput,
  MergeMergeRequestInput,
  MergeRequestChangesEntity,
  MergeRequestChangesInput,
  MergeRequestDetailEntity,
  MergeRequestDiffsInput,
  MergeRequestEntity,
  MergeRequestPageInput,
  MergeRequestVersionDetailEntity,
  MergeRequestVersionEntity,
  MergeRequestVersionInput,
  CommitEntity,
  UpdateMergeRequestInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListMergeRequestsParams = ListParams<ListMergeRequestsInput>;
export type ListProjectMergeRequestsParams = ListParams<ListProjectMergeRequestsInput>;
export type ListGroupMergeRequestsParams = ListParams<ListGroupMergeRequestsInput>;
export type CreateMergeRequestParams = Omit<CreateMergeRequestInput, 'id'>;
/** At least one field must be given. */
export type EditMergeRequestParams = Omit<UpdateMergeRequestInput, 'id' | 'merge_request_iid'>;
export type MergeMergeRequestParams = Omit<MergeMergeRequestInput, 'id' | 'merge_request_iid'>;
export type ShowMergeRequestParams = Omit<GetMergeRequestInput, 'id' | 'merge_request_iid'>;
export type RebaseMergeRequestParams = Omit<RebaseMergeRequestInput, 'id' | 'merge_request_iid'>;
export type MergeRequestPageParams = Partial<Omit<MergeRequestPageInput, 'id' | 'merge_request_iid'>>;
export type ShowMergeRequestVersionParams = Partial<Omit<MergeRequestVersionInput, 'id' | 'merge_request_iid' | 'version_id'>>;
export type ShowMergeRequestChangesParams = Partial<Omit<MergeRequestChangesInput, 'id' | 'merge_request_iid'>>;
export type MergeRequestDiffsParams = Partial<Omit<MergeRequestDiffsInput, 'id' | 'merge_request_iid'>>;
/** One file of a merge request's diff (GitLab's `Entities::Diff`). */
export type MergeRequestDiffEntity = MergeRequestVersionDetailEntity['diffs'][number];

/** `/merge_requests`, `/groups/:id/merge_requests`, `/projects/:id/merge_requests[/:merge_request_iid[/merge]]`. */
export class MergeRequests {
  constructor(private readonly requester: Requester) {}

  /** The caller's merge requests: `scope` created_by_me (default), assigned_to_me, reviews_for_me or all. */
  all(params: ListMergeRequestsParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, 'merge_requests', params);
  }

  allInProject(projectId: ResourceId, params: ListProjectMergeRequestsParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests`, params);
  }

  /** Merge requests of the group's projects and its subgroups'. */
  allInGroup(groupId: ResourceId, params: ListGroupMergeRequestsParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/merge_requests`, params);
  }

  /** The issues it closes once merged into the default branch ("Closes #N" in its title and description). */
  closesIssues(projectId: ResourceId, iid: number, params: ListParams<{ page?: number; per_page?: number }> = {}): Paginated<IssueBasicEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${iid}/closes_issues`, params);
  }

  /** Its pipelines: the source branch's at its recent diff heads, newest first. */
  pipelines(projectId: ResourceId, iid: number, params: ListParams<{ page?: number; per_page?: number }> = {}): Paginated<PipelineListEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${iid}/pipelines`, params);
  }

  /** `include_rebase_in_progress: true` adds `rebase_in_progress`. */
  show(projectId: ResourceId, iid: number, params: ShowMergeRequestParams = {}): Promise<MergeRequestDetailEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${iid}`, params);
  }

  /**
   * Rebases the source branch onto the target head in the background (202 `{ rebase_in_progress: true }`);
   * `show(…, { include_rebase_in_progress: true })` tells when it is done, `merge_error` why it failed.
   */
  rebase(projectId: ResourceId, iid: number, params: RebaseMergeRequestParams = {}): Promise<{ rebase_in_progress: boolean }> {
    return this.requester.put(endpoint`projects/${projectId}/merge_requests/${iid}/rebase`, params);
  }

  create(projectId: ResourceId, params: CreateMergeRequestParams): Promise<MergeRequestDetailEntity> {
    return this.requester.post(endpoint`projects/${projectId}/merge_requests`, params);
  }

  /** Edits fields; `state_event: 'close' | 'reopen'` closes or reopens. */
  edit(projectId: ResourceId, iid: number, params: EditMergeRequestParams): Promise<MergeRequestDetailEntity> {
    return this.requester.put(endpoint`projects/${projectId}/merge_requests/${iid}`, params);
  }

  /** Merges now; `sha` must be the source branch head when given (409 otherwise). */
  merge(projectId: ResourceId, iid: number, params: MergeMergeRequestParams = {}): Promise<MergeRequestDetailEntity> {
    return this.requester.put(endpoint`projects/${projectId}/merge_requests/${iid}/merge`, params);
  }

  /** Diff versions, newest first: one per source head (shas, `real_size`, `patch_id_sha` once computed). */
  allVersions(projectId: ResourceId, iid: number, params: MergeRequestPageParams = {}): Paginated<MergeRequestVersionEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${iid}/versions`, params);
  }

  /** One version with its commits and diffs (`unidiff` for `---`/`+++` patches). */
  showVersion(projectId: ResourceId, iid: number, versionId: number, params: ShowMergeRequestVersionParams = {}): Promise<MergeRequestVersionDetailEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${iid}/versions/${versionId}`, params);
  }

  /** The commits of the newest version, newest first. */
  allCommits(projectId: ResourceId, iid: number, params: MergeRequestPageParams = {}): Paginated<CommitEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${iid}/commits`, params);
  }

  /** The merge request with its `changes` (deprecated in GitLab); `access_raw_diffs` lifts the diff limits. */
  showChanges(projectId: ResourceId, iid: number, params: ShowMergeRequestChangesParams = {}): Promise<MergeRequestChangesEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${iid}/changes`, params);
  }

  /** The diffs of the newest version, paged. */
  allDiffs(projectId: ResourceId, iid: number, params: MergeRequestDiffsParams = {}): Paginated<MergeRequestDiffEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${iid}/diffs`, params);
  }

  /** The diff as `git diff` prints it (plain text). */
  showRawDiffs(projectId: ResourceId, iid: number): Promise<string> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${iid}/raw_diffs`);
  }

  /** Owners and admins (204). */
  remove(projectId: ResourceId, iid: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/merge_requests/${iid}`);
  }
}
