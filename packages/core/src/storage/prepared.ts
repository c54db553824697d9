/**
 * Hot queries compiled once per database instead of built and compiled by Kysely on every
 * call (the builder costs more than SQLite running the query). The query is built once
 * with placeholder arguments; later calls substitute the arguments by position. Only for
 * queries whose SQL does not depend on the argument values (no `in (…)` lists).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { useCachedRead } from '../kernel/pagination.js';
import { committedAlone, idleSqliteOf, sqliteOfTransaction } from './dialect.js';
import { dependencies, PgReadCache, readCacheOf, readCacheOfTransaction, type ReadCache } from './read-cache.js';

interface Compiled {
  sql: string;
  slots: ({ arg: number } | { value: unknown })[];
  /** The tables (and more words) the read depends on, for the read cache. */
  tables: readonly string[];
}

let queries = 0;

/** A cache key part per argument: numbers and strings never collide (`1` vs `'1'`). */
const keyOf = (id: number, args: unknown[]) => {
  let key = String(id);
  for (const a of args) key += typeof a === 'string' ? `,${JSON.stringify(a)}` : `,${String(a)}`;
  return key;
};

export interface PreparedOptions {
  /**
   * Serve repeated reads from the database's read cache (outside transactions;
   * storage/read-cache.ts drops it on any write, here or, on its next check, elsewhere). Only
   * for reads whose result depends on the arguments and the stored rows alone (pass the date
   * or time as an argument).
   */
  cache?: boolean;
  /**
   * With `cache`: inside a transaction too. Only for reads of tables the transactions that
   * run it never write (what it answers would be their own uncommitted rows): `anyWebhook` in
   * an issue's transaction. On PostgreSQL a hit answers the rows as of the request's last check
   * (the transaction cannot wait for a new one: the check needs a connection of the pool its
   * transaction holds one of), one round trip fewer per write; a miss reads in the transaction
   * and keeps the rows unless something was dropped meanwhile. On SQLite a miss reads on the
   * transaction's connection, synchronously, as a read outside one does.
   */
  inTransactions?: boolean;
  /**
   * A write that is a whole transaction by itself, run on the database (never in a
   * transaction): on PostgreSQL its commit goes in the same round trip (storage/dialect.ts
   * `committedAlone`), so the row locks it takes are held for its execution alone.
   */
  commitsAlone?: boolean;
}

