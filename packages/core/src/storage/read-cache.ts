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
 * Never used while a transaction is open on the connection (its reads go to the database),
 * nor on PostgreSQL (several connections, no cheap change counter: every lookup queries).
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

const caches = new WeakMap<Kysely<any>, ReadCache>();

export function attachReadCache(db: Kysely<any>, cache: ReadCache): void {
  caches.set(db, cache);
}

/** The read cache of a database opened here (SQLite), if any; undefined for a transaction. */
export function readCacheOf(db: Kysely<any>): ReadCache | undefined {
  return caches.get(db);
}

/** Called when a request starts: the first cached lookup of its turn checks for other processes' commits. */
export function expireReadCache(db: Kysely<any>): void {
  caches.get(db)?.expire();
}
