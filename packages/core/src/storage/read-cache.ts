/**
 * A read cache for the lookups every request makes (token → user, project, namespace,
 * membership levels), on SQLite only. It holds query results, never decisions: expiry and
 * every policy check still run on each request against the injected clock. Cached rows are
 * frozen: code that changed a row it was given would throw rather than poison the cache.
 *
 * It is dropped whole whenever the database may have changed:
 *  - a write through this process's connection: every statement that can write is marked
 *    when it is prepared (storage/dialect.ts), and running it drops the cache first, whether
 *    it then commits or rolls back;
 *  - a commit by another connection or process moves `PRAGMA data_version`, and anything
 *    else on this connection moves `total_changes()`: both are read on the first lookup
 *    after `expireReadCache` and at least once per turn of the event loop. The server calls
 *    `expireReadCache` when a request starts; requests that start in the same turn were all
 *    read from their sockets in one pass, after the loop's poll returned, so the first of
 *    them forces the check and the others share it: each request sees every commit made
 *    before it arrived, for one `data_version` read per batch instead of per request.
 * Later lookups in the same turn cost a Map read.
 * Never used while a transaction is open on the connection (its reads go to the database).
 *
 * PostgreSQL has its own, PgReadCache below: the same entries and the same checks, with the
 * database's transaction snapshot as the change counter.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';

const MAX_ENTRIES = 4096;

export class ReadCache {
  private readonly entries = new Map<string, readonly object[]>();
  private readonly totalChanges: SqliteDatabase.Statement;
  private readonly dataVersion: SqliteDatabase.Statement;
  private changes = -1;
  private version = -1;
  /** `data_version` was read in this turn of the event loop (and after its first request started). */
  private verified = false;
  private resetQueued = false;
  /** A request started in this turn: later ones in the same turn share its check. */
  private expiredThisTurn = false;
  private readonly unverify = () => {
    this.verified = false;
    this.resetQueued = false;
    this.expiredThisTurn = false;
  };

  constructor(private readonly sqlite: SqliteDatabase.Database, prepare: (source: string) => SqliteDatabase.Statement) {
    // Own statements (not the shared statement cache): pluck() changes a statement's mode.
    this.totalChanges = prepare('select total_changes()').pluck();
    this.dataVersion = prepare('pragma data_version').pluck();
  }

  /** A request has started: the next lookup reads `data_version` again, once per turn. */
  expire(): void {
    if (this.expiredThisTurn) return;
    this.expiredThisTurn = true;
    this.verified = false;
    this.queueReset();
  }

  private queueReset(): void {
    if (this.resetQueued) return;
    this.resetQueued = true;
    setImmediate(this.unverify).unref();
  }

  /** Whether lookups may be served from the cache now (no transaction open). */
  get usable(): boolean {
    return !this.sqlite.inTransaction;
  }

  private validate(): void {
    if (this.verified) return;
    const changes = this.totalChanges.get() as number;
    const version = this.dataVersion.get() as number;
    this.verified = true;
    this.queueReset();
    if (changes !== this.changes || version !== this.version) {
      this.entries.clear();
      this.changes = changes;
      this.version = version;
    }
  }

  /** A statement that can write is about to run on this connection. */
  noteWrite(): void {
    this.entries.clear();
  }

  /**
   * The rows cached under `key` (frozen: a caller cannot change what the next one reads; a
   * new array each time), or undefined. A miss is to be followed, synchronously, by a read
   * of the database and `set` (the validation done here covers it).
   */
  get(key: string): object[] | undefined {
    this.validate();
    return this.entries.get(key)?.slice();
  }

  /** Keeps rows just read, freezing them (the caller holds the same, frozen, rows). */
  set(key: string, rows: readonly object[]): void {
    for (const row of rows) Object.freeze(row);
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, rows.slice());
  }

  /** Drops every entry (tests; after out-of-band changes such as a restore from a file). */
  clear(): void {
    this.entries.clear();
  }
}

/**
 * The read cache on PostgreSQL, where several connections and processes share the database
 * and there is no `data_version`. The change counter is the transaction snapshot
 * (`txid_current_snapshot()`: the oldest transaction still running, the next one to be
 * assigned and those in progress between), which moves whenever a transaction that wrote
 * commits or aborts, in any process, and never for reads alone. It is read, one round trip,
 * before the first cached lookup after a request starts and at least once per turn of the
 * event loop; the requests that start in the same turn share it. A statement that can write,
 * or a commit, through this process's connections drops the cache at once (storage/dialect.ts).
 *
 * A read that missed is kept only if nothing was dropped while it ran (a generation count), so
 * a slow read cannot put back what a concurrent write made stale.
 */
export class PgReadCache {
  private readonly entries = new Map<string, readonly object[]>();
  private snapshot: string | null = null;
  private generation = 0;
  /** Requests started (`expire`) so far, and how many of them the last check covers. */
  private wanted = 0;
  private checked = -1;
  /** The last check is of this turn of the event loop. */
  private fresh = false;
  private checking: Promise<void> | null = null;
  private expiredThisTurn = false;
  private readonly endTurn = () => {
    this.fresh = false;
  };
  private readonly endExpiryTurn = () => {
    this.expiredThisTurn = false;
  };

  constructor(private readonly currentSnapshot: () => Promise<string>) {}

  /** A request has started: its first cached lookup reads the snapshot again (once per turn). */
  expire(): void {
    if (this.expiredThisTurn) return;
    this.expiredThisTurn = true;
    this.wanted++;
    setImmediate(this.endExpiryTurn).unref();
  }

  /**
   * Waits until the entries may be read (checked against the snapshot for every request
   * started so far, in this turn), and answers the generation to pass to `set`.
   */
  async ready(): Promise<number> {
    while (!(this.fresh && this.checked >= this.wanted)) await (this.checking ??= this.check());
    return this.generation;
  }

  private async check(): Promise<void> {
    const covers = this.wanted;
    try {
      const snapshot = await this.currentSnapshot();
      if (snapshot !== this.snapshot) this.drop();
      this.snapshot = snapshot;
      this.checked = covers;
      this.fresh = true;
      setImmediate(this.endTurn).unref();
    } finally {
      this.checking = null;
    }
  }

  /** The rows cached under `key` (a new array each time; the rows are frozen), after `ready`. */
  get(key: string): object[] | undefined {
    return this.entries.get(key)?.slice();
  }

  /** Keeps rows read since `ready` answered `generation`, unless the cache was dropped meanwhile. */
  set(key: string, rows: readonly object[], generation: number): void {
    for (const row of rows) Object.freeze(row);
    if (generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, rows.slice());
  }

  /** A statement that can write, or a commit, is about to run on one of this process's connections. */
  noteWrite(): void {
    this.drop();
  }

  /** Drops every entry (tests; after out-of-band changes). */
  clear(): void {
    this.drop();
  }

  private drop(): void {
    this.entries.clear();
    this.generation++;
  }
}

const caches = new WeakMap<Kysely<any>, ReadCache | PgReadCache>();

export function attachReadCache(db: Kysely<any>, cache: ReadCache | PgReadCache): void {
  caches.set(db, cache);
}

/** The read cache of a database opened here, if any; undefined for a transaction. */
export function readCacheOf(db: Kysely<any>): ReadCache | PgReadCache | undefined {
  return caches.get(db);
}

/** Called when a request starts: the first cached lookup of its turn checks for other processes' commits. */
export function expireReadCache(db: Kysely<any>): void {
  caches.get(db)?.expire();
}
