import type { Ctx } from '../../access/context.js';
import { authorize } from '../../access/policy.js';
import { deleteAwardEmojiOf } from '../award-emoji/index.js';
import { deleteTargetLabelLinks } from '../labels/index.js';
import { deleteNoteableNotes } from '../notes/index.js';
import { findMergeRequest } from './find-merge-request.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import { deleteMergeRequestById } from './merge-request.queries.js';
import type { GetMergeRequestInput, MergeRequestRefInput } from './merge-request.schema.js';
import { presentMergeRequest } from './present-merge-requests.js';
import { rebaseJobsRunning } from './rebase-merge-request.js';

/** GET /projects/:id/merge_requests/:merge_request_iid, with `user.can_merge` for the caller (and `rebase_in_progress` when asked). */
export async function getMergeRequest(ctx: Ctx, input: GetMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const found = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  let mergeRequest = found.mergeRequest;
  let rebaseInProgress: boolean | undefined;
  if (input.include_rebase_in_progress) {
    const jobId = mergeRequest.rebase_job_id;
    rebaseInProgress = jobId !== null && (await rebaseJobsRunning(ctx.db, [jobId])).size > 0;
    // The rebase finished after the row was read: its outcome is committed, so read it again
    // (an answer saying "not in progress" always shows what the rebase did).
    if (!rebaseInProgress && jobId !== null) mergeRequest = (await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequest.id).executeTakeFirst()) ?? mergeRequest;
  }
  return presentMergeRequest(ctx, mergeRequest, found.project, { firstContribution: true, rebaseInProgress });
}

/**
 * DELETE /projects/:id/merge_requests/:merge_request_iid: Owners and admins, with its
 * labels, notes and reactions.
 */
export async function deleteMergeRequest(ctx: Ctx, input: MergeRequestRefInput): Promise<void> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  await authorize(ctx, 'destroy_merge_request', { kind: 'project', project });
  await ctx.db.transaction().execute(async (trx) => {
    await deleteNoteableNotes(trx, 'MergeRequest', [mergeRequest.id]);
    await deleteAwardEmojiOf(trx, 'MergeRequest', [mergeRequest.id]);
    await deleteTargetLabelLinks(trx, 'MergeRequest', mergeRequest.id);
    await deleteMergeRequestById(trx, mergeRequest.id);
  });
}
