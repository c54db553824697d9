/** The close and reopen history of an issue (GitLab's `resource_state_events` for Issue): read as the issue is. */
import type { Ctx } from '../../access/context.js';
import type { PageRequest } from '../../kernel/pagination.js';
import { getStateEvent, listStateEvents } from '../state-events/index.js';
import { findIssue } from './find-issue.js';

const target = async (ctx: Ctx, projectRef: string, iid: number) => ({ column: 'issue_id' as const, id: (await findIssue(ctx, projectRef, iid)).issue.id });

/** GET /projects/:id/issues/:issue_iid/resource_state_events: oldest first. */
export async function listIssueStateEvents(ctx: Ctx, projectRef: string, iid: number, page: PageRequest) {
  return listStateEvents(ctx, await target(ctx, projectRef, iid), page);
}

/** GET /projects/:id/issues/:issue_iid/resource_state_events/:resource_state_event_id */
export async function getIssueStateEvent(ctx: Ctx, projectRef: string, iid: number, eventId: number) {
  return getStateEvent(ctx, await target(ctx, projectRef, iid), eventId);
}
