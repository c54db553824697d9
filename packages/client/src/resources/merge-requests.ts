import type {
  CreateMergeRequestInput,
  IssueBasicEntity,
  ListGroupMergeRequestsInput,
  ListMergeRequestsInput,
  ListProjectMergeRequestsInput,
  MergeMergeRequestInput,
  MergeRequestDetailEntity,
  MergeRequestEntity,
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

  show(projectId: ResourceId, iid: number): Promise<MergeRequestDetailEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${iid}`);
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

  /** Owners and admins (204). */
  remove(projectId: ResourceId, iid: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/merge_requests/${iid}`);
  }
}
