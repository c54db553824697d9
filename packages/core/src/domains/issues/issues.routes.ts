import { paginationParams } from '../../kernel/pagination.js';
import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route } from '../../kernel/route.js';
import { ListStateEventsInput } from '../state-events/index.js';
import { createIssue } from './create-issue.js';
import { deleteIssue } from './delete-issue.js';
import { getIssue } from './get-issue.js';
import { CreateIssueInput, IssuePathInput, ListGroupIssuesInput, ListIssuesInput, ListProjectIssuesInput, UpdateIssueInput } from './issue.schema.js';
import { listGroupIssues, listIssues, listProjectIssues } from './list-issues.js';
import { updateIssue } from './update-issue.js';
import { MilestoneIssuablesInput, MilestoneRefInput } from '../milestones/index.js';
import { getIssueStateEvent, listIssueStateEvents } from './issue-state-events.js';
import { listBurndownEvents, listIssuesOfMilestone } from './milestone-issues.js';
import { listClosingMergeRequests, listMergeRequestClosingIssues } from './close-referenced.js';

const ClosedByInput = params({
  id: p.string().describe('ID or URL-encoded path of the project.'),
  issue_iid: p.integer().describe('Internal ID of the issue.'),
  ...paginationParams,
});
const ClosesIssuesInput = params({
  id: p.string().describe('ID or URL-encoded path of the project.'),
  merge_request_iid: p.integer().describe('Internal ID of the merge request.'),
  ...paginationParams,
});

// State events: GitLab's `before { authenticate! }` answers anonymous callers 401 even on public projects.
export const issuesRoutes = [
  route('GET', '/issues', { auth: 'optional', params: ListIssuesInput, tag: 'issues', summary: "List issues visible to the caller (default: the caller's own)" },
    async (ctx, input) => paged(await listIssues(ctx, input))),
  route('GET', '/groups/:id/issues', { auth: 'optional', params: ListGroupIssuesInput, tag: 'issues', summary: 'List issues of a group and its subgroups' },
    async (ctx, input) => paged(await listGroupIssues(ctx, input))),
  route('GET', '/projects/:id/issues', { auth: 'optional', params: ListProjectIssuesInput, tag: 'issues', summary: 'List project issues' },
    async (ctx, input) => paged(await listProjectIssues(ctx, input))),
  route('POST', '/projects/:id/issues', { auth: 'required', params: CreateIssueInput, tag: 'issues', summary: 'Create an issue' },
    async (ctx, input) => created(await createIssue(ctx, input))),
  route('GET', '/projects/:id/issues/:issue_iid', { auth: 'optional', params: IssuePathInput, tag: 'issues', summary: 'Get an issue' },
    async (ctx, { id, issue_iid }) => ok(await getIssue(ctx, id, issue_iid))),
  route('PUT', '/projects/:id/issues/:issue_iid', { auth: 'required', params: UpdateIssueInput, tag: 'issues', summary: 'Update, close or reopen an issue' },
    async (ctx, input) => ok(await updateIssue(ctx, input))),
  route('DELETE', '/projects/:id/issues/:issue_iid', { auth: 'required', params: IssuePathInput, tag: 'issues', summary: 'Delete an issue' },
    async (ctx, { id, issue_iid }) => {
      await deleteIssue(ctx, id, issue_iid);
      return noContent();
    }),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/closes_issues', { auth: 'optional', params: ClosesIssuesInput, tag: 'merge_requests', summary: 'Issues that the merge request closes when merged into the default branch' },
    async (ctx, { id, merge_request_iid, ...page }) => paged(await listMergeRequestClosingIssues(ctx, id, merge_request_iid, page))),
  route('GET', '/projects/:id/issues/:issue_iid/closed_by', { auth: 'optional', params: ClosedByInput, tag: 'issues', summary: 'Merge requests that close the issue when merged' },
    async (ctx, { id, issue_iid, ...page }) => paged(await listClosingMergeRequests(ctx, id, issue_iid, page))),
  route('GET', '/groups/:id/milestones/:milestone_id/issues', { auth: 'optional', params: MilestoneIssuablesInput, tag: 'milestones', summary: 'Issues of a group milestone' },
    async (ctx, input) => paged(await listIssuesOfMilestone(ctx, 'groups', input))),
  route('GET', '/projects/:id/milestones/:milestone_id/issues', { auth: 'optional', params: MilestoneIssuablesInput, tag: 'milestones', summary: 'Issues of a project milestone' },
    async (ctx, input) => paged(await listIssuesOfMilestone(ctx, 'projects', input))),
  route('GET', '/groups/:id/milestones/:milestone_id/burndown_events', { tier: 'premium', auth: 'optional', params: MilestoneRefInput, tag: 'milestones', summary: 'Burndown chart events of a group milestone (Premium)' },
    async (ctx, input) => ok(await listBurndownEvents(ctx, 'groups', input))),
  route('GET', '/projects/:id/milestones/:milestone_id/burndown_events', { tier: 'premium', auth: 'optional', params: MilestoneRefInput, tag: 'milestones', summary: 'Burndown chart events of a project milestone (Premium)' },
    async (ctx, input) => ok(await listBurndownEvents(ctx, 'projects', input))),
  route('GET', '/projects/:id/issues/:issue_iid/resource_state_events',
    { auth: 'required', params: params({ id: p.string(), issue_iid: p.integer(), ...ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of an issue' },
    async (ctx, input) => paged(await listIssueStateEvents(ctx, input.id, input.issue_iid, input))),
  route('GET', '/projects/:id/issues/:issue_iid/resource_state_events/:resource_state_event_id',
    { auth: 'required', params: params({ id: p.string(), issue_iid: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of an issue' },
    async (ctx, input) => ok(await getIssueStateEvent(ctx, input.id, input.issue_iid, input.resource_state_event_id))),
];
