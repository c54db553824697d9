import type { Ctx } from '../../kernel/context.js';
import { nowIso } from '../../kernel/context.js';
import { ConflictError, UnauthorizedError } from '../../kernel/errors.js';
import { can, requireUser } from '../../kernel/policy.js';
import { bool } from '../../storage/dialect.js';
import { recordStateEvent } from '../state-events/index.js';
import { findMergeRequest } from './find-merge-request.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import { MethodNotAllowedError } from '../../kernel/errors.js';
import { updateOpenMergeRequestToMerged } from './merge-request.queries.js';
import type { MergeMergeRequestInput } from './merge-request.schema.js';
import { presentMergeRequest } from './present-merge-requests.js';
import { newCommitSha } from './source-branch.js';

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/merge (Developer). Answers as GitLab:
 * a caller who may read but not merge gets 401 (`unauthorized!`); a merge request that is
 * not open, or is a draft, 405; a `sha` other than the head 409 naming the head.
 * The merge, its merge commit and the 'merged' state event are one transaction.
 */
export async function mergeMergeRequest(ctx: Ctx, input: MergeMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  if (!(await can(ctx, 'merge_merge_request', { kind: 'project', project }))) throw new UnauthorizedError();
  if (mr.state !== 'opened' || mr.draft) throw new MethodNotAllowedError();
  if (input.sha !== undefined && input.sha !== mr.sha) throw new ConflictError(`SHA does not match HEAD of source branch: ${mr.sha}`);
  // GitLab only ever turns squash on here.
  const squash = input.squash ? 1 : mr.squash;
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const merged = await updateOpenMergeRequestToMerged(trx, mr.id, mr.sha, {
      squash,
      squash_commit_sha: squash ? newCommitSha() : null,
      merge_commit_sha: newCommitSha(),
      should_remove_source_branch: input.should_remove_source_branch === undefined ? mr.should_remove_source_branch : bool(input.should_remove_source_branch),
      merged_at: now,
      merged_by_id: user.id,
      updated_at: now,
    });
    // Merged, closed, made a draft or moved by a concurrent request since it was read.
    if (!merged) throw new MethodNotAllowedError();
    await recordStateEvent(trx, { type: 'MergeRequest', id: mr.id }, 'merged', user.id, now);
    return merged;
  });
  return presentMergeRequest(ctx, row, project);
}
