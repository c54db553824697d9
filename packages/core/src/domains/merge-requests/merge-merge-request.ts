import type { Ctx } from '../../access/context.js';
import { repositoryTransaction } from '../repository/index.js';
import { runMergeRequestChanged } from './merge-request-hooks.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import { nowIso } from '../../access/context.js';
import { ConflictError, UnauthorizedError, UnprocessableError } from '../../kernel/errors.js';
import { can, requireUser } from '../../access/policy.js';
import { bool } from '../../storage/dialect.js';
import { recordStateEvent } from '../state-events/index.js';
import { findMergeRequest } from './find-merge-request.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import { MethodNotAllowedError } from '../../kernel/errors.js';
import { updateMergeRequestById, updateOpenMergeRequestToMerged } from './merge-request.queries.js';
import type { MergeMergeRequestInput } from './merge-request.schema.js';
import { presentMergeRequest } from './present-merge-requests.js';
import { canUpdateBranch, deleteRefIn, selectBranch } from '../repository/index.js';
import { CANNOT_MERGE, recordMerge, sourceBranchRemovable } from './source-branch.js';
import { approvalsAllowMerge } from './approval-status.js';
import { createPushPipeline } from '../ci/index.js';
import { mergesCleanly } from './merge-request-diffs.js';
import { isAncestor } from './rebase-commits.js';

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/merge (Developer). Answers as GitLab:
 * a caller who may read but not merge, or who may neither push to nor merge into the
 * (protected) target branch, gets 401 (`unauthorized!`); a merge request that is not open, is
 * a draft or lacks approvals, 405 (`mergeable_state?`); a missing branch, conflicts, or (merge
 * methods `rebase_merge` and `ff`) a source that does not contain the target head, 422
 * `Branch cannot be merged` (`mergeable?`'s git checks); a `sha` other than the head 409
 * naming the head. Then, by the project's merge method (GitLab's FromSourceBranch strategy):
 * `merge` and `rebase_merge` write a merge commit (`merge_commit_sha`), `ff` fast-forwards the
 * target to the source head or the squash commit and leaves `merge_commit_sha` null; with
 * squash, `squash_commit_sha` is the squash commit. The merge, the target's move, the source
 * branch's removal when asked and the 'merged' state event are one transaction.
 */
export async function mergeMergeRequest(ctx: Ctx, input: MergeMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  if (!(await can(ctx, 'merge_merge_request', { kind: 'project', project }))) throw new UnauthorizedError();
  // GitLab's can_be_merged_by?: the caller may push to or merge into the target branch (its
  // protection rules: by default only Maintainers merge into the default branch).
  if (!(await canUpdateBranch(ctx, project, mr.target_branch))) throw new UnauthorizedError();
  if (mr.state !== 'opened' || mr.draft) throw new MethodNotAllowedError();
  // Not approved enough (approval rules): not mergeable, 405 as GitLab.
  if (!(await approvalsAllowMerge(ctx, mr))) throw new MethodNotAllowedError();
  const source = await selectBranch(ctx.db, project.id, mr.source_branch);
  const target = await selectBranch(ctx.db, project.id, mr.target_branch);
  if (!source || !target) throw new UnprocessableError(CANNOT_MERGE);
  if (!(await mergesCleanly(ctx.git, project.id, target.commit_sha, source.commit_sha))) throw new UnprocessableError(CANNOT_MERGE);
  // GitLab's should_be_rebased?: rebase_merge and ff need the target head in the source.
  if (project.merge_method !== 'merge' && !(await isAncestor(ctx.git, project.id, target.commit_sha, source.commit_sha))) throw new UnprocessableError(CANNOT_MERGE);
  if (input.sha !== undefined && input.sha !== mr.sha) throw new ConflictError(`SHA does not match HEAD of source branch: ${mr.sha}`);
  // GitLab only ever turns squash on here.
  const squash = input.squash ? 1 : mr.squash;
  const removeSource = input.should_remove_source_branch === undefined ? mr.should_remove_source_branch : bool(input.should_remove_source_branch);
  const removable = removeSource ? await sourceBranchRemovable(ctx, project, source) : false;
  const now = nowIso(ctx);
  let before: string | null = null;
  const row = await repositoryTransaction(ctx, async (trx) => {
    const merged = await updateOpenMergeRequestToMerged(trx, mr.id, mr.sha, {
      squash,
      should_remove_source_branch: removeSource,
      merged_at: now,
      merged_by_id: user.id,
      updated_at: now,
    });
    // Merged, closed, made a draft or moved by a concurrent request since it was read.
    if (!merged) throw new MethodNotAllowedError();
    // The branches as of this transaction (a push may have moved them since they were read).
    const from = (await selectBranch(trx, project.id, mr.source_branch)) ?? source;
    const into = (await selectBranch(trx, project.id, mr.target_branch)) ?? target;
    before = into.commit_sha;
    // A push moved the target meanwhile out of the source's history: not fast-forwardable any more.
    if (project.merge_method !== 'merge' && into.commit_sha !== target.commit_sha && !(await isAncestor(ctx.git, project.id, into.commit_sha, from.commit_sha))) {
      throw new UnprocessableError(CANNOT_MERGE);
    }
    const outcome = await recordMerge(trx, ctx, project, merged, from, into, {
      fastForward: project.merge_method === 'ff',
      squash: squash === 1,
      mergeCommitMessage: input.merge_commit_message,
      squashCommitMessage: input.squash_commit_message,
    });
    if (removable) await deleteRefIn(trx, ctx, project, from);
    await recordStateEvent(trx, { type: 'MergeRequest', id: mr.id }, 'merged', user.id, now);
    await recordProjectActivity(trx, project, now);
    const after = await updateMergeRequestById(trx, mr.id, { merge_commit_sha: outcome.mergeCommitSha, squash_commit_sha: outcome.squashCommitSha });
    await runMergeRequestChanged(trx, { action: 'merge', by: ctx, before: mr, after });
    return after;
  });
  // The merge is a push to the target branch: its pipeline runs, as on GitLab.
  await createPushPipeline(ctx, project, { kind: 'branch', name: mr.target_branch, message: project.merge_method === 'ff' ? undefined : input.merge_commit_message, before });
  return presentMergeRequest(ctx, row, project);
}
