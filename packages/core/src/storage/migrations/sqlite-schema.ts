/**
 * A new SQLite database gets its schema in one batch of DDL: what the migrations leave in
 * sqlite_master, recorded in generated/sqlite-schema.ts (`npm run generate:schema`). Running the
 * sixteen migrations through Kysely's migrator costs ~60 ms of a cold start; the batch ~10 ms.
 * Existing databases, and PostgreSQL, go through the migrator as before.
 *
 * test/core/sqlite-schema.test.ts migrates a database step by step and fails when the recorded
 * schema differs from what the migrations produce, so the batch can never drift from them.
 */
import type SqliteDatabase from 'better-sqlite3';
import { SQLITE_SCHEMA } from '../../generated/sqlite-schema.js';

export const MIGRATION_TABLE = 'forgelet_migrations';
export const MIGRATION_LOCK_TABLE = 'forgelet_migration_lock';

/** The schema objects the migrations made, in creation order (Kysely's bookkeeping included). */
export function readSqliteSchema(sqlite: SqliteDatabase.Database): string[] {
  const rows = sqlite
    .prepare("select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by rowid")
    .all() as { sql: string }[];
  return rows.map((r) => r.sql);
}

/**
 * On an empty database: creates the recorded schema and marks its migrations applied, in one
 * transaction, and returns true. `begin immediate` takes the write lock first, so when two
 * processes open the same new file the second waits and then finds the tables.
 */
export function loadSqliteSchemaIfEmpty(sqlite: SqliteDatabase.Database, timestamp: string): boolean {
  if (sqlite.inTransaction) return false;
  sqlite.exec('begin immediate');
  try {
    const { n } = sqlite.prepare("select count(*) as n from sqlite_master where name not like 'sqlite_%'").get() as { n: number };
    if (n > 0) {
      sqlite.exec('rollback');
      return false;
    }
    sqlite.exec(SQLITE_SCHEMA.statements.join(';\n'));
    const record = sqlite.prepare(`insert into ${MIGRATION_TABLE} (name, timestamp) values (?, ?)`);
    for (const name of SQLITE_SCHEMA.migrations) record.run(name, timestamp);
    sqlite.prepare(`insert into ${MIGRATION_LOCK_TABLE} (id, is_locked) values ('migration_lock', 0)`).run();
    sqlite.exec('commit');
    return true;
  } catch (err) {
    if (sqlite.inTransaction) sqlite.exec('rollback');
    throw err;
  }
}
