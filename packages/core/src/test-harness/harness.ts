/**
 * Per-forge state of the test harness: the snapshot store and one lock, so clock advances,
 * snapshots, restores, resets and seeds never overlap. While one runs, the background job
 * loop is paused (a job in flight finishes first), so the queue is stepped only by the
 * harness and no lease is held across a restore.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { ControllableClock } from '../kernel/clock.js';
import type { Deps } from '../access/context.js';
import type { Database } from '../storage/database.js';
import { SnapshotStore } from '../storage/snapshots.js';

interface HarnessState {
  snapshots: SnapshotStore;
  tail: Promise<unknown>;
}

const states = new WeakMap<object, HarnessState>();

export function harnessOf(deps: Deps): HarnessState {
  // Keyed by the queue: one per forge, shared by every context made from its deps.
  let state = states.get(deps.queue);
  if (!state) {
    state = { snapshots: new SnapshotStore({ db: deps.db, dialect: deps.dialect, blobs: deps.blobs, git: deps.git }), tail: Promise.resolve() };
    states.set(deps.queue, state);
  }
  return state;
}

/** Runs `work` alone (one at a time per forge) with the job loop paused. */
export async function exclusive<T>(deps: Deps, work: () => Promise<T>): Promise<T> {
  const state = harnessOf(deps);
  const previous = state.tail;
  let release!: () => void;
  state.tail = new Promise<void>((r) => (release = r));
  await previous.catch(() => {});
  const resume = await deps.queue.pause();
  try {
    return await work();
  } finally {
    resume();
    release();
  }
}

/** The forge's clock when it can be set (test mode and startForgelet always use one). */
export function controllableClock(deps: Pick<Deps, 'clock'>): ControllableClock {
  if (!(deps.clock instanceof ControllableClock)) throw new Error('this Forgelet runs on a clock that cannot be set; start it with a ControllableClock (test mode does)');
  return deps.clock;
}

/**
 * A view of an open transaction through which use cases that open their own transaction
 * join it instead: each nested `transaction().execute()` becomes a savepoint, so a failing
 * use case undoes its own writes and the outer transaction decides about the rest.
 */
export function joinTransaction(trx: Transaction<Database>): Kysely<Database> {
  let savepoints = 0;
  const nested = {
    setIsolationLevel: () => nested,
    setAccessMode: () => nested,
    async execute<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
      const name = sql.raw(`forgelet_sp_${++savepoints}`);
      await sql`savepoint ${name}`.execute(trx);
      try {
        const out = await fn(proxy);
        await sql`release savepoint ${name}`.execute(trx);
        return out;
      } catch (err) {
        await sql`rollback to savepoint ${name}`.execute(trx).catch(() => {});
        throw err;
      }
    },
  };
  const proxy = new Proxy(trx, {
    get(target, prop) {
      if (prop === 'transaction') return () => nested;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as unknown as Kysely<Database>;
  return proxy;
}
