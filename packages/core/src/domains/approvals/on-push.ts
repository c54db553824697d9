/**
 * What a new head on a merge request's source branch does to its approvals. Runs (a push hook the
 * wiring registers) in the repository's `moveMergeRequestHeads`, inside the commit's transaction:
 * with `reset_approvals_on_push` (the default) the approvals of the open merge requests from
 * that branch are deleted, in the same transaction, and the merge requests stay "temporarily
 * unapproved" (`detailed_merge_status` `approvals_syncing` while approvals are required)
 * until the queue runs the `approvals.sync` job 10 seconds later, as GitLab's
 * `MergeRequestResetApprovalsWorker.perform_in(10.seconds)` after `temporarily_unapprove!`.
 * A new merge request is temporarily unapproved too until its sync job runs, right away
 * (GitLab's `SyncCodeOwnerApprovalRulesWorker.perform_async(expire_unapproved_key: true)`).
 * The spec's automation guidance waits for neither `checking` nor `approvals_syncing`.
 */
import type { Kysely } from 'kysely';
import type { MergeRequestHooks } from '../merge-requests/index.js';
import type { PushHooks } from '../repository/index.js';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { settingsOfProjects } from './settings.js';

type Trx = Kysely<Database>;

export const APPROVALS_SYNC_JOB = 'approvals.sync';
/** GitLab resets approvals 10 s after the push (MergeRequestResetApprovalsWorker.perform_in). */
const RESET_SYNC_DELAY_MS = 10_000;

interface SyncPayload {
  merge_request_ids: number[];
  sha: string;
}

/** Marks merge requests temporarily unapproved until an `approvals.sync` job at `runAt` ends it. */
async function temporarilyUnapprove(trx: Trx, ids: number[], sha: string, now: string, runAt: string): Promise<void> {
  if (!ids.length) return;
  await trx.deleteFrom('merge_request_approval_syncs').where('merge_request_id', 'in', ids).execute();
  await trx
    .insertInto('merge_request_approval_syncs')
    .values(ids.map((id) => ({ merge_request_id: id, sha, approvals_reset: 1, created_at: now })))
    .execute();
  // The queue row is written here (not through Queue#enqueue, which these transaction-only
  // hooks cannot reach) with the same columns enqueue writes.
  const payload: SyncPayload = { merge_request_ids: ids, sha };
  await trx
    .insertInto('queue_jobs')
    .values({ kind: APPROVALS_SYNC_JOB, payload: JSON.stringify(payload), unique_key: null, status: 'pending', run_at: runAt, attempts: 0, max_attempts: 5, created_at: now })
    .execute();
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
  if (!resetIds.length) return;
  await trx.deleteFrom('merge_request_approvals').where('merge_request_id', 'in', resetIds).execute();
  await temporarilyUnapprove(trx, resetIds, sha, now, new Date(Date.parse(now) + RESET_SYNC_DELAY_MS).toISOString());
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

/** A new merge request is temporarily unapproved until its (immediate) sync job runs. */
export const approvalsMergeRequestHooks: MergeRequestHooks = {
  mergeRequestChanged: async (trx, change) => {
    if (change.action !== 'open') return;
    const now = change.by.clock.now().toISOString();
    await temporarilyUnapprove(trx, [change.after.id], change.after.sha, now, now);
  },
};
