/**
 * Group commit for the Sentry collector. A request is answered only once its events are in
 * the database: the collector hands them over and waits. The requests that hand over events
 * in one turn of the event loop (read from their sockets in one pass) are written together,
 * in one transaction, at the end of that turn; while a batch is being written the next one
 * gathers, so batches grow with the load and every caller waits for one commit at most
 * after its own turn.
 *
 * A batch that fails is written again request by request (each in its own transaction), so
 * one request's failure is answered to that request alone: events of a project deleted
 * since they were accepted get 404 Project Not Found, any other failure is the request's
 * error (500); the other requests of the batch are written and answered 200.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../kernel/clock.js';
import { NotFoundError, RateLimitedError } from '../../kernel/errors.js';
import type { Database } from '../../storage/database.js';
import type { Queue } from '../../storage/queue.js';
import { schedulePurgeJob, writeBatch, type PendingEvent, type PendingSession } from './ingest-writer.js';

export interface BufferOptions {
  /** Events (and session updates) written per transaction at most. */
  maxBatch: number;
  /** While writes fail, over this many waiting items the collector answers 429. */
  hardLimit: number;
}

export const DEFAULT_BUFFER_OPTIONS: BufferOptions = { maxBatch: 1000, hardLimit: 50_000 };

export interface BufferDeps {
  db: Kysely<Database>;
  clock: Clock;
  queue: Queue;
}

/** One request's events, and its caller waiting for their commit. */
interface Waiting {
  events: PendingEvent[];
  sessions: PendingSession[];
  resolve(): void;
  reject(err: unknown): void;
}

const sizeOf = (w: Waiting) => w.events.length + w.sessions.length;

export class IngestBuffer {
  private waiting: Waiting[] = [];
  private waitingItems = 0;
  private running: Promise<void> | null = null;
  private turnQueued = false;
  private failures = 0;
  private purgeScheduled = false;
  /** Totals since start (benchmarks, diagnostics); `dropped`: items of projects deleted before they were written. */
  readonly stats = { written: 0, batches: 0, failures: 0, dropped: 0 };

  private options: BufferOptions;

  constructor(
    private readonly deps: BufferDeps,
    options: Partial<BufferOptions> = {},
  ) {
    this.options = { ...DEFAULT_BUFFER_OPTIONS, ...options };
  }

  /** Changes the batch size and the limit (tests, benchmarks, embedders that want other trade-offs). */
  configure(options: Partial<BufferOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** Items handed over and not yet committed. */
  get pending(): number {
    return this.waitingItems;
  }

  /** Writes the items with those of the other requests of this turn; resolves once they are committed, rejects with this request's error. */
  add(events: PendingEvent[], sessions: PendingSession[]): Promise<void> {
    if (!events.length && !sessions.length) return Promise.resolve();
    if (this.failures > 0 && this.waitingItems >= this.options.hardLimit) return Promise.reject(new RateLimitedError(Math.min(60, 2 ** this.failures)));
    return new Promise<void>((resolve, reject) => {
      const w: Waiting = { events, sessions, resolve, reject };
      this.waiting.push(w);
      this.waitingItems += sizeOf(w);
      if (!this.running && !this.turnQueued) {
        this.turnQueued = true;
        setImmediate(this.startAtTurnEnd);
      }
    });
  }

  /** Resolves once everything handed over before the call is written (or answered with its error). */
  async flush(): Promise<void> {
    while (this.running || this.waiting.length) await (this.running ?? this.cycle());
  }

  /** Writes what is waiting (forge.close). */
  close(): Promise<void> {
    return this.flush();
  }

  private readonly startAtTurnEnd = () => {
    this.turnQueued = false;
    if (!this.running) void this.cycle();
  };

  /** Writes batches until nothing waits; one cycle at a time. Never rejects: errors go to the callers. */
  private cycle(): Promise<void> {
    if (this.running) return this.running;
    const run = (async () => {
      try {
        while (this.waiting.length) {
          const batch: Waiting[] = [];
          let items = 0;
          while (this.waiting.length && (batch.length === 0 || items + sizeOf(this.waiting[0]!) <= this.options.maxBatch)) {
            const w = this.waiting.shift()!;
            batch.push(w);
            items += sizeOf(w);
          }
          await this.writeWaiting(batch);
          this.waitingItems -= items;
        }
      } finally {
        this.running = null;
      }
    })();
    this.running = run;
    return run;
  }

  private async writeWaiting(batch: Waiting[]): Promise<void> {
    try {
      await this.write(batch.flatMap((w) => w.events), batch.flatMap((w) => w.sessions));
      this.failures = 0;
      for (const w of batch) w.resolve();
      return;
    } catch (err) {
      if (batch.length === 1) {
        this.failures++;
        this.stats.failures++;
        batch[0]!.reject(await this.reasonOf(batch[0]!, err));
        return;
      }
    }
    // Request by request, concurrently (on SQLite each in a savepoint of one group commit).
    const outcomes = await Promise.allSettled(batch.map((w) => this.write(w.events, w.sessions)));
    let written = 0;
    for (const [i, outcome] of outcomes.entries()) {
      const w = batch[i]!;
      if (outcome.status === 'fulfilled') {
        written++;
        w.resolve();
      } else {
        this.stats.failures++;
        w.reject(await this.reasonOf(w, outcome.reason));
      }
    }
    this.failures = written ? 0 : this.failures + 1;
  }

  private async write(events: PendingEvent[], sessions: PendingSession[]): Promise<void> {
    const now = this.deps.clock.now();
    const schedulePurge = !this.purgeScheduled;
    await writeBatch(this.deps.db, events, sessions, now.toISOString(), schedulePurge ? (trx) => schedulePurgeJob(this.deps.queue, trx, now) : undefined);
    if (schedulePurge) this.purgeScheduled = true;
    this.stats.written += events.length;
    this.stats.batches++;
  }

  /** A request's failure as its caller sees it: 404 Project Not Found when its project is gone, else the error itself. */
  private async reasonOf(w: Waiting, err: unknown): Promise<unknown> {
    const projectId = w.events[0]?.projectId ?? w.sessions[0]?.projectId;
    try {
      if (projectId !== undefined && !(await this.deps.db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst())) {
        this.stats.dropped += sizeOf(w);
        return new NotFoundError('Project');
      }
    } catch {
      // The database is unreachable: the write's own error says more.
    }
    return err;
  }
}

const buffers = new WeakMap<Kysely<Database>, IngestBuffer>();

/** The group-commit buffer of a database (one per forge). */
export function ingestBufferOf(deps: BufferDeps): IngestBuffer {
  let buffer = buffers.get(deps.db);
  if (!buffer) {
    buffer = new IngestBuffer(deps);
    buffers.set(deps.db, buffer);
  }
  return buffer;
}

/** Writes what is waiting and forgets the buffer (forge.close). */
export async function closeIngestBuffer(deps: Pick<BufferDeps, 'db'>): Promise<void> {
  const buffer = buffers.get(deps.db);
  if (!buffer) return;
  buffers.delete(deps.db);
  await buffer.close();
}
