import { p, params } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { ListStateEventsInput } from '../state-events/index.js';
import { getEpicStateEvent, listEpicStateEvents } from './epic-state-events.js';
import { createEpic } from './create-epic.js';
import { assignChildEpic, createChildEpic, listChildEpics, reorderChildEpic, unassignChildEpic } from './epic-links.js';
import { assignEpicIssue, listEpicIssues, removeEpicIssue, reorderEpicIssue } from './epic-issues.js';
import {
  AssignEpicIssueInput,
  CreateChildEpicInput,
  CreateEpicInput,
  EpicIssuePathInput,
  EpicLinkPathInput,
  EpicPathInput,
  ListEpicIssuesInput,
  ListEpicsInput,
  ReorderChildEpicInput,
  ReorderEpicIssueInput,
  UpdateEpicInput,
} from './epic.schema.js';
import { deleteEpic, getEpic, listEpics } from './epics.js';
import { EPIC_LINKS_TIER, EPICS_TIER } from './find-epic.js';
import { updateEpic } from './update-epic.js';

const tag = 'epics';

// GitLab's `authenticate_non_get!`: reads are open to anonymous callers on public groups.
export const epicsRoutes: Route[] = [
  route('GET', '/groups/:id/epics', { tier: EPICS_TIER, auth: 'optional', params: ListEpicsInput, tag, summary: 'List epics of a group' },
    async (ctx, input) => paged(await listEpics(ctx, input))),
  route('POST', '/groups/:id/epics', { tier: EPICS_TIER, auth: 'required', params: CreateEpicInput, tag, summary: 'Create an epic' },
    async (ctx, input) => created(await createEpic(ctx, input))),
  route('GET', '/groups/:id/epics/:epic_iid', { tier: EPICS_TIER, auth: 'optional', params: EpicPathInput, tag, summary: 'Get an epic' },
    async (ctx, input) => ok(await getEpic(ctx, input.id, input.epic_iid))),
  route('PUT', '/groups/:id/epics/:epic_iid', { tier: EPICS_TIER, auth: 'required', params: UpdateEpicInput, tag, summary: 'Update, close or reopen an epic' },
    async (ctx, input) => ok(await updateEpic(ctx, input))),
  route('DELETE', '/groups/:id/epics/:epic_iid', { tier: EPICS_TIER, auth: 'required', params: EpicPathInput, tag, summary: 'Delete an epic' },
    async (ctx, input) => {
      await deleteEpic(ctx, input.id, input.epic_iid);
      return noContent();
    }),
  // Epic links under GitLab's path…
  route('GET', '/groups/:id/epics/:epic_iid/epics', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicPathInput, tag: 'epic_links', summary: 'List child epics' },
    async (ctx, input) => ok(await listChildEpics(ctx, input.id, input.epic_iid))),
  route('POST', '/groups/:id/epics/:epic_iid/epics/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicLinkPathInput, tag: 'epic_links', summary: 'Assign an existing epic as a child' },
    async (ctx, input) => created(await assignChildEpic(ctx, input))),
  route('POST', '/groups/:id/epics/:epic_iid/epics', { tier: EPIC_LINKS_TIER, auth: 'required', params: CreateChildEpicInput, tag: 'epic_links', summary: 'Create and assign a child epic' },
    async (ctx, input) => created(await createChildEpic(ctx, input))),
  route('PUT', '/groups/:id/epics/:epic_iid/epics/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: ReorderChildEpicInput, tag: 'epic_links', summary: 'Reorder a child epic' },
    async (ctx, input) => ok(await reorderChildEpic(ctx, input))),
  route('DELETE', '/groups/:id/epics/:epic_iid/epics/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicLinkPathInput, tag: 'epic_links', summary: 'Unassign a child epic' },
    async (ctx, input) => ok(await unassignChildEpic(ctx, input))),

  // …and gitbeaker's `EpicLinks` spelling (`title` in the query string: params are merged).
  route('GET', '/groups/:id/epics/:epic_iid/links', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicPathInput, tag: 'epic_links', summary: 'List child epics' },
    async (ctx, input) => ok(await listChildEpics(ctx, input.id, input.epic_iid))),
  route('POST', '/groups/:id/epics/:epic_iid/links/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicLinkPathInput, tag: 'epic_links', summary: 'Assign an existing epic as a child' },
    async (ctx, input) => created(await assignChildEpic(ctx, input))),
  route('POST', '/groups/:id/epics/:epic_iid/links', { tier: EPIC_LINKS_TIER, auth: 'required', params: CreateChildEpicInput, tag: 'epic_links', summary: 'Create and assign a child epic' },
    async (ctx, input) => created(await createChildEpic(ctx, input))),
  route('PUT', '/groups/:id/epics/:epic_iid/links/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: ReorderChildEpicInput, tag: 'epic_links', summary: 'Reorder a child epic' },
    async (ctx, input) => ok(await reorderChildEpic(ctx, input))),
  route('DELETE', '/groups/:id/epics/:epic_iid/links/:child_epic_id', { tier: EPIC_LINKS_TIER, auth: 'required', params: EpicLinkPathInput, tag: 'epic_links', summary: 'Unassign a child epic' },
    async (ctx, input) => ok(await unassignChildEpic(ctx, input))),

  // Issues of an epic (GitLab's `API::EpicIssues`).
  route('GET', '/groups/:id/epics/:epic_iid/issues', { tier: EPICS_TIER, auth: 'required', params: ListEpicIssuesInput, tag: 'epic_issues', summary: "List an epic's issues in its order" },
    async (ctx, input) => paged(await listEpicIssues(ctx, input))),
  route('POST', '/groups/:id/epics/:epic_iid/issues/:issue_id', { tier: EPICS_TIER, auth: 'required', params: AssignEpicIssueInput, tag: 'epic_issues', summary: 'Assign an issue to the epic (moving it from another epic)' },
    async (ctx, input) => created(await assignEpicIssue(ctx, input))),
  route('PUT', '/groups/:id/epics/:epic_iid/issues/:epic_issue_id', { tier: EPICS_TIER, auth: 'required', params: ReorderEpicIssueInput, tag: 'epic_issues', summary: "Move an issue among the epic's issues and children" },
    async (ctx, input) => paged(await reorderEpicIssue(ctx, input))),
  route('DELETE', '/groups/:id/epics/:epic_iid/issues/:epic_issue_id', { tier: EPICS_TIER, auth: 'required', params: EpicIssuePathInput, tag: 'epic_issues', summary: 'Remove an issue from the epic' },
    async (ctx, input) => ok(await removeEpicIssue(ctx, input))),

  // State events of an epic: `:epic_id` is the epic's global id (GitLab's `id_field: 'ID'` for Epic).
  route('GET', '/groups/:id/epics/:epic_id/resource_state_events',
    { tier: EPICS_TIER, auth: 'required', params: params({ id: p.string(), epic_id: p.integer(), ...ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of an epic' },
    async (ctx, input) => paged(await listEpicStateEvents(ctx, input.id, input.epic_id, input))),
  route('GET', '/groups/:id/epics/:epic_id/resource_state_events/:resource_state_event_id',
    { tier: EPICS_TIER, auth: 'required', params: params({ id: p.string(), epic_id: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of an epic' },
    async (ctx, input) => ok(await getEpicStateEvent(ctx, input.id, input.epic_id, input.resource_state_event_id))),
];
