export { issuesRoutes } from './issues.routes.js';
export { findIssue, canReadIssue, canAdminIssueRelation, issueNoteable } from './find-issue.js';
export { listIssues, listGroupIssues, listProjectIssues, listMilestoneIssues, selectMilestoneIssues, readableIssuesQuery, type MilestoneIssuesScope } from './list-issues.js';
export { getIssue } from './get-issue.js';
export { listIssueStateEvents, getIssueStateEvent } from './issue-state-events.js';
export { registerIssueHooks, type IssueHooks, type IssueChange } from './issue-hooks.js';
/** "Closes #N" in commits pushed to the default branch and in merged merge requests (queued jobs). */
export { issuesPushHooks, issuesMergeRequestHooks, registerIssueClosingJobs } from './close-referenced.js';
export { closingReferences, type IssueReference } from './closing-references.js';
export { listIssuesOfMilestone, listBurndownEvents, BurndownUnsupportedError, type BurndownEventEntity } from './milestone-issues.js';
export { createIssue } from './create-issue.js';
export { updateIssue, mayUpdateIssue } from './update-issue.js';
export { deleteIssue } from './delete-issue.js';
export { presentIssues } from './present-issues.js';
export { countOpenIssueChange, recountOpenIssues, selectIssueMilestoneDates, selectAssigneeIds as selectIssueAssigneeIds } from './issue.queries.js';
export { toIssueBasicEntity } from './issue.entity.js';
export type { IssueEntity, IssueBasicEntity } from './issue.entity.js';
export type { IssueRow } from './issue.table.js';
export type {
  CreateIssueInput,
  IssueType,
  ListGroupIssuesInput,
  ListIssuesInput,
  ListProjectIssuesInput,
  UpdateIssueInput,
  UserFilter,
} from './issue.schema.js';
/** GraphQL: Issue, Project.issues/issue, Group.issues. */
export { issuesGraphql } from './issues.graphql.js';
