import { p, params } from '../../kernel/params.js';
import { ok, paged, route, type Route } from '../../kernel/route.js';
import { EPICS_TIER } from '../epics/index.js';
import * as events from './state-events.js';

// GitLab's `before { authenticate! }`: anonymous callers get 401 even on public projects.
// Epics: `:epic_id` is the epic's global id (GitLab's `id_field: 'ID'` for Epic).
export const stateEventsRoutes: Route[] = [
  route('GET', '/projects/:id/issues/:issue_iid/resource_state_events',
    { auth: 'required', params: params({ id: p.string(), issue_iid: p.integer(), ...events.ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of an issue' },
    async (ctx, input) => paged(await events.listStateEvents(ctx, input.id, 'issues', input.issue_iid, input))),
  route('GET', '/projects/:id/issues/:issue_iid/resource_state_events/:resource_state_event_id',
    { auth: 'required', params: params({ id: p.string(), issue_iid: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of an issue' },
    async (ctx, input) => ok(await events.getStateEvent(ctx, input.id, 'issues', input.issue_iid, input.resource_state_event_id))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/resource_state_events',
    { auth: 'required', params: params({ id: p.string(), merge_request_iid: p.integer(), ...events.ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of a merge request' },
    async (ctx, input) => paged(await events.listStateEvents(ctx, input.id, 'merge_requests', input.merge_request_iid, input))),
  route('GET', '/projects/:id/merge_requests/:merge_request_iid/resource_state_events/:resource_state_event_id',
    { auth: 'required', params: params({ id: p.string(), merge_request_iid: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of a merge request' },
    async (ctx, input) => ok(await events.getStateEvent(ctx, input.id, 'merge_requests', input.merge_request_iid, input.resource_state_event_id))),
  route('GET', '/groups/:id/epics/:epic_id/resource_state_events',
    { tier: EPICS_TIER, auth: 'required', params: params({ id: p.string(), epic_id: p.integer(), ...events.ListStateEventsInput.shape }), tag: 'resource_state_events', summary: 'List state events of an epic' },
    async (ctx, input) => paged(await events.listEpicStateEvents(ctx, input.id, input.epic_id, input))),
  route('GET', '/groups/:id/epics/:epic_id/resource_state_events/:resource_state_event_id',
    { tier: EPICS_TIER, auth: 'required', params: params({ id: p.string(), epic_id: p.integer(), resource_state_event_id: p.integer() }), tag: 'resource_state_events', summary: 'Get a state event of an epic' },
    async (ctx, input) => ok(await events.getEpicStateEvent(ctx, input.id, input.epic_id, input.resource_state_event_id))),
];
