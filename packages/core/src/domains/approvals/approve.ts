/**
 * Approving merge requests, as GitLab's `lib/api/merge_request_approvals.rb` (+ EE):
 * - approve: the `approve_merge_request` ability (403 without it), then `sha` must be the
 *   head (409 naming the head), then the password when the project requires
 *   re-authentication, then eligibility (already approved, author, committer): 401 for
 *   any of those. 201 with the approval state.
 * - unapprove: 404 when the caller has not approved, else 201 with the state.
 * - reset_approvals: bot users (project or group access tokens) who may approve; a human or
 *   a merged merge request gets 401. 202.
 */
import { recordProjectActivity } from '../../access/project-activity.js';
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { nowIso } from '../../access/context.js';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../kernel/errors.js';
import { requireUser } from '../../access/policy.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { verifyUserPassword } from '../../access/passwords.js';
import { findMergeRequest, runMergeRequestChanged } from '../merge-requests/index.js';
import type { MergeRequestRow } from '../merge-requests/index.js';
import type { ProjectRow } from '../../access/project.table.js';
import {
  presentApprovalState,
  presentMergeRequestApprovalState,
  type ApprovalStateEntity,
  type MergeRequestApprovalStateEntity,
} from './approval-state.entity.js';
import { approvalStateOf, eligibleToApprove, mayApprove } from './approval-state.js';
import type { ApproveInput, MergeRequestRefInput } from './approvals.schema.js';

/** The caller's context reading and writing through `trx`. */
function inTransaction(ctx: Ctx, trx: Kysely<Database>): Ctx {
  return Object.assign(Object.create(ctx) as Ctx, { db: trx, cache: new Map() });
}

/** The state as the caller sees it (with `user_can_approve`). */
async function stateFor(ctx: Ctx, project: ProjectRow, mr: MergeRequestRow): Promise<ApprovalStateEntity> {
  const state = await approvalStateOf(ctx, mr);
  const me = ctx.actor.user;
  const canApprove = me !== null && eligibleToApprove(state, me.id) && (await mayApprove(ctx, project, mr));
  return presentApprovalState(ctx, state, { canApprove });
}

/** GET /projects/:id/merge_requests/:merge_request_iid/approvals */
export async function getApprovals(ctx: Ctx, input: MergeRequestRefInput): Promise<ApprovalStateEntity> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  return stateFor(ctx, project, mergeRequest);
}

/** GET /projects/:id/merge_requests/:merge_request_iid/approval_state */
export async function getApprovalState(ctx: Ctx, input: MergeRequestRefInput): Promise<MergeRequestApprovalStateEntity> {
  const { mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  return presentMergeRequestApprovalState(ctx, await approvalStateOf(ctx, mergeRequest));
}

/** POST /projects/:id/merge_requests/:merge_request_iid/approve */
export async function approveMergeRequest(ctx: Ctx, input: ApproveInput): Promise<ApprovalStateEntity> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  if (!(await mayApprove(ctx, project, mr))) throw new ForbiddenError();
  if (input.sha !== undefined && input.sha !== mr.sha) throw new ConflictError(`SHA does not match HEAD of source branch: ${mr.sha}`);
  const state = await approvalStateOf(ctx, mr);
  if (state.settings.require_reauthentication_to_approve && !(await verifyUserPassword(ctx.db, user.id, input.approval_password))) {
    throw new UnauthorizedError();
  }
  if (!eligibleToApprove(state, user.id)) throw new UnauthorizedError();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('merge_request_approvals').values({ merge_request_id: mr.id, user_id: user.id, created_at: nowIso(ctx) }).execute();
      await recordProjectActivity(trx, project, nowIso(ctx)); // an approval is a project event
      // GitLab: `approved` once the merge request needs no more approvals, `approval` before.
      const after = await approvalStateOf(inTransaction(ctx, trx), mr);
      await runMergeRequestChanged(trx, { action: after.approved ? 'approved' : 'approval', by: ctx, before: mr, after: mr });
    });
  } catch (err) {
    // A concurrent approval by the same user: already approved.
    if (isUniqueViolation(err)) throw new UnauthorizedError();
    throw err;
  }
  return stateFor(ctx, project, mr);
}

/** POST /projects/:id/merge_requests/:merge_request_iid/unapprove */
export async function unapproveMergeRequest(ctx: Ctx, input: MergeRequestRefInput): Promise<ApprovalStateEntity> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  if (!(await mayApprove(ctx, project, mr))) throw new ForbiddenError();
  await ctx.db.transaction().execute(async (trx) => {
    const before = await approvalStateOf(inTransaction(ctx, trx), mr);
    const removed = await trx
      .deleteFrom('merge_request_approvals')
      .where('merge_request_id', '=', mr.id)
      .where('user_id', '=', user.id)
      .executeTakeFirst();
    if (Number(removed.numDeletedRows) === 0) throw new NotFoundError();
    // GitLab: `unapproved` when this takes the merge request out of its approved state, `unapproval` otherwise.
    await runMergeRequestChanged(trx, { action: before.approved ? 'unapproved' : 'unapproval', by: ctx, before: mr, after: mr });
  });
  return stateFor(ctx, project, mr);
}

/** PUT /projects/:id/merge_requests/:merge_request_iid/reset_approvals */
export async function resetApprovals(ctx: Ctx, input: MergeRequestRefInput): Promise<void> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const bot = user.bot_kind !== null && (ctx.actor.token?.kind === 'project' || ctx.actor.token?.kind === 'group');
  if (!bot || mr.state === 'merged' || !(await mayApprove(ctx, project, mr))) throw new UnauthorizedError();
  await ctx.db.deleteFrom('merge_request_approvals').where('merge_request_id', '=', mr.id).execute();
}
