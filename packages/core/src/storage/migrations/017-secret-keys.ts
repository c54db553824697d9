import type { Kysely } from 'kysely';

/**
 * The ids of the instance's secret keys (never the keys): the one secrets are sealed with
 * (`retired_at` null) and the ones rotated away. A process whose keys do not include the
 * current one refuses to start (every process on one database needs the same key).
 * Columns that hold sealed secrets end in `_encrypted`: the migration source token follows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('secret_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema.alterTable('bulk_imports').renameColumn('source_token', 'source_token_encrypted').execute();
}