export function preparedQuery<A extends unknown[], R>(
  build: (db: Kysely<any>, ...args: A) => { compile(): CompiledQuery<R> },
  options: PreparedOptions = {},
): (db: Kysely<any>, ...args: A) => Promise<R[]> {
  // By adapter: a database and its transactions share one, and compile alike.
  const compiled = new WeakMap<object, Compiled>();
  const id = ++queries;
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let c = compiled.get(adapter);
    if (!c) {
      const markers = args.map((_, i) => `\u0000forgelet-arg-${i}\u0000`);
      const query = build(db, ...(markers as A)).compile();
      c = {
        sql: query.sql,
        slots: query.parameters.map((v) => {
          const i = markers.indexOf(v as string);
          return i >= 0 ? { arg: i } : { value: v };
        }),
        tables: options.cache ? dependencies(query.sql) : [],
      };
      compiled.set(adapter, c);
    }
    const { sql, slots, tables } = c;
    const parameters = () => slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    if (options.commitsAlone) {
      if (db.isTransaction) throw new Error(`a statement that commits alone was run in a transaction: ${sql}`);
      return (await db.executeQuery<R>(CompiledQuery.raw(committedAlone(sql), parameters()))).rows;
    }
    // In a SQLite transaction, which holds the (single) connection while its callback runs, an
    // uncached statement runs on it directly and synchronously: no trip through Kysely's
    // executor and driver (their promise hops cost more than SQLite's insert). Its writes mark
    // the read cache as every statement prepared on the connection does (storage/dialect.ts).
    const inSqliteTransaction = !options.cache && db.isTransaction ? sqliteOfTransaction(db) : undefined;
    if (inSqliteTransaction) {
      const stmt = inSqliteTransaction.prepare(sql);
      if (stmt.reader) return stmt.all(parameters()) as R[];
      stmt.run(parameters());
      return [];
    }
    if (options.inTransactions && db.isTransaction) {
      const root = readCacheOfTransaction(db);
      const key = keyOf(id, args);
      if (root instanceof PgReadCache) {
        const generation = root.currentGeneration();
        const hit = root.get(key);
        if (hit) return hit as R[];
        const result = await db.executeQuery<R>(CompiledQuery.raw(sql, parameters()));
        root.set(key, result.rows as object[], tables, generation);
        return result.rows;
      }
      const sqlite = sqliteOfTransaction(db);
      if (root && sqlite) {
        const hit = root.get(key);
        if (hit) return hit as R[];
        const rows = sqlite.prepare(sql).all(parameters()) as R[];
        root.set(key, rows as object[], tables);
        return rows;
      }
    }
    const sqlite = idleSqliteOf(db);
    const cached = options.cache ? readCacheOf(db) : undefined;
    // PostgreSQL: a cached read waits for the cache's check (once per turn of the event loop),
    // then hits, or reads and keeps the rows unless a write overtook the read.
    if (cached instanceof PgReadCache) {
      const generation = await cached.ready();
      const key = keyOf(id, args);
      const hit = cached.get(key);
      if (hit) return hit as R[];
      const result = await db.executeQuery<R>(CompiledQuery.raw(sql, parameters()));
      cached.set(key, result.rows as object[], tables, generation);
      return result.rows;
    }
    // On SQLite, a read while no transaction runs on the (single) connection runs
    // synchronously: nothing can interleave with it, so Kysely's connection lock and its
    // promise hops are skipped. While one runs, the lock keeps reads isolated.
    const cache = sqlite ? (cached as ReadCache | undefined) : undefined;
    const key = cache ? keyOf(id, args) : '';
    const hit = cache?.get(key);
    if (hit) return hit as R[];
    if (sqlite) {
      const stmt = sqlite.prepare(sql);
      if (stmt.reader) {
        const rows = stmt.all(parameters()) as R[];
        if (cache) cache.set(key, rows as object[], tables);
        return rows;
      }
      if (cache) throw new Error(`a cached query must be a read: ${sql}`);
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(sql, parameters()));
    return result.rows;
  };
}

/**
 * A read built by Kysely (its SQL may vary with the arguments: `in (…)` lists, optional
 * filters), served from the read cache when it holds it, keyed by its SQL and parameters.
 * Outside transactions only, and only for reads whose rows nobody changes (they are frozen):
 * paginate's counts (kernel/pagination.ts).
 */
export async function cachedRead<R>(db: Kysely<any>, query: CompiledQuery<R>): Promise<readonly R[]> {
  const cached = readCacheOf(db);
  if (!cached) return (await db.executeQuery(query)).rows;
  const key = `q:${query.sql}\u0000${JSON.stringify(query.parameters)}`;
  if (cached instanceof PgReadCache) {
    const generation = await cached.ready();
    const hit = cached.get(key);
    if (hit) return hit as R[];
    const result = await db.executeQuery(query);
    cached.set(key, result.rows as object[], dependencies(query.sql), generation);
    return result.rows;
  }
  const sqlite = idleSqliteOf(db);
  // A transaction is open on the connection: its reads go to the database (storage/sqlite-driver.ts).
  if (!sqlite) return (await db.executeQuery(query)).rows;
  const hit = cached.get(key);
  if (hit) return hit as R[];
  const rows = sqlite.prepare(query.sql).all(query.parameters as unknown[]) as R[];
  cached.set(key, rows as object[], dependencies(query.sql));
  return rows;
}

useCachedRead(cachedRead);
