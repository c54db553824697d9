import type { CreateTableBuilder, Kysely } from 'kysely';
import { sql } from 'kysely';

/** Adds the auto-increment integer primary key `id` in the dialect's spelling. */
export function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  const postgres = isPostgres(db);
  return table.addColumn('id', postgres ? 'serial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()));
}

export function isPostgres(db: Kysely<any>): boolean {
  const name = (db.getExecutor().adapter.constructor as { name: string }).name;
  return name.startsWith('Postgres');
}

/** Index on lower(column), for case-insensitive lookups on both dialects. */
export async function createLowerIndex(db: Kysely<any>, name: string, table: string, column: string, unique = false) {
  await sql`create ${sql.raw(unique ? 'unique ' : '')}index ${sql.ref(name)} on ${sql.table(table)} (lower(${sql.ref(column)}))`.execute(db);
}
