/**
 * The only place that knows SQLite from PostgreSQL: connection, type parsing, and the few
 * facts that differ (unique violations, row locking). Values read back are the same on
 * both: timestamps are ISO text, booleans 0/1 integers, counts numbers.
 */
import { createRequire } from 'node:module';
import SqliteDatabase from 'better-sqlite3';
import type PgModule from 'pg';
import { Kysely, PostgresDialect, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Database } from './database.js';
import { attachReadCache, PgReadCache, ReadCache, tablesWritten, type PgCheck } from './read-cache.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
import { GroupCommitSqliteDriver } from './sqlite-driver.js';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: DialectName;
  /** For SQLite file databases: the file path (snapshots copy it). */
  file: string | null;
  destroy(): Promise<void>;
}

export function dialectOf(url: string): DialectName {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite';
}

export function openDatabase(url: string, options: { poolSize?: number } = {}): DatabaseHandle {
  if (dialectOf(url) === 'postgres') {
    // Loaded only for PostgreSQL: importing pg costs ~30 ms of startup on SQLite.
    const pg = createRequire(import.meta.url)('pg') as typeof PgModule;
    const types = {
      getTypeParser(oid: number, format?: 'text' | 'binary') {
        // int8 (counts, sums) and numeric come back as numbers, as on SQLite
        if (oid === 20 || oid === 1700) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format as 'text');
      },
    };
    // Plan as GitLab's bundled PostgreSQL does (Omnibus sets random_page_cost 2.0, from
    // GitLab.com): with the default 4.0 a deep page of a large group sorts every project
    // instead of walking the (namespace, created_at) index, 20 ms instead of 5. Forgelet's own
    // sessions only, set in the connection's startup packet (a `set` sent on connect raced the
    // first query for the new connection: pg 8.23 deprecates queueing a query behind another).
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types: types as never, options: '-c random_page_cost=2' });
    // An idle connection that fails (server restart, terminated backend) is dropped by the
    // pool; without a listener its 'error' event would crash the process.
    pool.on('error', () => {});
    const log = new WriteLog(pool);
    const readCache = new PgReadCache((prev) => log.check(prev));
    pool.on('connect', (client) => noteWrites(client, readCache, log, pg.Query));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pgPools.set(db, pool);
    attachReadCache(db, readCache);
    return {
      db,
      dialect: 'postgres',
      file: null,
      destroy: () => {
        log.stop();
        return db.destroy();
      },
    };
  }
  const file = url.replace(/^sqlite:(\/\/)?/i, '') || ':memory:';
  const sqlite = new SqliteDatabase(file);
  // First: another process may hold the lock while this one switches to WAL.
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const walMode = enterWal(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const readCache = new ReadCache(sqlite.prepare.bind(sqlite));
  const writes: WriteHooks = { beforeWrite: () => {} };
  cacheStatements(sqlite, readCache, writes);
  const driver = new GroupCommitSqliteDriver(sqlite, SQLITE_BUSY_TIMEOUT_MS, () => readCache.clear());
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  sqliteHandles.set(db, { sqlite, driver });
  sqliteByAdapter.set(db.getExecutor().adapter, sqlite);
  attachReadCache(db, readCache);
  const checkpointer = walMode && !sqlite.memory ? startCheckpointer(sqlite, file, SQLITE_BUSY_TIMEOUT_MS) : null;
  if (checkpointer) writes.beforeWrite = () => checkpointer.wake();
  return {
    db,
    dialect: 'sqlite',
    file: file === ':memory:' ? null : file,
    destroy: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * Puts a SQLite connection in WAL mode. On a new, empty file, two processes doing this at the
 * same moment race for the lock that writes the header, and the loser's pragma fails at once
 * with SQLITE_BUSY, without its busy handler: tried again until the busy timeout (a blocking
 * wait of a few milliseconds, as the busy handler's own, at open only).
 */
function enterWal(sqlite: SqliteDatabase.Database): boolean {
  const deadline = performance.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    try {
      return sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || performance.now() >= deadline) throw err;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pause);
  }
}

/** Statements of the write log itself: not writes the read cache needs to hear of (nothing cached reads `cache_writes`). */
const LOG_STATEMENT = '/* cache_writes */';
/** The database's clock in milliseconds, for the write log's `at`. */
const DB_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Log rows older than this are deleted (every CLEANUP_EVERY_MS, by each process); a check compares only with one at most MAX_CHECK_GAP_MS old. */
const LOG_KEEP_MS = 10 * 60_000;
const CLEANUP_EVERY_MS = 60_000;

/**
 * The PostgreSQL write log (`cache_writes`, migration 026; see PgReadCache): what a check
 * reads, what a commit records, and the cleanup. Until a check has found the table (a
 * database not migrated yet), checks read the snapshot alone and commits record nothing:
 * the statement that records is part of the commit, and a failing one would abort it.
 */
class WriteLog {
  /** The table exists (a check read it); undefined: not known yet. */
  private ready: boolean | undefined;
  private retryAt = 0;
  private probing = false;
  private readonly cleanup: NodeJS.Timeout;

  constructor(private readonly pool: PgModule.Pool) {
    this.probe();
    this.cleanup = setInterval(() => {
      if (this.ready) void this.pool.query(`${LOG_STATEMENT} delete from cache_writes where at < ${DB_NOW_MS} - ${LOG_KEEP_MS}`).catch(() => {});
    }, CLEANUP_EVERY_MS).unref();
  }

  /** Whether commits record: once the table is known to exist; until then it is looked for again at most once a second. */
  get recording(): boolean {
    if (this.ready !== true) this.probe();
    return this.ready === true;
  }

  private probe(): void {
    if (this.probing || performance.now() < this.retryAt) return;
    this.probing = true;
    this.retryAt = performance.now() + 1000;
    this.pool.query(`${LOG_STATEMENT} select 1 from cache_writes limit 0`).then(
      () => {
        this.ready = true;
        this.probing = false;
      },
      () => {
        this.probing = false;
      },
    );
  }

  async check(prev: string | null): Promise<PgCheck> {
    if (this.ready !== false || performance.now() >= this.retryAt) {
      try {
        // The log rows of the transactions that ended since `prev`: those running then or assigned since, and committed as of this statement's snapshot.
        const r = await this.pool.query<{ s: string; w: string | null }>(
          `${LOG_STATEMENT} select txid_current_snapshot()::text as s, case when $1::text is null then null else coalesce((
             select string_agg(txid::text || ':' || tables, ' ') from cache_writes
             where (txid >= txid_snapshot_xmax($1::txid_snapshot) or txid in (select txid_snapshot_xip($1::txid_snapshot)))
               and txid_visible_in_snapshot(txid, txid_current_snapshot())), '') end as w`,
          [prev],
        );
        this.ready = true;
        return { snapshot: r.rows[0]!.s, writes: r.rows[0]!.w };
      } catch (err) {
        if ((err as { code?: string }).code !== '42P01') throw err; // undefined_table: not migrated yet
        this.ready = false;
        this.retryAt = performance.now() + 1000;
      }
    }
    const r = await this.pool.query<{ s: string }>('select txid_current_snapshot()::text as s');
    return { snapshot: r.rows[0]!.s, writes: null };
  }

  /** The statement that commits a transaction which wrote `tables` (null among them: a table unknown), answering its id. */
  commitStatement(tables: ReadonlySet<string | null>): string {
    return `${this.logStatement(tables)}; commit`;
  }

  /** The statement that records, in the transaction that runs it, its id and the `tables` it wrote, answering the id. */
  logStatement(tables: ReadonlySet<string | null>): string {
    if (!this.recording) return 'select txid_current_if_assigned()::text as txid';
    // Names from tablesWritten: [a-z_][a-z0-9_]*, safe in a literal.
    const names = tables.has(null) ? '*' : [...tables].join(',');
    return `${LOG_STATEMENT} insert into cache_writes (txid, tables, at) select x, '${names}', ${DB_NOW_MS} from (select txid_current_if_assigned() as x) t where x is not null returning txid::text as txid`;
  }

  stop(): void {
    clearInterval(this.cleanup);
  }
}

/**
 * Tells the read cache what a PostgreSQL connection writes. Every statement that can write
 * (not `select`, `show`, `set`, `begin`) drops what depends on its table (storage/read-cache.ts
 * `tablesWritten`; unknown: everything) before it is sent. A transaction's tables are dropped
 * again once its commit has answered, and its id is reported, so the cache's check knows the
 * snapshot moved by this process's own, accounted-for, transaction: the commit goes out as
 * one round trip that records the transaction's id and tables in the write log and commits
 * (`WriteLog.commitStatement`), so other processes drop only those tables. If that fails
 * the transaction is rolled back and the commit fails with the error. A transaction in which
 * a statement failed (aborted) commits plainly (PostgreSQL rolls it back), and so does one
 * that wrote nothing; a rollback reports nothing (the next check then drops everything, as
 * for another process's unlogged transaction).
 */
function noteWrites(client: PgModule.PoolClient, cache: PgReadCache, log: WriteLog, Query: typeof PgModule.Query): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  /** The open transaction's tables (null in one: a table unknown), or undefined outside a transaction. */
  let written: Set<string | null> | undefined;
  let aborted = false;
  const tracked = (result: unknown) => {
    if (written && result instanceof Promise) result.catch(() => (aborted = true));
    return result;
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    if (text.startsWith(LOG_STATEMENT)) return query(...args);
    const verb = /^\s*([a-z]+)/i.exec(text)?.[1]?.toLowerCase();
    const promised = typeof args[args.length - 1] !== 'function';
    if (text.endsWith(COMMITS_ALONE) && promised) {
      if (written) return Promise.reject(new Error('a statement that commits alone was run inside a transaction'));
      const tables = tablesWritten(text) ?? [null];
      for (const table of tables) cache.noteWrite(table);
      return new Promise<PgModule.QueryResult[]>((resolve, reject) => {
        const committed = new Query({ text, values: (args[1] as unknown[] | undefined) ?? [], queryMode: 'extended' } as PgModule.QueryConfig, undefined, (err: Error | undefined, res: unknown) => (err ? reject(err) : resolve(res as PgModule.QueryResult[])));
        // After the statement, in the same implicit transaction (messages up to one Sync): the write log row; then the Sync commits both.
        // pg's Query sends Execute and Sync in _getRows (pg 8): replaced here. test/core/read-cache.test.ts counts the log rows, so a pg that no longer calls it fails there.
        const logText = log.logStatement(new Set(tables));
        const internal = committed as unknown as { _getRows(connection: PgConnection, rows?: number): void; portal?: string };
        internal._getRows = (connection, rows) => {
          connection.execute({ portal: internal.portal ?? '', rows });
          connection.parse({ text: logText, name: '', types: [] });
          connection.bind({ portal: '', statement: '', values: [] });
          connection.describe({ type: 'P', name: '' });
          connection.execute({ portal: '', rows: 0 });
          connection.sync();
        };
        query(committed);
      }).then(
        ([result, logged]) => {
          for (const table of tables) cache.noteWrite(table); // again: a read meanwhile saw the table before
          const id = logged?.rows[0]?.txid;
          if (id) cache.committed(BigInt(id));
          return result;
        },
        (err: unknown) => {
          for (const table of tables) cache.noteWrite(table);
          throw err;
        },
      );
    }
    if (verb === 'begin' || verb === 'start') {
      written = new Set();
      aborted = false;
      return query(...args);
    }
    if (verb === 'savepoint' || verb === 'release') return tracked(query(...args));
    if (verb === 'rollback' && /^\s*rollback\s+to\b/i.test(text)) {
      aborted = false; // back to a savepoint: the transaction goes on, usable again
      return tracked(query(...args));
    }
    if (verb === 'commit' || verb === 'rollback' || verb === 'end' || verb === 'abort') {
      const tables = written;
      written = undefined;
      const drop = () => {
        for (const table of tables ?? [null]) cache.noteWrite(table);
      };
      drop();
      const report = verb === 'commit' && tables?.size && !aborted && promised && text.trim().toLowerCase() === 'commit';
      const ended = report
        ? (query(log.commitStatement(tables)) as Promise<{ rows: { txid: string | null }[] }[]>).then(
            ([txid, commit]) => {
              drop(); // before reporting it: the check may keep what it then finds
              const id = txid!.rows[0]?.txid;
              if (id) cache.committed(BigInt(id));
              return commit;
            },
            // Nothing committed (a statement before the commit failed and aborted the transaction): end it, and fail as the commit.
            (err: unknown) =>
              (query('rollback') as Promise<unknown>).then(
                () => {
                  drop();
                  throw err;
                },
                () => {
                  drop();
                  throw err;
                },
              ),
          )
        : query(...args);
      // Again once it has answered (before its caller goes on): a read meanwhile saw the tables before.
      if (ended instanceof Promise && !report) ended.then(drop, () => {});
      return ended;
    }
    if (READ_ONLY.test(text)) return tracked(query(...args));
    const tables = tablesWritten(text) ?? [null];
    for (const table of tables) cache.noteWrite(table);
    if (written) {
      for (const table of tables) written.add(table);
      return tracked(query(...args));
    }
    // Autocommitted: dropped again once done (a read meanwhile may have seen the row before).
    const result = query(...args);
    if (result instanceof Promise) result.then(() => { for (const table of tables) cache.noteWrite(table); }, () => {});
    return result;
  };
}

