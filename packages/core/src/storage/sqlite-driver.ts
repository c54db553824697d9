/**
 * Forgelet's Kysely driver for better-sqlite3: one connection, one transaction at a time, and
 * group commit. SQLite's commit is the costly part of a small write transaction (the WAL
 * append of every page it touched: the row, each index, counters). The transactions that end
 * in one turn of the event loop (the requests read from the sockets in one pass) run one
 * after another inside one write transaction (BEGIN IMMEDIATE), each in a savepoint of its
 * own, and one COMMIT ends them all, at the end of that turn (setImmediate):
 *
 *  - each transaction is isolated from the others as before (they run one at a time), and a
 *    failing one rolls back to its savepoint alone;
 *  - each caller is answered only once the COMMIT holding its work has succeeded: a write is
 *    acknowledged when it is in the database, as before. If that COMMIT fails, every
 *    transaction of the group fails with its error (and the read cache is emptied);
 *  - a lone transaction waits for nothing but the end of its turn. A group closes after
 *    MAX_GROUP transactions or MAX_GROUP_MS, whichever first;
 *  - a query outside a transaction while a group is open: a read runs in it (it sees the
 *    finished transactions, as it would a moment later), anything else commits the group first.
 *
 * Transactions begin IMMEDIATE: they take the write lock first, so a transaction that reads
 * and then writes never fails because another process (several `forgelet serve` on one data
 * directory) committed in between. While another connection holds that lock, BEGIN is tried
 * again on timers until the busy timeout, instead of SQLite's busy wait, which would stop
 * this process's event loop: nothing else would run meanwhile, not even the end of a turn
 * that commits a group of another Forgelet on the same file in this process.
 */
import type SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, SelectQueryNode, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';

/** Transactions per group, and how long a group may stay open (ms). */
const MAX_GROUP = 32;
const MAX_GROUP_MS = 20;
const SAVEPOINT = 'forgelet_tx';

/** One holder at a time, served in arrival order. */
class FifoMutex {
  private locked = false;
  private readonly queue: (() => void)[] = [];

  lock(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  unlock(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.locked = false;
  }
}

/** A turn on the connection: what Kysely holds between acquiring and releasing it. */
class Lease implements DatabaseConnection {
  /** A Kysely transaction of this lease is running. */
  inTransaction = false;
  /** Its transaction ended in a group that is still open: the connection was handed on. */
  handedOver = false;

  constructor(private readonly driver: GroupCommitSqliteDriver) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return Promise.resolve(this.driver.execute<R>(this, compiled));
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiled.query)) throw new Error('Sqlite driver only supports streaming of select queries');
    if (!this.inTransaction) this.driver.commitGroup();
    for (const row of this.driver.sqlite.prepare(compiled.sql).iterate(compiled.parameters as unknown[])) yield { rows: [row as R] };
  }
}

interface Waiting {
  resolve(): void;
  reject(err: unknown): void;
}

export class GroupCommitSqliteDriver implements Driver {
  private readonly mutex = new FifoMutex();
  /** A group is open: BEGIN IMMEDIATE ran, and the transactions that ended in it wait for its COMMIT. */
  private open = false;
  private openedAt = 0;
  private ended: Waiting[] = [];
  private running: Lease | null = null;
  private commitQueued = false;
  private readonly commitAtTurnEnd = () => {
    this.commitQueued = false;
    // A transaction running now (awaiting something) ends the group itself, or queues this again.
    if (this.running === null) this.commitGroup();
  };

  constructor(
    readonly sqlite: SqliteDatabase.Database,
    /** How long BEGIN keeps trying while another connection holds the write lock (ms). */
    private readonly busyTimeoutMs: number,
    /** After a group's COMMIT failed and it was rolled back (what was read meanwhile is void). */
    private readonly onGroupLost: () => void = () => {},
  ) {}

  async init(): Promise<void> {}

