/**
 * Resource state events: the close, reopen and merge history of issues, merge requests and
 * epics (GitLab's `lib/api/resource_state_events.rb`). The routes live with their owners
 * (issues, merge requests, epics), which find the resource by their own read rules and pass
 * its target here; GitLab authenticates every call.
 */
import { usersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page, type PageRequest } from '../../kernel/pagination.js';
import { params, type InferShape } from '../../kernel/params.js';
import { toResourceStateEventEntity, type ResourceStateEventEntity } from './state-event.entity.js';
import { selectStateEventById, selectStateEventsOf, type StateEventTarget } from './state-event.queries.js';
import type { ResourceStateEventRow } from './state-event.table.js';

export const ListStateEventsInput = params({ ...paginationParams });
export type ListStateEventsInput = InferShape<typeof ListStateEventsInput.shape>;

async function present(ctx: Ctx, rows: ResourceStateEventRow[]): Promise<ResourceStateEventEntity[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))];
  const users = await usersByIds(ctx.db, ids);
  return rows.map((r) => toResourceStateEventEntity(r, r.user_id === null ? null : users.get(r.user_id) ?? null, ctx.urls));
}

/** GET …/resource_state_events of a resource the caller can read: oldest first; `[]` when never closed or reopened. */
export function listStateEvents(ctx: Ctx, target: StateEventTarget, page: PageRequest): Promise<Page<ResourceStateEventEntity>> {
  return paginate(ctx.db, selectStateEventsOf(ctx.db, target), page, (rows) => present(ctx, rows));
}

/** GET …/resource_state_events/:resource_state_event_id: a miss is ActiveRecord's `404 Not found`. */
export async function getStateEvent(ctx: Ctx, target: StateEventTarget, eventId: number): Promise<ResourceStateEventEntity> {
  const row = await selectStateEventById(ctx.db, target, eventId);
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return (await present(ctx, [row]))[0]!;
}
