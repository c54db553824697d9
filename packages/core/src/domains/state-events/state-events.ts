/**
 * Resource state events: the close, reopen and merge history of issues, merge requests and
 * epics (GitLab's `lib/api/resource_state_events.rb`). GitLab authenticates every call, then
 * reads follow the issue, merge request and epic read rules.
 */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page, type PageRequest } from '../../kernel/pagination.js';
import { params, type InferShape } from '../../kernel/params.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { findGroup } from '../../access/lookup.js';
import { canReadEpic, EPICS_TIER } from '../epics/index.js';
import { findIssue } from '../issues/index.js';
import { findMergeRequest } from '../merge-requests/index.js';
import { toResourceStateEventEntity, type ResourceStateEventEntity } from './state-event.entity.js';
import { selectStateEventById, selectStateEventsOf, type StateEventTarget } from './state-event.queries.js';
import type { ResourceStateEventRow } from './state-event.table.js';

export type StateEventSegment = 'issues' | 'merge_requests';

export const ListStateEventsInput = params({ ...paginationParams });
export type ListStateEventsInput = InferShape<typeof ListStateEventsInput.shape>;

/** `/projects/:id/<segment>/:iid`: the readable issue or merge request (404 otherwise). */
async function findEventable(ctx: Ctx, projectRef: string, segment: StateEventSegment, iid: number): Promise<StateEventTarget> {
  if (segment === 'issues') {
    const { issue } = await findIssue(ctx, projectRef, iid);
    return { column: 'issue_id', id: issue.id };
  }
  const { mergeRequest } = await findMergeRequest(ctx, projectRef, iid);
  return { column: 'merge_request_id', id: mergeRequest.id };
}

async function present(ctx: Ctx, rows: ResourceStateEventRow[]): Promise<ResourceStateEventEntity[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))];
  const users = ids.length ? new Map((await ctx.db.selectFrom('users').selectAll().where('id', 'in', ids).execute()).map((u) => [u.id, u])) : new Map();
  return rows.map((r) => toResourceStateEventEntity(r, r.user_id === null ? null : users.get(r.user_id) ?? null, ctx.urls));
}

/** GET /projects/:id/<segment>/:iid/resource_state_events: oldest first; `[]` when never closed or reopened. */
export async function listStateEvents(ctx: Ctx, projectRef: string, segment: StateEventSegment, iid: number, page: PageRequest): Promise<Page<ResourceStateEventEntity>> {
  const target = await findEventable(ctx, projectRef, segment, iid);
  return paginate(ctx.db, selectStateEventsOf(ctx.db, target), page, (rows) => present(ctx, rows));
}

/** GET …/resource_state_events/:resource_state_event_id: a miss is ActiveRecord's `404 Not found`. */
export async function getStateEvent(ctx: Ctx, projectRef: string, segment: StateEventSegment, iid: number, eventId: number): Promise<ResourceStateEventEntity> {
  const target = await findEventable(ctx, projectRef, segment, iid);
  const row = await selectStateEventById(ctx.db, target, eventId);
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return (await present(ctx, [row]))[0]!;
}

/**
 * `/groups/:id/epics/:epic_id`: GitLab finds the eventable with `target_id` for epics
 * (`id_field: 'ID'`), so `:epic_id` is the epic's global id, looked up among the epics of the
 * group and its subgroups that the caller can read. Anything else, and instances without
 * epics (free tier), is ActiveRecord's `404 Not found`.
 */
async function findEpicEventable(ctx: Ctx, groupRef: string, epicId: number): Promise<StateEventTarget> {
  const group = await findGroup(ctx, groupRef);
  const missing = () => new NotFoundError(null, { exact: '404 Not found' });
  if (!tierAtLeast(ctx.config.tier, EPICS_TIER)) throw missing();
  const epic = await ctx.db
    .selectFrom('epics')
    .innerJoin('namespaces', 'namespaces.id', 'epics.group_id')
    .selectAll('epics')
    .where('epics.id', '=', epicId)
    .where('namespaces.traversal', 'like', `${group.traversal}%`)
    .executeTakeFirst();
  if (!epic || !(await canReadEpic(ctx, epic))) throw missing();
  return { column: 'epic_id', id: epic.id };
}

/** GET /groups/:id/epics/:epic_id/resource_state_events: oldest first. */
export async function listEpicStateEvents(ctx: Ctx, groupRef: string, epicId: number, page: PageRequest): Promise<Page<ResourceStateEventEntity>> {
  const target = await findEpicEventable(ctx, groupRef, epicId);
  return paginate(ctx.db, selectStateEventsOf(ctx.db, target), page, (rows) => present(ctx, rows));
}

/** GET /groups/:id/epics/:epic_id/resource_state_events/:resource_state_event_id. */
export async function getEpicStateEvent(ctx: Ctx, groupRef: string, epicId: number, eventId: number): Promise<ResourceStateEventEntity> {
  const target = await findEpicEventable(ctx, groupRef, epicId);
  const row = await selectStateEventById(ctx.db, target, eventId);
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return (await present(ctx, [row]))[0]!;
}
