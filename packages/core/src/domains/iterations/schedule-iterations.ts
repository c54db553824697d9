/**
 * Automatic scheduling of a cadence's iterations through the durable queue. One job per
 * cadence (`iterations.schedule:<id>`): it creates the missing iterations, then asks the
 * queue to run it again when the next upcoming iteration starts (00:00 UTC that day), the
 * moment the current one closes and one more upcoming iteration is needed.
 */
import type { Kysely } from 'kysely';
import { isoDate } from '../../kernel/clock.js';
import type { Deps } from '../../access/context.js';
import { nextIid } from '../../kernel/ids.js';
import type { Database } from '../../storage/database.js';
import type { Queue } from '../../storage/queue.js';
import type { IterationCadenceRow } from './iteration.table.js';
import {
  addDays,
  insertIteration,
  lockCadence,
  pullScheduleForward,
  renumberSequences,
  SCHEDULE_JOB,
  scheduleJobKey,
  selectCadenceIterations,
} from './iteration.queries.js';

/** A bound on one run's inserts (a clock far past the last run backfills at most this many). */
const MAX_NEW_ITERATIONS = 1000;

export function canBeAutomated(c: Pick<IterationCadenceRow, 'automatic' | 'active' | 'duration_in_weeks' | 'iterations_in_advance'>): boolean {
  return c.automatic === 1 && c.active === 1 && (c.duration_in_weeks ?? 0) > 0 && (c.iterations_in_advance ?? 0) > 0;
}

/**
 * Creates the cadence's missing iterations as of `now`: consecutive, `duration_in_weeks`
 * long (start + 7·weeks − 1 days), the first on the cadence's start date, with null title
 * and description, past ones backfilled, until `iterations_in_advance` iterations start
 * after today. Runs under the cadence's lock, so re-runs and concurrent runs add nothing
 * twice. Returns the start date of the next upcoming iteration (the next run), or null
 * when the cadence is gone or not automated.
 */
export async function scheduleCadenceIterations(db: Kysely<Database>, cadenceId: number, now: Date): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    const cadence = await lockCadence(trx, cadenceId);
    if (!cadence || !canBeAutomated(cadence)) return null;
    const today = isoDate(now);
    const stamp = now.toISOString();
    const days = cadence.duration_in_weeks! * 7;
    const existing = await selectCadenceIterations(trx, cadence.id);
    const last = existing.reduce<string | null>((max, r) => (max === null || r.due_date > max ? r.due_date : max), null);
    let upcoming = existing.filter((r) => r.start_date > today).length;
    let start = last === null || addDays(last, 1) < cadence.start_date ? cadence.start_date : addDays(last, 1);
    let added = 0;
    while (upcoming < cadence.iterations_in_advance! && added < MAX_NEW_ITERATIONS) {
      const due = addDays(start, days - 1);
      await insertIteration(trx, {
        group_id: cadence.group_id,
        iteration_cadence_id: cadence.id,
        iid: await nextIid(trx, 'iterations', `group:${cadence.group_id}`),
        sequence: existing.length + added + 1,
        title: null,
        description: null,
        start_date: start,
        due_date: due,
        created_at: stamp,
        updated_at: stamp,
      });
      added++;
      if (start > today) upcoming++;
      start = addDays(due, 1);
    }
    if (added) await renumberSequences(trx, cadence.id);
    const next = await trx
      .selectFrom('iterations')
      .select('start_date')
      .where('iteration_cadence_id', '=', cadence.id)
      .where('start_date', '>', today)
      .orderBy('start_date')
      .limit(1)
      .executeTakeFirst();
    return next?.start_date ?? null;
  });
}

/**
 * Asks for a scheduling run now (after a cadence is created or its automation changes),
 * in the transaction of that write: an already pending run, possibly waiting for a later
 * date, is made due instead of adding a second one.
 */
export async function requestSchedule(trx: Kysely<Database>, queue: Queue, cadenceId: number, now: Date): Promise<void> {
  await pullScheduleForward(trx, cadenceId, now.toISOString());
  await queue.enqueue(trx, SCHEDULE_JOB, { cadence_id: cadenceId }, { runAt: now, uniqueKey: scheduleJobKey(cadenceId) });
}

/** Registers the `iterations.schedule` handler on the queue (call once per forge). */
export function registerIterationJobs(deps: Deps): void {
  deps.queue.register(SCHEDULE_JOB, async (payload: { cadence_id: number }, { now }) => {
    const next = await scheduleCadenceIterations(deps.db, payload.cadence_id, now);
    // The same job runs again at the next start: it stays the cadence's one pending job.
    if (next) return { retryAt: new Date(`${next}T00:00:00.000Z`) };
  });
}
