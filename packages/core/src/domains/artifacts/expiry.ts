/**
 * Expiry of artifacts in the worker (GitLab's `Ci::JobArtifacts::DestroyAllExpiredService`):
 * artifacts past their `expire_at` are deleted (index rows, rows, then blobs), except kept
 * ones (`locked`), job logs, and the artifacts of pipelines that still hold the
 * latest-artifacts lock of their ref (see artifact-access.ts).
 *
 * One durable queue job (`artifacts.expire`, one pending at a time) runs the sweep. It is due
 * at the earliest future `expire_at` (an upload pulls it earlier), and while expired artifacts
 * wait on a pipeline lock it also comes back every hour, as a newer successful pipeline of the
 * ref releases them (GitLab's cron worker polls the same way). It ends when nothing is left to
 * expire; the next upload starts it again.
 */
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { BlobStore } from '../../storage/blobs.js';
import type { Queue } from '../../storage/queue.js';
import { pipelineUnlockedSql, TRACE } from './artifact-access.js';

export const EXPIRE_JOB = 'artifacts.expire';
const BATCH = 200;
/** How often expired artifacts held by a pipeline lock are looked at again. */
export const LOCK_RECHECK_MS = 60 * 60_000;

/** The queue of each forge by its blob store, for the upload path (which has only a transaction and the store). */
const queues = new WeakMap<BlobStore, Queue>();

/**
 * Makes the expiry job due at `at` at the latest, in the transaction of the write that needs
 * it (a job a worker holds right now is left alone: it re-reads the artifacts when it ends).
 */
export async function scheduleArtifactExpiry(trx: Kysely<Database>, queue: Queue, at: Date, now: Date): Promise<void> {
  const iso = at.toISOString();
  await trx
    .updateTable('queue_jobs')
    .set({ run_at: iso, attempts: 0 })
    .where('unique_key', '=', EXPIRE_JOB)
    .where('status', '=', 'pending')
    .where('run_at', '>', iso)
    .where(sql<boolean>`(lease_expires_at is null or lease_expires_at < ${now.toISOString()})`)
    .execute();
  await queue.enqueue(trx, EXPIRE_JOB, {}, { runAt: at, uniqueKey: EXPIRE_JOB });
}

/** Schedules the expiry of a just recorded artifact (called by the upload, inside its transaction). */
export async function scheduleExpiryOf(trx: Kysely<Database>, blobs: BlobStore, artifactId: number): Promise<void> {
  const queue = queues.get(blobs);
  if (!queue) return;
  const row = await trx
    .selectFrom('ci_job_artifacts')
    .select(['expire_at', 'locked', 'file_type', 'created_at'])
    .where('id', '=', artifactId)
    .executeTakeFirst();
  if (!row || row.expire_at === null || row.locked === 1 || row.file_type === TRACE) return;
  await scheduleArtifactExpiry(trx, queue, new Date(row.expire_at), new Date(row.created_at));
}

/** Deletes artifact rows and their index in one transaction, then their blobs. */
export async function destroyArtifacts(deps: Pick<Deps, 'db' | 'blobs'>, rows: { id: number; blob_key: string }[]): Promise<void> {
  if (!rows.length) return;
  const ids = rows.map((r) => r.id);
  await deps.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('ci_artifact_entries').where('artifact_id', 'in', ids).execute();
    await trx.deleteFrom('ci_job_artifacts').where('id', 'in', ids).execute();
  });
  for (const r of rows) await deps.blobs.delete(r.blob_key);
}

/** One sweep at `now`: every expired, deletable artifact goes. Returns how many. */
export async function destroyExpiredArtifacts(deps: Pick<Deps, 'db' | 'blobs'>, now: Date): Promise<number> {
  const at = now.toISOString();
  let total = 0;
  for (;;) {
    const rows = await deps.db
      .selectFrom('ci_job_artifacts as a')
      .select(['a.id', 'a.blob_key'])
      .where('a.expire_at', 'is not', null)
      .where('a.expire_at', '<=', at)
      .where('a.locked', '=', 0)
      .where('a.file_type', '!=', TRACE)
      .where(pipelineUnlockedSql())
      .orderBy('a.expire_at')
      .orderBy('a.id')
      .limit(BATCH)
      .execute();
    await destroyArtifacts(deps, rows);
    total += rows.length;
    if (rows.length < BATCH) return total;
  }
}

/** When the sweep should run next, or null when nothing is left to expire. */
async function nextRunAfter(db: Kysely<Database>, now: Date): Promise<Date | null> {
  const at = now.toISOString();
  const pending = (q: ReturnType<typeof candidates>) => q.select('a.expire_at').orderBy('a.expire_at').limit(1).executeTakeFirst();
  const candidates = () =>
    db.selectFrom('ci_job_artifacts as a').where('a.expire_at', 'is not', null).where('a.locked', '=', 0).where('a.file_type', '!=', TRACE);
  const future = await pending(candidates().where('a.expire_at', '>', at));
  const held = await pending(candidates().where('a.expire_at', '<=', at));
  const recheck = held ? new Date(now.getTime() + LOCK_RECHECK_MS) : null;
  const next = future?.expire_at ? new Date(future.expire_at) : null;
  if (next && recheck) return next < recheck ? next : recheck;
  return next ?? recheck;
}

/** Registers the expiry job on the queue (call once per forge). */
export function registerArtifactJobs(deps: Deps): void {
  queues.set(deps.blobs, deps.queue);
  deps.queue.register(EXPIRE_JOB, async (_payload, { now }) => {
    await destroyExpiredArtifacts(deps, now);
    const next = await nextRunAfter(deps.db, now);
    if (next) return { retryAt: next };
  });
}
