/**
 * A read cache for the lookups every request makes (token → user, project, namespace,
 * membership levels), on SQLite only. It holds query results, never decisions: expiry and
 * every policy check still run on each request against the injected clock. Cached rows are
 * frozen: code that changed a row it was given would throw rather than poison the cache.
 *
 * What may have changed is dropped:
 *  - a write through this process's connection drops the entries that read the table it
 *    writes (an insert or an update of one table; anything else, a delete among them since
 *    foreign keys cascade, drops everything): every statement that can write is marked when
 *    it is prepared (storage/dialect.ts), and running it drops first, whether it then
 *    commits or rolls back. An entry depends on every table its SQL names (`dependencies`);
 *  - a commit by another connection or process moves `PRAGMA data_version`, and a write on
 *    this connection that was not marked moves `total_changes()` past what the marked ones
 *    account for: both drop everything. They are read on the first lookup
 *    after `expireReadCache` and at least once per turn of the event loop. The server calls
 *    `expireReadCache` when a request starts; requests that start in the same turn were all
 *    read from their sockets in one pass, after the loop's poll returned, so the first of
 *    them forces the check and the others share it: each request sees every commit made
 *    before it arrived, for one `data_version` read per batch instead of per request.
 * Later lookups in the same turn cost a Map read.
 * Never used while a transaction runs on the connection (its reads go to the database;
 * storage/sqlite-driver.ts `idle`).
 *
 * PostgreSQL has its own, PgReadCache below: the same entries and the same checks, with the
 * database's transaction snapshot as the change counter.
 */
import type SqliteDatabase from 'better-sqlite3';
import type { Kysely } from 'kysely';

const MAX_ENTRIES = 4096;
/**
 * Rows kept at most, over all entries: most entries are one row, but a page's lookups (its
 * projects' namespaces, counters, READMEs) hold up to a hundred each, so entries alone would
 * not bound the memory (a crawler over many pages). At ~0.5 KB a row, about 8 MB.
 */
export const MAX_ROWS = 16_384;

/**
 * The tables a statement writes when it is an insert or an update of a single table (an
 * upsert included), or a `with` statement whose every data-modifying part is one (PostgreSQL's
 * data-modifying CTEs: every `insert into`/`update` it names counts, a superset); else null: a
 * delete (foreign keys cascade to other tables), DDL, a pragma, `insert or replace` (its
 * conflict deletes), anything not recognised may change any table. No table of Forgelet's has
 * a trigger or an `on update` action.
 */
