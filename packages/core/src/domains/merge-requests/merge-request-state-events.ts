/** The close, reopen and merge history of a merge request (GitLab's `resource_state_events` for MergeRequest): read as the merge request is. */
import type { Ctx } from '../../access/context.js';
import type { PageRequest } from '../../kernel/pagination.js';
import { getStateEvent, listStateEvents } from '../state-events/index.js';
import { findMergeRequest } from './find-merge-request.js';

const target = async (ctx: Ctx, projectRef: string, iid: number) => ({ column: 'merge_request_id' as const, id: (await findMergeRequest(ctx, projectRef, iid)).mergeRequest.id });

/** GET /projects/:id/merge_requests/:merge_request_iid/resource_state_events: oldest first. */
export async function listMergeRequestStateEvents(ctx: Ctx, projectRef: string, iid: number, page: PageRequest) {
  return listStateEvents(ctx, await target(ctx, projectRef, iid), page);
}

/** GET /projects/:id/merge_requests/:merge_request_iid/resource_state_events/:resource_state_event_id */
export async function getMergeRequestStateEvent(ctx: Ctx, projectRef: string, iid: number, eventId: number) {
  return getStateEvent(ctx, await target(ctx, projectRef, iid), eventId);
}
