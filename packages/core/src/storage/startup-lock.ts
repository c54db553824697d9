/**
 * First-start work (migrations, the instance's secret key record, the root user and its token)
 * when several processes start at once on one database.
 *
 * PostgreSQL: the work runs under a session advisory lock on a fixed key, held on one
 * connection of the pool from before the first migration until the root token is in place;
 * the other processes wait for it, then find everything done (each step is idempotent). A
 * process that dies holding it releases it with its connection.
 *
 * SQLite: every step is a transaction that takes the write lock first (BEGIN IMMEDIATE, see
 * dialect.ts; the schema of a new database is created the same way), so a second process
 * waits for the first step's commit and then sees its result.
 */
import { sql } from 'kysely';
import type { DatabaseHandle } from './dialect.js';

/** The advisory lock key: "forgelet" in ASCII, as a bigint. */
export const STARTUP_LOCK_KEY = '7381244102692332916';

export async function withStartupLock<T>(database: Pick<DatabaseHandle, 'db' | 'dialect'>, work: () => Promise<T>): Promise<T> {
  if (database.dialect !== 'postgres') return work();
  return database.db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${STARTUP_LOCK_KEY}::bigint)`.execute(conn);
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(${STARTUP_LOCK_KEY}::bigint)`.execute(conn);
    }
  });
}
