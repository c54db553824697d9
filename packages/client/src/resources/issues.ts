import type { CreateIssueInput, IssueEntity, ListIssuesInput, ListProjectIssuesInput, MergeRequestEntity, UpdateIssueInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Label titles as an array or GitLab's comma-separated string. */
type Titles = string[] | string;
/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };
/** A list's filters as callers send them (shared with GroupIssues). */
export type IssueListParams<T> = Datetimes<Omit<T, 'labels'>> & { labels?: Titles };

export type ListProjectIssuesParams = IssueListParams<ListParams<ListProjectIssuesInput>>;
/** `scope` defaults to `created_by_me`; anonymous callers must pass `scope: 'all'`. */
export type ListAccessibleIssuesParams = IssueListParams<ListParams<ListIssuesInput>>;
export type CreateIssueParams = Datetimes<Omit<CreateIssueInput, 'id' | 'labels'>> & { labels?: Titles };
export type EditIssueParams = Omit<UpdateIssueInput, 'id' | 'issue_iid' | 'labels' | 'add_labels' | 'remove_labels'> & {
  labels?: Titles;
  add_labels?: Titles;
  remove_labels?: Titles;
};

/** Project issues: `/projects/:id/issues[/:issue_iid]`, and `/issues` across projects. */
export class Issues {
  constructor(private readonly requester: Requester) {}

  /** Issues of a project (every state unless `state` is given), newest first. */
  all(id: ResourceId, params: ListProjectIssuesParams = {}): Paginated<IssueEntity> {
    return new Paginated(this.requester, endpoint`projects/${id}/issues`, params);
  }

  /** `GET /issues`: the caller's issues across every project they can read (`scope` picks which). */
  /** The project's merge requests that close the issue when merged ("Closes #N" in their title or description). */
  closedBy(id: ResourceId, iid: number, params: { page?: number; per_page?: number } = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`projects/${id}/issues/${iid}/closed_by`, params);
  }

  allAccessible(params: ListAccessibleIssuesParams = {}): Paginated<IssueEntity> {
    return new Paginated(this.requester, 'issues', params);
  }

  show(id: ResourceId, issueIid: number): Promise<IssueEntity> {
    return this.requester.get(endpoint`projects/${id}/issues/${issueIid}`);
  }

  /** Unknown label titles become project labels. */
  create(id: ResourceId, params: CreateIssueParams): Promise<IssueEntity> {
    return this.requester.post(endpoint`projects/${id}/issues`, params);
  }

  /** Needs at least one field; `state_event` closes or reopens. */
  edit(id: ResourceId, issueIid: number, params: EditIssueParams): Promise<IssueEntity> {
    return this.requester.put(endpoint`projects/${id}/issues/${issueIid}`, params);
  }

  close(id: ResourceId, issueIid: number): Promise<IssueEntity> {
    return this.edit(id, issueIid, { state_event: 'close' });
  }

  reopen(id: ResourceId, issueIid: number): Promise<IssueEntity> {
    return this.edit(id, issueIid, { state_event: 'reopen' });
  }

  /** Owners and admins only (204). */
  remove(id: ResourceId, issueIid: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${id}/issues/${issueIid}`);
  }
}
