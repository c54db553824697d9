/**
 * What a new head on a merge request's source branch does to its approvals. Runs (a push hook the
 * wiring registers) in the repository's `moveMergeRequestHeads`, inside the commit's transaction:
 * - with `reset_approvals_on_push` (the default) the approvals of the open merge requests
 *   from that branch are deleted, in the same transaction;
 * - either way the merge request is marked as being processed until the queue runs the
 *   `approvals.sync` job: `detailed_merge_status` is `approvals_syncing` (approvals were
 *   reset) or `checking` (they were kept) meanwhile, as GitLab shows while it processes a
 *   push (the spec's automation guidance: wait until it is neither before approving).
 */
import type { Kysely } from 'kysely';
import type { PushHooks } from '../repository/index.js';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { settingsOfProjects } from './settings.js';

type Trx = Kysely<Database>;

export const APPROVALS_SYNC_JOB = 'approvals.sync';

interface SyncPayload {
  merge_request_ids: number[];
  sha: string;
}

/**
 * Resets (or keeps) the approvals of the open merge requests whose source branch is
 * `branch` of project `projectId`, now headed at `sha`. Runs in the caller's transaction.
 */
export async function onMergeRequestHeadsMoved(trx: Trx, projectId: number, branch: string, sha: string, now: string): Promise<void> {
  const mrs = await trx
    .selectFrom('merge_requests')
    .select(['id', 'project_id'])
    .where('source_project_id', '=', projectId)
    .where('source_branch', '=', branch)
    .where('state', 'in', ['opened', 'locked'])
    .execute();
  if (!mrs.length) return;
  const settings = await settingsOfProjects(trx, mrs.map((m) => m.project_id));
  const resetIds = mrs.filter((m) => settings.get(m.project_id)!.reset_approvals_on_push).map((m) => m.id);
  if (resetIds.length) await trx.deleteFrom('merge_request_approvals').where('merge_request_id', 'in', resetIds).execute();
  const ids = mrs.map((m) => m.id);
  await trx.deleteFrom('merge_request_approval_syncs').where('merge_request_id', 'in', ids).execute();
  await trx
    .insertInto('merge_request_approval_syncs')
    .values(mrs.map((m) => ({ merge_request_id: m.id, sha, approvals_reset: resetIds.includes(m.id) ? 1 : 0, created_at: now })))
    .execute();
  // The queue row is written here (not through Queue#enqueue, which this transaction-only
  // hook cannot reach) with the same columns enqueue writes.
  const payload: SyncPayload = { merge_request_ids: ids, sha };
  await trx
    .insertInto('queue_jobs')
    .values({
      kind: APPROVALS_SYNC_JOB,
      payload: JSON.stringify(payload),
      unique_key: null,
      status: 'pending',
      run_at: now,
      attempts: 0,
      max_attempts: 5,
      created_at: now,
    })
    .execute();
}

/** Registers the job that ends the "processing" window of a push (a newer push keeps its own). */
export function registerApprovalJobs(deps: Deps): void {
  deps.queue.register(APPROVALS_SYNC_JOB, async (payload: SyncPayload) => {
    if (!payload?.merge_request_ids?.length) return;
    await deps.db
      .deleteFrom('merge_request_approval_syncs')
      .where('merge_request_id', 'in', payload.merge_request_ids)
      .where('sha', '=', payload.sha)
      .execute();
  });
}

/** Approvals' reaction to pushes, registered by the wiring (the repository's push hooks). */
export const approvalsPushHooks: PushHooks = { mergeRequestHeadsMoved: onMergeRequestHeadsMoved };