/**
 * Ends a write that is a whole transaction by itself (`committedAlone`). On PostgreSQL it is
 * sent outside any transaction with the write log's row in one round trip: both run in the
 * implicit transaction of the extended protocol's messages up to one Sync, which commits them.
 * Row locks the statement takes (a counter's) are held for that one execution, not for a round
 * trip to the client and back before a COMMIT arrives, so writers that queue on one lock (16
 * issues into one project) are not held up by the network and the client's event loop.
 */
const COMMITS_ALONE = ' /* commits alone */';

/** The SQL of a single statement that makes a whole write, to run outside any transaction: on PostgreSQL it commits in the same round trip. */
export function committedAlone(sql: string): string {
  return sql + COMMITS_ALONE;
}

/** The parts of pg's connection a committed-alone statement writes to (pg's own Query calls the same). */
interface PgConnection {
  parse(config: { text: string; name: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[] }): void;
  describe(config: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows?: number }): void;
  sync(): void;
}

/** Statements that write nothing: reads, settings, and `copy (select …) to stdout` (blob reads, storage/pg-blobs.ts). */
const READ_ONLY = /^\s*(?:select|show|set)\b|^\s*copy\s*\(\s*select\b[^;]*\)\s*to\s+stdout\b[^;]*$/i;

/** How long a SQLite statement waits for another process's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/** What else happens before a statement that can write runs on the connection (the checkpointer's `wake`). */
interface WriteHooks {
  beforeWrite(): void;
}

