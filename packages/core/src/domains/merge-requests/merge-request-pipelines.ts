/**
 * GET /projects/:id/merge_requests/:merge_request_iid/pipelines (GitLab's
 * PipelinesForMergeRequestFinder, also GraphQL's `MergeRequest.pipelines`): the source branch's
 * pipelines at the merge request's recent diff heads (the last 100 versions' head commits), so
 * pipelines of the branch before the merge request or after it moved elsewhere are not its own.
 * Forgelet runs no merge request pipelines (`merge_request_event`).
 */
import type { Ctx } from '../../access/context.js';
import type { Page, PageRequest } from '../../kernel/pagination.js';
import { listBranchPipelinesAt, type PipelineListEntity } from '../ci/index.js';
import { findMergeRequest } from './find-merge-request.js';

/** GitLab's COMMITS_LIMIT for `recent_diff_head_shas`. */
const RECENT_HEADS = 100;

export async function listMergeRequestPipelines(ctx: Ctx, input: { id: string; merge_request_iid: number; status?: string } & PageRequest): Promise<Page<PipelineListEntity>> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const rows = await ctx.db
    .selectFrom('merge_request_diffs')
    .select('head_commit_sha')
    .where('merge_request_id', '=', mergeRequest.id)
    .orderBy('id', 'desc')
    .limit(RECENT_HEADS)
    .execute();
  const heads = new Set(rows.map((r) => r.head_commit_sha).filter((sha): sha is string => Boolean(sha)));
  if (mergeRequest.sha) heads.add(mergeRequest.sha); // (a version not recorded yet)
  return listBranchPipelinesAt(ctx, project, mergeRequest.source_branch, [...heads], input);
}
