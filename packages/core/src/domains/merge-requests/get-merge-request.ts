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

/** GET /projects/:id/merge_requests/:merge_request_iid, with `user.can_merge` for the caller (and `rebase_in_progress` when asked). */
export async function getMergeRequest(ctx: Ctx, input: GetMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  return presentMergeRequest(ctx, mergeRequest, project, { firstContribution: true, rebaseInProgress: input.include_rebase_in_progress === true });
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
