/** Milestones of a group or project: one template mounted under `groups/:id` and `projects/:id`, as gitbeaker's ResourceMilestones. */
import type {
  BurndownEventEntity,
  CreateMilestoneInput,
  IssueEntity,
  ListGroupMilestonesInput,
  ListProjectMilestonesInput,
  MergeRequestEntity,
  MilestoneEntity,
  UpdateMilestoneInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };

export type ListGroupMilestonesParams = Datetimes<ListParams<ListGroupMilestonesInput>>;
export type ListProjectMilestonesParams = Datetimes<ListParams<ListProjectMilestonesInput>>;
export type CreateMilestoneParams = Omit<CreateMilestoneInput, 'id' | 'title'>;
export type EditMilestoneParams = Omit<UpdateMilestoneInput, 'id' | 'milestone_id'>;

export class ResourceMilestones<ListMilestonesParams extends object> {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'groups' | 'projects',
  ) {}

  /** Every state unless `state` is given; by due date, undated last. */
  all(id: ResourceId, params: ListMilestonesParams = {} as ListMilestonesParams): Paginated<MilestoneEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/milestones`, params);
  }

  /** `milestoneId` is the milestone's global id, not its iid. */
  show(id: ResourceId, milestoneId: number): Promise<MilestoneEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/milestones/${milestoneId}`);
  }

  create(id: ResourceId, title: string, params: CreateMilestoneParams = {}): Promise<MilestoneEntity> {
    return this.requester.post(endpoint`${this.prefix}/${id}/milestones`, { title, ...params });
  }

  /** Needs at least one field; `state_event` closes or activates. */
  edit(id: ResourceId, milestoneId: number, params: EditMilestoneParams): Promise<MilestoneEntity> {
    return this.requester.put(endpoint`${this.prefix}/${id}/milestones/${milestoneId}`, params);
  }

  /** Developers and up (204); its issues and merge requests lose the milestone. */
  remove(id: ResourceId, milestoneId: number): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/milestones/${milestoneId}`);
  }

  /** Issues with the milestone (a group milestone's: of projects directly in the group). */
  allAssignedIssues(id: ResourceId, milestoneId: number, params: PaginationParams = {}): Paginated<IssueEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/milestones/${milestoneId}/issues`, params);
  }

  allAssignedMergeRequests(id: ResourceId, milestoneId: number, params: PaginationParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/milestones/${milestoneId}/merge_requests`, params);
  }

  /** Premium and up (405 below); empty unless the milestone has a start and a due date. */
  allBurndownChartEvents(id: ResourceId, milestoneId: number): Promise<BurndownEventEntity[]> {
    return this.requester.get(endpoint`${this.prefix}/${id}/milestones/${milestoneId}/burndown_events`);
  }
}
