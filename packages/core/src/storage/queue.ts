/**
 * The durable job queue. Jobs are claimed under a lease (FOR UPDATE SKIP LOCKED on
 * PostgreSQL, one atomic UPDATE … RETURNING on SQLite), so several processes on one database never
 * run a job twice and an expired lease is claimed again after a crash. The lease is short (30 s)
 * and renewed while the job runs, so that the work of a process that died is taken over within
 * seconds (a schedule firing every minute misses no run) while a long job keeps its lease.
 * Tests and the test clock drive it step by step with `runDue()`.
 */
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database } from './database.js';
import type { DialectName } from './dialect.js';
import type { QueueJobRow } from './queue.table.js';

export interface JobContext {
  job: QueueJobRow;
  now: Date;
}

/** A handler may ask to run again later (a poll, a retry it schedules itself). */
export type JobOutcome = void | { retryAt: Date };
export type JobHandler = (payload: any, ctx: JobContext) => Promise<JobOutcome>;

export interface EnqueueOptions {
  runAt?: Date;
  /** At most one pending job per key; a second enqueue is ignored. */
  uniqueKey?: string;
  maxAttempts?: number;
}

/** How long a claim holds without renewal: a job of a process that died is claimed again after this. */
export const LEASE_MS = 30_000;

export class Queue {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private intervalMs = 1000;
  readonly owner = `w-${process.pid}-${randomBytes(4).toString('hex')}`;

  /** How often (real time) a running job's lease is renewed: a third of the lease unless a test says otherwise. */
  private readonly renewEveryMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
    private readonly clock: Clock,
    options: { renewEveryMs?: number } = {},
  ) {
    this.renewEveryMs = options.renewEveryMs ?? LEASE_MS / 3;
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Enqueues a job; pass the transaction the triggering write runs in. */
  async enqueue(db: Kysely<Database>, kind: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | null> {
    const now = this.clock.now().toISOString();
    const row = await db
      .insertInto('queue_jobs')
      .values({
        kind,
        payload: JSON.stringify(payload ?? null),
        unique_key: options.uniqueKey ?? null,
        status: 'pending',
        run_at: (options.runAt ?? this.clock.now()).toISOString(),
        attempts: 0,
        max_attempts: options.maxAttempts ?? 5,
        created_at: now,
      })
      // The conflict target must repeat the partial index's predicate literally (SQLite).
      .onConflict((oc) => oc.column('unique_key').where(sql<boolean>`status = 'pending'`).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id ?? null;
  }

  /** Claims the next due job under a lease, or null. */
  async claim(now = this.clock.now()): Promise<QueueJobRow | null> {
    const at = now.toISOString();
    const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
    if (this.dialect === 'sqlite') {
      // One statement: a read-then-write transaction fails with SQLITE_BUSY when another
      // connection (process) claims at the same time, and would not be retried.
      const claimed = await this.db
        .updateTable('queue_jobs')
        .set((eb) => ({ lease_owner: this.owner, lease_expires_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', (eb) =>
          eb
            .selectFrom('queue_jobs')
            .select('id')
            .where('status', '=', 'pending')
            .where('run_at', '<=', at)
            .where((w) => w.or([w('lease_expires_at', 'is', null), w('lease_expires_at', '<', at)]))
            .orderBy('run_at')
            .orderBy('id')
            .limit(1),
        )
        .returningAll()
        .executeTakeFirst();
      return claimed ?? null;
    }
    return this.db.transaction().execute(async (trx) => {
      let q = trx
        .selectFrom('queue_jobs')
        .selectAll()
        .where('status', '=', 'pending')
        .where('run_at', '<=', at)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', at)]))
        .orderBy('run_at')
        .orderBy('id')
        .limit(1);
      q = q.forUpdate().skipLocked();
      const job = await q.executeTakeFirst();
      if (!job) return null;
      await trx
        .updateTable('queue_jobs')
        .set({ lease_owner: this.owner, lease_expires_at: leaseUntil, attempts: job.attempts + 1 })
        .where('id', '=', job.id)
        .execute();
      return { ...job, lease_owner: this.owner, lease_expires_at: leaseUntil, attempts: job.attempts + 1 };
    });
  }

  /** Moves the lease of a job this worker holds forward (a running job); false when it holds it no more. */
  async renewLease(jobId: number): Promise<boolean> {
    const r = await this.db
      .updateTable('queue_jobs')
      .set({ lease_expires_at: new Date(this.clock.now().getTime() + LEASE_MS).toISOString() })
      .where('id', '=', jobId)
      .where('lease_owner', '=', this.owner)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Runs one claimed job, renewing its lease meanwhile, and records its outcome. */
  private async execute(job: QueueJobRow, now: Date): Promise<void> {
    const renewal = setInterval(() => void this.renewLease(job.id).catch(() => {}), this.renewEveryMs);
    renewal.unref();
    try {
      await this.executeHeld(job, now);
    } finally {
      clearInterval(renewal);
    }
  }

  private async executeHeld(job: QueueJobRow, now: Date): Promise<void> {
    const handler = this.handlers.get(job.kind);
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const outcome = await handler(JSON.parse(job.payload), { job, now });
      if (outcome && 'retryAt' in outcome) {
        await this.db
          .updateTable('queue_jobs')
          .set({ run_at: outcome.retryAt.toISOString(), lease_owner: null, lease_expires_at: null, attempts: 0 })
          .where('id', '=', job.id)
          .execute();
        return;
      }
      await this.db
        .updateTable('queue_jobs')
        .set({ status: 'done', finished_at: this.clock.now().toISOString(), lease_owner: null, lease_expires_at: null })
        .where('id', '=', job.id)
        .execute();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const exhausted = job.attempts >= job.max_attempts;
      const backoffMs = Math.min(60 * 60_000, 10_000 * 2 ** (job.attempts - 1));
      await this.db
        .updateTable('queue_jobs')
        .set({
          status: exhausted ? 'failed' : 'pending',
          run_at: exhausted ? job.run_at : new Date(now.getTime() + backoffMs).toISOString(),
          finished_at: exhausted ? this.clock.now().toISOString() : null,
          last_error: message.slice(0, 2000),
          lease_owner: null,
          lease_expires_at: null,
        })
        .where('id', '=', job.id)
        .execute();
    }
  }

  /**
   * Runs every job due at `now` (default: the clock), including jobs that become due while
   * running, up to `limit`. Returns how many ran.
   */
  async runDue(now?: Date, limit = 10_000): Promise<number> {
    let ran = 0;
    while (ran < limit) {
      const at = now ?? this.clock.now();
      const job = await this.claim(at);
      if (!job) break;
      await this.execute(job, at);
      ran++;
    }
    return ran;
  }

  /** Polls for due work every `intervalMs` until stop(). */
  start(intervalMs = 1000): void {
    if (this.timer) return;
    this.intervalMs = intervalMs;
    const tick = () => {
      if (this.running) return;
      this.running = this.runDue().finally(() => {
        this.running = null;
      });
      this.running.catch(() => {});
    };
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /**
   * Stops the polling loop and waits for the run in flight (the test clock and snapshot
   * restores step the queue themselves); the returned function restarts it as it was.
   */
  async pause(): Promise<() => void> {
    const wasStarted = this.timer !== null;
    const interval = this.intervalMs;
    await this.stop();
    return () => {
      if (wasStarted) this.start(interval);
    };
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running.catch(() => {});
  }
}