/**
 * Kysely prepares every query anew; on better-sqlite3 building the statement costs more
 * than running it. Statements are reused by SQL text (bounded, least recently used out).
 * A statement busy in an iteration is never handed out twice.
 *
 * Every statement that can write (SQLite's own `readonly` says which) tells the read cache
 * each time before it runs, with the table it writes (storage/read-cache.ts `tableWritten`;
 * unknown: any), and again once it has run; so does `exec`, as a write of any table. Before
 * that, `hooks.beforeWrite` (a retired checkpointer starts again).
 */
function cacheStatements(sqlite: SqliteDatabase.Database, cache: ReadCache, hooks: WriteHooks, max = 512): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const exec = sqlite.exec.bind(sqlite);
  sqlite.exec = ((source: string) => {
    hooks.beforeWrite();
    cache.noteWrite(null);
    try {
      return exec(source);
    } finally {
      cache.wrote();
    }
  }) as typeof sqlite.exec;
  const statements = new Map<string, SqliteDatabase.Statement>();
  sqlite.prepare = ((source: string) => {
    const hit = statements.get(source);
    if (hit && !hit.busy) {
      statements.delete(source);
      statements.set(source, hit);
      return hit;
    }
    const stmt = prepare(source);
    // (BEGIN IMMEDIATE is not `readonly` for SQLite, yet changes nothing: the writes that follow tell the cache.)
    if (!stmt.readonly && !/^begin\b/i.test(source)) markWrites(stmt, cache, hooks, tablesWritten(source) ?? [null]);
    if (!hit) {
      statements.set(source, stmt);
      if (statements.size > max) statements.delete(statements.keys().next().value!);
    }
    return stmt;
  }) as typeof sqlite.prepare;
}

