/**
 * Merge requests merged outside Forgelet (GitLab's MergeRequests::RefreshService
 * #post_merge_manually_merged): when a write moves a branch (a `git push`, a commit, a merge)
 * and the new commits on it include the head of an open merge request into that branch, the
 * merge request is merged, by the pusher. Its `merge_commit_sha` is the commit of the target's
 * first-parent line that brought the head in (the head itself after a fast-forward), as
 * Gitlab::BranchPushMergeCommitAnalyzer finds it. Then everything a merge does follows: the
 * state event, the merge hooks (webhooks, issues it closes) and the metrics that feed DORA.
 * Runs in the transaction of the write (a push hook), so the merge and the push are one change.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { Database } from '../../storage/database.js';
import type { PushHooks, RefUpdate } from '../repository/index.js';
import { recordStateEvent } from '../state-events/index.js';
import { runMergeRequestChanged } from './merge-request-hooks.js';
import { latestDiffsOf } from './merge-request-diffs.js';

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** The most new commits of one push looked at (GitLab reads the push's commits the same way, bounded). */
const MAX_COMMITS = 10_000;

const shaList = (out: Buffer) => out.toString('utf8').split('\n').filter((line) => SHA.test(line));

export async function mergeManuallyMerged(trx: Kysely<Database>, ctx: Ctx, project: ProjectRow, update: RefUpdate): Promise<void> {
  if (update.kind !== 'branch' || !update.after || !SHA.test(update.after)) return;
  const candidates = await trx
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('target_branch', '=', update.name)
    .where('state', '=', 'opened')
    .where('sha', 'is not', null)
    .execute();
  if (!candidates.length) return;
  const exclude = update.before && SHA.test(update.before) ? [`^${update.before}`] : [];
  const range = ['--end-of-options', update.after, ...exclude, '--'];
  const added = new Set(shaList((await ctx.git.run(project.id, ['rev-list', `--max-count=${MAX_COMMITS}`, ...range])).stdout));
  // Not those whose diff is empty (GitLab: the merge request diff's state is not `empty`).
  const pushedHeads = candidates.filter((mr) => added.has(mr.sha!));
  const diffs = await latestDiffsOf(trx, pushedHeads.map((mr) => mr.id));
  const heads = pushedHeads.filter((mr) => diffs.get(mr.id)?.state !== 'empty');
  if (!heads.length) return;
  // The target's own line of history in this push, oldest first.
  const line = shaList((await ctx.git.run(project.id, ['rev-list', '--first-parent', `--max-count=${MAX_COMMITS}`, ...range])).stdout).reverse();
  const now = nowIso(ctx);
  for (const mr of heads) {
    let mergeCommit = mr.sha!;
    if (!line.includes(mr.sha!)) {
      const descendants = new Set(shaList((await ctx.git.run(project.id, ['rev-list', '--ancestry-path', `--max-count=${MAX_COMMITS}`, '--end-of-options', `^${mr.sha}`, update.after, '--'])).stdout));
      mergeCommit = line.find((sha) => descendants.has(sha)) ?? update.after;
    }
    const after = await trx
      .updateTable('merge_requests')
      .set({ state: 'merged', merged_at: now, merged_by_id: ctx.actor.user?.id ?? null, merge_commit_sha: mergeCommit, updated_at: now })
      .where('id', '=', mr.id)
      .where('state', '=', 'opened')
      .where('sha', '=', mr.sha)
      .returningAll()
      .executeTakeFirst();
    if (!after) continue;
    if (ctx.actor.user) await recordStateEvent(trx, { type: 'MergeRequest', id: mr.id }, 'merged', ctx.actor.user.id, now);
    await recordProjectActivity(trx, project, now);
    await runMergeRequestChanged(trx, { action: 'merge', by: ctx, before: mr, after });
  }
}

/** The merge requests' reaction to pushes, registered by the wiring (the repository's push hooks). */
export const manualMergePushHooks: PushHooks = { refUpdated: mergeManuallyMerged };
