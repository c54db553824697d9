/**
 * Controllable time: read, set, freeze and advance the forge's clock. Advancing steps the
 * clock to each queued job's due time in order and runs what came due there (jobs may
 * queue follow-ups inside the window; those run in order too), then to the target, all
 * before it returns: schedules fire, cadences roll, expiries and retries happen as if the
 * time had passed.
 */
import { sql } from 'kysely';
import type { Deps } from '../access/context.js';
import { controllableClock, exclusive } from './harness.js';

export interface ClockEntity {
  now: string;
  frozen: boolean;
}

export interface AdvanceEntity extends ClockEntity {
  /** Queue jobs run while advancing. */
  jobs_run: number;
}

/** A bound on steps of one advance (each step runs every job due at one instant). */
const MAX_STEPS = 1_000_000;

export function clockState(deps: Pick<Deps, 'clock'>): ClockEntity {
  const clock = controllableClock(deps);
  return { now: clock.now().toISOString(), frozen: clock.frozen };
}

/** Sets the time and/or freezes or unfreezes it. Jobs that came due run on the worker's next poll (or the next advance). */
export function setClock(deps: Pick<Deps, 'clock'>, change: { now?: Date; frozen?: boolean }): ClockEntity {
  const clock = controllableClock(deps);
  if (change.now) clock.set(change.now, change.frozen ?? clock.frozen);
  else if (change.frozen === true) clock.freeze();
  else if (change.frozen === false) clock.unfreeze();
  return clockState(deps);
}

/**
 * The next instant a pending job becomes claimable (its run_at, or just after the lease
 * another worker holds on it expires), if not after `target`.
 */
async function nextDue(deps: Deps, target: Date): Promise<Date | null> {
  const to = target.toISOString();
  const row = await deps.db
    .selectFrom('queue_jobs')
    .select(['run_at', 'lease_expires_at'])
    .where('status', '=', 'pending')
    .where('run_at', '<=', to)
    .orderBy(sql`case when lease_expires_at is not null and lease_expires_at >= run_at then lease_expires_at else run_at end`)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!row) return null;
  const at = row.lease_expires_at && row.lease_expires_at >= row.run_at ? new Date(new Date(row.lease_expires_at).getTime() + 1) : new Date(row.run_at);
  return at.getTime() <= target.getTime() ? at : null;
}

/** Moves the clock `ms` forward, running every job that comes due on the way, in time order. */
export async function advanceClock(deps: Deps, ms: number): Promise<AdvanceEntity> {
  const clock = controllableClock(deps);
  return exclusive(deps, async () => {
    const frozen = clock.frozen;
    let cursor = clock.now();
    const target = new Date(cursor.getTime() + ms);
    let ran = 0;
    try {
      // Frozen at each step, so what the jobs write carries the step's time.
      clock.set(cursor, true);
      for (let step = 0; step < MAX_STEPS; step++) {
        ran += await deps.queue.runDue(cursor);
        const next = await nextDue(deps, target);
        if (!next) break;
        // A job that did not run at its time (a handler asking to retry at once) moves on by 1 ms.
        cursor = next.getTime() > cursor.getTime() ? next : new Date(cursor.getTime() + 1);
        if (cursor.getTime() > target.getTime()) break;
        clock.set(cursor, true);
      }
    } finally {
      clock.set(target, frozen);
    }
    return { ...clockState(deps), jobs_run: ran };
  });
}