function markWrites(stmt: SqliteDatabase.Statement, cache: ReadCache, hooks: WriteHooks, tables: readonly (string | null)[]): void {
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = stmt[method] as (...args: unknown[]) => unknown;
    (stmt as unknown as Record<string, unknown>)[method] = function (this: SqliteDatabase.Statement, ...args: unknown[]) {
      hooks.beforeWrite();
      for (const table of tables) cache.noteWrite(table);
      try {
        return original.apply(this, args);
      } finally {
        cache.wrote();
      }
    };
  }
}

const sqliteHandles = new WeakMap<Kysely<any>, { sqlite: SqliteDatabase.Database; driver: GroupCommitSqliteDriver }>();

/** The better-sqlite3 connection behind a Kysely instance opened here (not for transactions). */
export function sqliteHandleOf(db: Kysely<any>): SqliteDatabase.Database | undefined {
  return sqliteHandles.get(db)?.sqlite;
}

/**
 * The connection behind a SQLite database opened here when a read may run on it directly,
 * synchronously, outside Kysely's turn-taking: no transaction running (storage/sqlite-driver.ts
 * `idle`). Undefined otherwise, and for PostgreSQL and transactions.
 */
export function idleSqliteOf(db: Kysely<any>): SqliteDatabase.Database | undefined {
  const handle = sqliteHandles.get(db);
  return handle?.driver.idle ? handle.sqlite : undefined;
}

const sqliteByAdapter = new WeakMap<object, SqliteDatabase.Database>();
const pgPools = new WeakMap<Kysely<any>, PgModule.Pool>();

/** The pg pool behind a PostgreSQL database opened here (COPY, which Kysely cannot run), or undefined. */
export function pgPoolOf(db: Kysely<any>): PgModule.Pool | undefined {
  return pgPools.get(db);
}

/**
 * The connection of a SQLite transaction, for a read run on it directly and synchronously
 * from inside the transaction (which holds the connection: storage/sqlite-driver.ts runs one
 * transaction at a time). Undefined for PostgreSQL.
 */
export function sqliteOfTransaction(trx: Kysely<any>): SqliteDatabase.Database | undefined {
  return trx.isTransaction ? sqliteByAdapter.get(trx.getExecutor().adapter) : undefined;
}

/** Insert-then-catch: true when `err` is a unique constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Booleans are stored as 0/1 on both dialects. */
export const bool = (v: boolean | number | null | undefined): number => (v ? 1 : 0);
