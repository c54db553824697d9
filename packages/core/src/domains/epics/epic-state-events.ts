/** The close and reopen history of an epic (GitLab's `resource_state_events` for Epic). */
import type { Ctx } from '../../access/context.js';
import type { PageRequest } from '../../kernel/pagination.js';
import { getStateEvent, listStateEvents } from '../state-events/index.js';
import { findEpicInHierarchy } from './find-epic.js';

const target = async (ctx: Ctx, groupRef: string, epicId: number) => ({ column: 'epic_id' as const, id: (await findEpicInHierarchy(ctx, groupRef, epicId)).id });

/** GET /groups/:id/epics/:epic_id/resource_state_events: oldest first. */
export async function listEpicStateEvents(ctx: Ctx, groupRef: string, epicId: number, page: PageRequest) {
  return listStateEvents(ctx, await target(ctx, groupRef, epicId), page);
}

/** GET /groups/:id/epics/:epic_id/resource_state_events/:resource_state_event_id */
export async function getEpicStateEvent(ctx: Ctx, groupRef: string, epicId: number, eventId: number) {
  return getStateEvent(ctx, await target(ctx, groupRef, epicId), eventId);
}