export function tablesWritten(sql: string): readonly string[] | null {
  const m = /^\s*(?:insert\s+into|update)\s+"?([a-z_][a-z0-9_]*)"?[\s(]/i.exec(sql);
  if (m) return [m[1]!.toLowerCase()];
  if (!/^\s*with\b/i.test(sql) || /\b(?:delete|merge|truncate|replace)\b/i.test(sql)) return null;
  const tables = new Set<string>();
  for (const w of sql.matchAll(/\b(?:insert\s+into|(?<!\bdo\s+)update)\s+"?([a-z_][a-z0-9_]*)"?[\s(]/gi)) tables.add(w[1]!.toLowerCase());
  return tables.size ? [...tables] : null;
}

/**
 * What a read depends on: every word of its SQL that could name a table (quoted or not, in
 * any clause), a superset of the tables it reads. Keywords and column names come along;
 * they only make an entry dropped more often than needed.
 */
export function dependencies(sql: string): readonly string[] {
  const words = new Set<string>();
  for (const m of sql.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) words.add(m[0].toLowerCase());
  return [...words];
}

/** Entries and, per table word, the keys that depend on it (exported for its tests). */
export class CacheEntries {
  private readonly rows = new Map<string, { rows: readonly object[]; tables: readonly string[] }>();
  private readonly byTable = new Map<string, Set<string>>();
  private rowCount = 0;

  /** Rows kept now, over all entries. */
  get size(): number {
    return this.rowCount;
  }

  get(key: string): object[] | undefined {
    return this.rows.get(key)?.rows.slice();
  }

  set(key: string, rows: readonly object[], tables: readonly string[]): void {
    for (const row of rows) Object.freeze(row);
    this.forget(key);
    if (rows.length > MAX_ROWS / 16) return; // too large to keep: read again next time
    if (this.rows.size >= MAX_ENTRIES || this.rowCount + rows.length > MAX_ROWS) this.clear();
    this.rows.set(key, { rows: rows.slice(), tables });
    this.rowCount += rows.length;
    for (const table of tables) {
      let keys = this.byTable.get(table);
      if (!keys) this.byTable.set(table, (keys = new Set()));
      keys.add(key);
    }
  }

  /** Drops what depends on `table` (null: everything). */
  drop(table: string | null): void {
    if (table === null) return this.clear();
    for (const key of this.byTable.get(table) ?? []) this.forget(key);
  }

  clear(): void {
    this.rows.clear();
    this.byTable.clear();
    this.rowCount = 0;
  }

  /** How many (table, key) links are kept: what the bookkeeping costs. */
  get links(): number {
    let n = 0;
    for (const keys of this.byTable.values()) n += keys.size;
    return n;
  }

  /** Removes an entry and its key from every table's list (the lists hold live keys only). */
  private forget(key: string): void {
    const entry = this.rows.get(key);
    if (!entry) return;
    this.rows.delete(key);
    this.rowCount -= entry.rows.length;
    for (const table of entry.tables) {
      const keys = this.byTable.get(table);
      keys?.delete(key);
      if (keys?.size === 0) this.byTable.delete(table);
    }
  }
}

export class ReadCache {
  private readonly entries = new CacheEntries();
  private readonly totalChanges: SqliteDatabase.Statement;
  private readonly dataVersion: SqliteDatabase.Statement;
  private changes = -1;
  private version = -1;
  /** Moves whenever something may have been dropped: any write, another connection's commit, a clear. */
  private generation = 0;
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

  constructor(prepare: (source: string) => SqliteDatabase.Statement) {
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

  private validate(): void {
    if (this.verified) return;
    const changes = this.totalChanges.get() as number;
    const version = this.dataVersion.get() as number;
    this.verified = true;
    this.queueReset();
    if (changes !== this.changes || version !== this.version) {
      this.clear();
      this.changes = changes;
      this.version = version;
    }
  }

  /**
   * A statement that can write `table` (null: any table) is about to run on this connection;
   * `wrote` follows it. A change since the last one accounted for was not marked: everything goes.
   */
  noteWrite(table: string | null): void {
    if (this.changes >= 0 && this.totalChanges.get() !== this.changes) this.entries.clear();
    this.entries.drop(table);
    this.generation++;
  }

  /** The marked write has run (or failed): the connection's changes so far are accounted for. */
  wrote(): void {
    if (this.changes >= 0) this.changes = this.totalChanges.get() as number;
  }

  /**
   * The rows cached under `key` (frozen: a caller cannot change what the next one reads; a
   * new array each time), or undefined. A miss is to be followed, synchronously, by a read
   * of the database and `set` (the validation done here covers it).
   */
  get(key: string): object[] | undefined {
    this.validate();
    return this.entries.get(key);
  }

  /** Keeps rows just read, freezing them (the caller holds the same, frozen, rows); `tables`: what they depend on. */
  set(key: string, rows: readonly object[], tables: readonly string[]): void {
    this.entries.set(key, rows, tables);
  }

  /** Drops every entry (tests; after out-of-band changes such as a restore from a file). */
  clear(): void {
    this.entries.clear();
    this.generation++;
  }

  /** The generation after checking for other connections' commits (once per turn, as `get`). */
  ready(): number {
    this.validate();
    return this.generation;
  }

  /** The generation now, unchecked. */
  currentGeneration(): number {
    return this.generation;
  }
}

/** A transaction snapshot as `txid_current_snapshot()` prints it (`xmin:xmax:xip,…`): who had ended. */
interface Snapshot {
  text: string;
  /** The first transaction id not yet assigned. */
  xmax: bigint;
  /** Transactions below xmax still in progress. */
  running: Set<bigint>;
}

function parseSnapshot(text: string): Snapshot {
  const [, xmax, xip] = text.split(':');
  return { text, xmax: BigInt(xmax!), running: new Set(xip ? xip.split(',').map((x) => BigInt(x)) : []) };
}

/** Past this many ids between two checks, the transactions that ended are not listed: everything is dropped. */
const MAX_ENDED = 1000n;

/**
 * The transactions that ended between two snapshots: those in progress at `prev` that are
 * no longer, and those assigned since that are not running at `next`. Undefined when there
 * are too many to list, or the snapshots are not in order.
 */
function endedBetween(prev: Snapshot, next: Snapshot): bigint[] | undefined {
  if (next.xmax < prev.xmax || next.xmax - prev.xmax > MAX_ENDED) return undefined;
  const out: bigint[] = [];
  for (const x of prev.running) if (!next.running.has(x)) out.push(x);
  for (let x = prev.xmax; x < next.xmax; x++) if (!next.running.has(x)) out.push(x);
  return out;
}

/**
 * What the check reads, in one statement (so from one snapshot): the snapshot, and the
 * write-log rows (`cache_writes`, migration 026) of the transactions that ended since `prev`
 * (its text; null on the first check), as `txid:table,table` separated by spaces; null when the
 * log was not read (no `prev`, or a database without the table yet).
 */
export interface PgCheck {
  snapshot: string;
  writes: string | null;
}

/** Past this age (ms) the previous check is not compared with the write log (whose rows live longer): everything is dropped. */
export const MAX_CHECK_GAP_MS = 5 * 60_000;

/** The rows of the write log read by a check: txid → the tables it wrote (null: any). */
function parseWrites(text: string): Map<bigint, string[] | null> {
  const out = new Map<bigint, string[] | null>();
  for (const item of text.split(' ')) {
    const colon = item.indexOf(':');
    if (colon < 0) continue;
    const tables = item.slice(colon + 1);
    out.set(BigInt(item.slice(0, colon)), tables === '*' ? null : tables.split(','));
  }
  return out;
}

/**
 * The read cache on PostgreSQL, where several connections and processes share the database
 * and there is no `data_version`. The change counter is the transaction snapshot
 * (`txid_current_snapshot()`: the oldest transaction still running, the next one to be
 * assigned and those in progress between), which moves whenever a transaction that wrote
 * commits or aborts, in any process, and never for reads alone. It is read, one round trip,
 * before the first cached lookup after a request starts and at least once per turn of the
 * event loop; the requests that start in the same turn share it.
 *
 * This process's own writes drop what depends on the table they write when they are sent
 * and, for a transaction, again once its commit has answered (a read that ran meanwhile saw
 * the table before the commit): storage/dialect.ts says which, and reports each committed
 * transaction's id (`committed`). Every Forgelet process's committing transaction also
 * records its id and tables in the write log, in the statement that commits it; the check
 * reads the log rows of the transactions that ended since the previous check in the same
 * statement as the snapshot. So when the snapshot has moved, each transaction that ended is
 * either this process's own (already dropped), or logged (its tables are dropped), or neither
 * (an autocommitted write, a rollback, another program, a check too long ago): then
 * everything is dropped.
 *
 * A read that missed is kept only if nothing was dropped while it ran (a generation count), so
 * a slow read cannot put back what a concurrent write made stale.
 */
export class PgReadCache {
  private readonly entries = new CacheEntries();
  private snapshot: Snapshot | null = null;
  /** When the snapshot was read (ms, this process's monotonic clock). */
  private snapshotAt = 0;
  /** Transactions of this process that committed and whose writes were dropped already. */
  private readonly ownCommitted = new Set<bigint>();
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

  constructor(
    private readonly read: (prev: string | null) => Promise<PgCheck>,
    private readonly now: () => number = () => performance.now(),
  ) {}

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
      const prev = this.snapshot !== null && this.now() - this.snapshotAt <= MAX_CHECK_GAP_MS ? this.snapshot : null;
      const at = this.now();
      const { snapshot: text, writes } = await this.read(prev?.text ?? null);
      if (prev === null || text !== prev.text) {
        const next = parseSnapshot(text);
        const ended = prev ? endedBetween(prev, next) : undefined;
        if (!ended) this.drop(null);
        else this.dropEnded(ended, writes === null ? null : parseWrites(writes));
        // Accounted for now: ours that ended as of this snapshot.
        for (const x of this.ownCommitted) if (x < next.xmax && !next.running.has(x)) this.ownCommitted.delete(x);
        this.snapshot = next;
      }
      this.snapshotAt = at;
      this.checked = covers;
      this.fresh = true;
      setImmediate(this.endTurn).unref();
    } finally {
      this.checking = null;
    }
  }

  /** Drops what the transactions that `ended` wrote: this process's own are done already, logged ones by their tables, any other: everything. */
  private dropEnded(ended: readonly bigint[], logged: Map<bigint, string[] | null> | null): void {
    const tables = new Set<string>();
    for (const x of ended) {
      if (this.ownCommitted.has(x)) continue;
      const wrote = logged?.get(x);
      if (!wrote) return this.drop(null);
      for (const table of wrote) tables.add(table);
    }
    for (const table of tables) this.drop(table);
  }

  /**
   * The generation now, without waiting for a check: for a read inside a transaction, which
   * cannot wait for one (the check needs a connection of the pool its transaction holds one
   * of). Entries then are as of the request's last check.
   */
  currentGeneration(): number {
    return this.generation;
  }

  /** The rows cached under `key` (a new array each time; the rows are frozen), after `ready`. */
  get(key: string): object[] | undefined {
    return this.entries.get(key);
  }

  /** Keeps rows read since `ready` answered `generation`, unless something was dropped meanwhile; `tables`: what they depend on. */
  set(key: string, rows: readonly object[], tables: readonly string[], generation: number): void {
    for (const row of rows) Object.freeze(row);
    if (generation !== this.generation) return;
    this.entries.set(key, rows, tables);
  }

  /** A statement that can write `table` (null: any table) is about to run, or has committed, on one of this process's connections. */
  noteWrite(table: string | null): void {
    this.drop(table);
  }

  /** A transaction of this process committed (its id), after its tables were dropped again. */
  committed(txid: bigint): void {
    if (this.ownCommitted.size >= Number(MAX_ENDED)) this.ownCommitted.clear();
    this.ownCommitted.add(txid);
  }

  /** Drops every entry (tests; after out-of-band changes). */
  clear(): void {
    this.drop(null);
  }

  private drop(table: string | null): void {
    this.entries.drop(table);
    this.generation++;
  }
}

const caches = new WeakMap<Kysely<any>, ReadCache | PgReadCache>();
/** The caches by adapter, which a database shares with its transactions. */
const cachesByAdapter = new WeakMap<object, ReadCache | PgReadCache>();

export function attachReadCache(db: Kysely<any>, cache: ReadCache | PgReadCache): void {
  caches.set(db, cache);
  cachesByAdapter.set(db.getExecutor().adapter, cache);
}

/** The read cache of the database a transaction (or the database itself) belongs to. */
export function readCacheOfTransaction(trx: Kysely<any>): ReadCache | PgReadCache | undefined {
  return cachesByAdapter.get(trx.getExecutor().adapter);
}

/** The read cache of a database opened here, if any; undefined for a transaction. */
export function readCacheOf(db: Kysely<any>): ReadCache | PgReadCache | undefined {
  return caches.get(db);
}

/** Called when a request starts: the first cached lookup of its turn checks for other processes' commits. */
export function expireReadCache(db: Kysely<any>): void {
  caches.get(db)?.expire();
}

/**
 * The database's change generation: a number that moves whenever the database may have changed
 * (a write of this process to any table, a commit of another connection or process, a clear),
 * after the read cache's check for this turn (on PostgreSQL a round trip, shared by the turn's
 * requests). An answer computed from reads made after this call is still the database's
 * answer while `currentChangeGeneration` says the same number and the next call does too.
 * Undefined for a database without a read cache (opened elsewhere).
 */
export function changeGeneration(db: Kysely<any>): number | Promise<number> | undefined {
  return caches.get(db)?.ready();
}

/** The change generation now, without the check (see changeGeneration). */
export function currentChangeGeneration(db: Kysely<any>): number | undefined {
  return caches.get(db)?.currentGeneration();
}
