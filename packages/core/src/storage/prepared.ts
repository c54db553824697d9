/**
 * Hot queries compiled once per database instead of built and compiled by Kysely on every
 * call (the builder costs more than SQLite running the query). The query is built once
 * with placeholder arguments; later calls substitute the arguments by position. Only for
 * queries whose SQL does not depend on the argument values (no `in (…)` lists).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { sqliteHandleOf } from './dialect.js';

interface Compiled {
  sql: string;
  slots: ({ arg: number } | { value: unknown })[];
}

export function preparedQuery<A extends unknown[], R>(
  build: (db: Kysely<any>, ...args: A) => { compile(): CompiledQuery<R> },
): (db: Kysely<any>, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<Kysely<any>, Compiled>();
  return async (db, ...args) => {
    let c = compiled.get(db);
    if (!c) {
      const markers = args.map((_, i) => `\u0000forgelet-arg-${i}\u0000`);
      const query = build(db, ...(markers as A)).compile();
      c = {
        sql: query.sql,
        slots: query.parameters.map((v) => {
          const i = markers.indexOf(v as string);
          return i >= 0 ? { arg: i } : { value: v };
        }),
      };
      compiled.set(db, c);
    }
    const parameters = c.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
    // On SQLite, a read while no transaction is open on the (single) connection runs
    // synchronously: nothing can interleave with it, so Kysely's connection lock and its
    // promise hops are skipped. Inside a transaction, the lock keeps reads isolated.
    const sqlite = sqliteHandleOf(db);
    if (sqlite && !sqlite.inTransaction) {
      const stmt = sqlite.prepare(c.sql);
      if (stmt.reader) return stmt.all(parameters) as R[];
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(c.sql, parameters));
    return result.rows;
  };
}
