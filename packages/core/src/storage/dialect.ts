/**
 * The only place that knows SQLite from PostgreSQL: connection, type parsing, and the few
 * facts that differ (unique violations, row locking). Values read back are the same on
 * both: timestamps are ISO text, booleans 0/1 integers, counts numbers.
 */
import { createRequire } from 'node:module';
import SqliteDatabase from 'better-sqlite3';
import type PgModule from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, type DatabaseConnection, type SqliteDialectConfig } from 'kysely';
import type { Database } from './database.js';
import { attachReadCache, PgReadCache, ReadCache } from './read-cache.js';

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
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types: types as never });
    // An idle connection that fails (server restart, terminated backend) is dropped by the
    // pool; without a listener its 'error' event would crash the process.
    pool.on('error', () => {});
    // Plan as GitLab's bundled PostgreSQL does (Omnibus sets random_page_cost 2.0, from
    // GitLab.com): with the default 4.0 a deep page of a large group sorts every project
    // instead of walking the (namespace, created_at) index, 20 ms instead of 5. Forgelet's own
    // sessions only; queued before any query the pool hands the connection out for.
    const readCache = new PgReadCache(async () => (await pool.query<{ s: string }>('select txid_current_snapshot()::text as s')).rows[0]!.s);
    pool.on('connect', (client) => {
      client.query('set random_page_cost = 2').catch(() => {});
      noteWrites(client, () => readCache.noteWrite());
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    attachReadCache(db, readCache);
    return { db, dialect: 'postgres', file: null, destroy: () => db.destroy() };
  }
  const file = url.replace(/^sqlite:(\/\/)?/i, '') || ':memory:';
  const sqlite = new SqliteDatabase(file);
  // First: another process may hold the lock while this one switches to WAL.
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const readCache = new ReadCache(sqlite, sqlite.prepare.bind(sqlite));
  cacheStatements(sqlite, () => readCache.noteWrite());
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  sqliteHandles.set(db, sqlite);
  attachReadCache(db, readCache);
  return { db, dialect: 'sqlite', file: file === ':memory:' ? null : file, destroy: () => db.destroy() };
}

/**
 * Every statement a PostgreSQL connection runs calls `onWrite` first unless it only reads
 * (`select`, `show`, `set`, `begin`): writes, and `commit` (what a transaction read outside it
 * may have been cached before it committed), drop the read cache.
 */
function noteWrites(client: PgModule.PoolClient, onWrite: () => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    if (!READ_ONLY.test(text)) onWrite();
    return query(...args);
  };
}

const READ_ONLY = /^\s*(?:select|show|set|begin|start transaction)\b/i;

/** How long a SQLite statement waits for another process's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Transactions on SQLite begin IMMEDIATE: they take the write lock first (waiting up to the
 * busy timeout for another process holding it), so a transaction that reads and then writes
 * never fails because another process (several `forgelet serve` on one data directory)
 * committed in between; a DEFERRED one would fail with SQLITE_BUSY at its first write,
 * without waiting. In one process Kysely already runs one transaction at a time.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly config: SqliteDialectConfig) {
    super(config);
  }

  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.config);
  }
}

/**
 * Kysely prepares every query anew; on better-sqlite3 building the statement costs more
 * than running it. Statements are reused by SQL text (bounded, least recently used out).
 * A statement busy in an iteration is never handed out twice.
 *
 * Every statement that can write (SQLite's own `readonly` says which) calls `onWrite` each
 * time before it runs, and so does `exec`: the read cache is dropped before the change.
 */
function cacheStatements(sqlite: SqliteDatabase.Database, onWrite: () => void, max = 512): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const exec = sqlite.exec.bind(sqlite);
  sqlite.exec = ((source: string) => {
    onWrite();
    return exec(source);
  }) as typeof sqlite.exec;
  const cache = new Map<string, SqliteDatabase.Statement>();
  sqlite.prepare = ((source: string) => {
    const hit = cache.get(source);
    if (hit && !hit.busy) {
      cache.delete(source);
      cache.set(source, hit);
      return hit;
    }
    const stmt = prepare(source);
    // (BEGIN IMMEDIATE is not `readonly` for SQLite, yet changes nothing: the writes that follow drop the cache.)
    if (!stmt.readonly && !/^begin\b/i.test(source)) markWrites(stmt, onWrite);
    if (!hit) {
      cache.set(source, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value!);
    }
    return stmt;
  }) as typeof sqlite.prepare;
}

function markWrites(stmt: SqliteDatabase.Statement, onWrite: () => void): void {
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = stmt[method] as (...args: unknown[]) => unknown;
    (stmt as unknown as Record<string, unknown>)[method] = function (this: SqliteDatabase.Statement, ...args: unknown[]) {
      onWrite();
      return original.apply(this, args);
    };
  }
}

const sqliteHandles = new WeakMap<Kysely<any>, SqliteDatabase.Database>();

/** The better-sqlite3 connection behind a Kysely instance opened here (not for transactions). */
export function sqliteHandleOf(db: Kysely<any>): SqliteDatabase.Database | undefined {
  return sqliteHandles.get(db);
}

/** Insert-then-catch: true when `err` is a unique constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Booleans are stored as 0/1 on both dialects. */
export const bool = (v: boolean | number | null | undefined): number => (v ? 1 : 0);
