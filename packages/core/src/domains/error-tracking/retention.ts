/**
 * Retention (spec: errors are kept for 90 days). A queue job runs every day: events older
 * than 90 days go, errors not seen for 90 days go with everything they hold, hourly counts
 * older than a week and release sessions idle for 90 days go. Deletes run in slices so one
 * run never holds a long lock.
 */
import { sql, type Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { PURGE_JOB } from './ingest-writer.js';

export const RETENTION_DAYS = 90;
const DAY_MS = 24 * 3600_000;
const SLICE = 5000;

export interface PurgeResult {
  events: number;
  errors: number;
  frequency: number;
  sessions: number;
}

async function deleteInSlices(
  db: Kysely<Database>,
  table: 'error_tracking_error_events' | 'error_tracking_errors' | 'error_tracking_sessions' | 'error_tracking_session_aggregates',
  column: 'occurred_at' | 'last_seen_at' | 'updated_at',
  cutoff: string,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = await db.selectFrom(table).select('id').where(sql<boolean>`${sql.ref(column)} < ${cutoff}`).limit(SLICE).execute();
    if (!ids.length) return total;
    await db.deleteFrom(table).where('id', 'in', ids.map((r) => r.id)).execute();
    total += ids.length;
    if (ids.length < SLICE) return total;
  }
}

/** Deletes what is past retention at `now`. */
export async function purgeErrorTracking(db: Kysely<Database>, now: Date): Promise<PurgeResult> {
  const cutoff = new Date(now.getTime() - RETENTION_DAYS * DAY_MS).toISOString();
  const events = await deleteInSlices(db, 'error_tracking_error_events', 'occurred_at', cutoff);
  // Cascades to the error's remaining events, users and hourly counts (the issue stays).
  const errors = await deleteInSlices(db, 'error_tracking_errors', 'last_seen_at', cutoff);
  const hourCutoff = new Date(now.getTime() - 7 * DAY_MS).toISOString();
  const frequency = await db.deleteFrom('error_tracking_error_frequency').where('hour_start', '<', hourCutoff).executeTakeFirst();
  const sessions =
    (await deleteInSlices(db, 'error_tracking_sessions', 'updated_at', cutoff)) + (await deleteInSlices(db, 'error_tracking_session_aggregates', 'last_seen_at', cutoff));
  return { events, errors, frequency: Number(frequency.numDeletedRows ?? 0), sessions };
}

/** Registers the daily retention job with the worker. */
export function registerErrorTrackingJobs(deps: Deps): void {
  deps.queue.register(PURGE_JOB, async (_payload, { now }) => {
    await purgeErrorTracking(deps.db, now);
    return { retryAt: new Date(now.getTime() + DAY_MS) };
  });
}

