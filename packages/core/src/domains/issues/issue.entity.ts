import type { UrlBuilder } from '../../access/context.js';
import { taskCompletion, taskStatus, type TaskCompletionStatus } from '../../kernel/task-list.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserBasicEntity } from '../../access/user.entity.js';
import type { MilestoneEntity } from '../milestones/index.js';
import type { IssueRow } from './issue.table.js';

/** GitLab's Issue entity (lists and single issues share it). */
export interface IssueEntity {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: UserBasicEntity | null;
  /** Label titles, sorted. */
  labels: string[];
  milestone: MilestoneEntity | null;
  assignees: UserBasicEntity[];
  author: UserBasicEntity;
  /** `issue_type` upper-cased: ISSUE, INCIDENT, TEST_CASE, TASK. */
  type: string;
  assignee: UserBasicEntity | null;
  user_notes_count: number;
  merge_requests_count: number;
  upvotes: number;
  downvotes: number;
  due_date: string | null;
  confidential: boolean;
  discussion_locked: boolean;
  issue_type: string;
  web_url: string;
  time_stats: { time_estimate: number; total_time_spent: number; human_time_estimate: string | null; human_total_time_spent: string | null };
  task_completion_status: TaskCompletionStatus;
  weight: number | null;
  has_tasks: boolean;
  /** Only when the description has tasks. */
  task_status?: string;
  _links: { self: string; notes: string; award_emoji: string; project: string };
  references: { short: string; relative: string; full: string };
  severity: string;
  subscribed: boolean;
  moved_to_id: number | null;
}

/** What `Entities::Issue` adds to GitLab's `IssueBasic`. */
type IssueOnlyField = 'has_tasks' | 'task_status' | '_links' | 'references' | 'severity' | 'subscribed' | 'moved_to_id';

/** GitLab's `IssueBasic` (an issue inside another entity, as an epic's issue link). */
export type IssueBasicEntity = Omit<IssueEntity, IssueOnlyField>;

export function toIssueBasicEntity(issue: IssueEntity): IssueBasicEntity {
  const { has_tasks: _h, task_status: _t, _links: _l, references: _r, severity: _s, subscribed: _u, moved_to_id: _m, ...basic } = issue;
  return basic;
}

/** What an issue entity needs besides its row, batch-loaded for a page. */
export interface IssueRelations {
  project: ProjectRow;
  author: UserBasicEntity;
  closedBy: UserBasicEntity | null;
  assignees: UserBasicEntity[];
  labels: string[];
  milestone: MilestoneEntity | null;
  userNotesCount: number;
  upvotes: number;
  downvotes: number;
  /** Merge requests the caller can see that close the issue when merged (merge_request_closing_issues). */
  mergeRequestsCount: number;
  /** Weight is a Premium feature: null on lower tiers. */
  showWeight: boolean;
  /** The caller takes part (GitLab's subscribed? without explicit subscriptions: a participant). */
  subscribed: boolean;
}

export function toIssueEntity(row: IssueRow, rel: IssueRelations, urls: UrlBuilder): IssueEntity {
  const api = (suffix: string) => urls.api(`/projects/${row.project_id}${suffix}`);
  const tasks = taskCompletion(row.description);
  // Built by adding to a literal, not with a conditional `...spread` inside it: on Node 20's
  // V8 a spread followed by more properties takes a slow path that cost a created issue
  // ~7% of its server CPU (measured).
  const entity: IssueEntity = {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    closed_at: row.closed_at,
    closed_by: rel.closedBy,
    labels: [...rel.labels].sort(),
    milestone: rel.milestone,
    assignees: rel.assignees,
    author: rel.author,
    type: row.issue_type.toUpperCase(),
    assignee: rel.assignees[0] ?? null,
    user_notes_count: rel.userNotesCount,
    merge_requests_count: rel.mergeRequestsCount,
    upvotes: rel.upvotes,
    downvotes: rel.downvotes,
    due_date: row.due_date,
    confidential: row.confidential === 1,
    discussion_locked: row.discussion_locked === 1,
    issue_type: row.issue_type,
    web_url: urls.web(`/${rel.project.path_with_namespace}/-/issues/${row.iid}`),
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    task_completion_status: tasks,
    weight: rel.showWeight ? row.weight : null,
    has_tasks: tasks.count > 0,
  } as IssueEntity;
  if (tasks.count > 0) entity.task_status = taskStatus(tasks);
  entity._links = {
    self: api(`/issues/${row.iid}`),
    notes: api(`/issues/${row.iid}/notes`),
    award_emoji: api(`/issues/${row.iid}/award_emoji`),
    project: api(''),
  };
  entity.references = { short: `#${row.iid}`, relative: `#${row.iid}`, full: `${rel.project.path_with_namespace}#${row.iid}` };
  entity.severity = 'UNKNOWN';
  entity.subscribed = rel.subscribed;
  entity.moved_to_id = null;
  return entity;
}