  /**
   * Whether a read may run on the connection right now, outside Kysely's turn-taking: no
   * transaction is running (an open group of finished ones does not count) and no other
   * SQLite transaction is open (a raw BEGIN on a connection lease).
   */
  get idle(): boolean {
    return this.running === null && (this.open || !this.sqlite.inTransaction);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return new Lease(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (this.open && !this.sqlite.inTransaction) this.lose(new Error('SQLite rolled the write transaction back'));
    if (!this.open) {
      await this.beginImmediate();
      this.open = true;
      this.openedAt = performance.now();
    }
    this.run(`savepoint ${SAVEPOINT}`);
    lease.inTransaction = true;
    this.running = lease;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    this.run(`release savepoint ${SAVEPOINT}`);
    lease.inTransaction = false;
    this.running = null;
    if (this.ended.length + 1 < MAX_GROUP && performance.now() - this.openedAt < MAX_GROUP_MS) {
      // Hand the connection on with the group open: answered at its COMMIT, at the end of this turn.
      const done = new Promise<void>((resolve, reject) => this.ended.push({ resolve, reject }));
      lease.handedOver = true;
      this.queueCommit();
      this.mutex.unlock();
      return done;
    }
    // The group is full: it commits now, with this transaction's work, whose failure is this caller's.
    const failed = this.commitGroup();
    if (failed) throw failed.error;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    // A transaction answered by a failed group COMMIT: the group is gone already.
    if (lease.handedOver) return;
    lease.inTransaction = false;
    this.running = null;
    if (this.open && this.sqlite.inTransaction) {
      this.run(`rollback to savepoint ${SAVEPOINT}`);
      this.run(`release savepoint ${SAVEPOINT}`);
    }
    if (this.ended.length > 0) this.queueCommit();
    else this.commitGroup(); // nothing else in it
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.handedOver) return; // the next holder has the connection already
    this.mutex.unlock();
  }

  async destroy(): Promise<void> {
    this.commitGroup();
    this.sqlite.close();
  }

  /** Runs a statement for a lease: a write outside a transaction first commits the open group. */
  execute<R>(lease: Lease, compiled: CompiledQuery): QueryResult<R> {
    const stmt = this.sqlite.prepare(compiled.sql);
    const parameters = compiled.parameters as unknown[];
    if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
    if (!lease.inTransaction) this.commitGroup();
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return {
      numAffectedRows: changes !== undefined && changes !== null ? BigInt(changes) : undefined,
      insertId: lastInsertRowid !== undefined && lastInsertRowid !== null ? BigInt(lastInsertRowid) : undefined,
      rows: [],
    };
  }

  /**
   * Commits the open group, if any, and answers the transactions that ended in it; when that
   * fails they fail, and so does the caller whose transaction ended last (see commitTransaction).
   */
  commitGroup(): { error: unknown } | undefined {
    if (!this.open) return undefined;
    if (!this.sqlite.inTransaction) return this.lose(new Error('SQLite rolled the write transaction back'));
    try {
      this.run('commit');
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.prepare('rollback').run();
      return this.lose(err);
    }
    const ended = this.ended;
    this.ended = [];
    this.open = false;
    for (const w of ended) w.resolve();
    return undefined;
  }

  private async beginImmediate(): Promise<void> {
    const deadline = performance.now() + this.busyTimeoutMs;
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      this.sqlite.prepare('pragma busy_timeout = 0').get();
      try {
        this.run('begin immediate');
        return;
      } catch (err) {
        if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw err;
      } finally {
        this.sqlite.prepare(`pragma busy_timeout = ${this.busyTimeoutMs}`).get();
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  private queueCommit(): void {
    if (this.commitQueued) return;
    this.commitQueued = true;
    setImmediate(this.commitAtTurnEnd);
  }

  /** The group is gone (its COMMIT failed, or SQLite rolled it back): its transactions fail. */
  private lose(error: unknown): { error: unknown } {
    const ended = this.ended;
    this.ended = [];
    this.open = false;
    this.onGroupLost();
    for (const w of ended) w.reject(error);
    return { error };
  }

  private run(sql: string): void {
    this.sqlite.prepare(sql).run();
  }
}
