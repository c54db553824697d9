import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * The write log of the PostgreSQL read cache (storage/read-cache.ts `PgReadCache`): every
 * transaction of a Forgelet process that wrote records, in the statement that commits it, its
 * transaction id and the tables it wrote, so the other processes drop only the cache entries
 * that read those tables when they see it end. `at` is the database's clock (milliseconds),
 * for the cleanup (`storage/dialect.ts`), never the injected clock. Created on both dialects so
 * that the schema is the same; SQLite never writes it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('cache_writes')
    .addColumn('txid', 'bigint', (c) => c.primaryKey())
    .addColumn('tables', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  if (isPostgres(db)) {
    // Written once, read within seconds, deleted within minutes: no point in vacuum analysing it often.
    await sql`alter table cache_writes set (autovacuum_vacuum_scale_factor = 0.01)`.execute(db);
  }
}
