import { sql, type Kysely } from 'kysely';
import { isPostgres } from './helpers.js';

/**
 * The PostgreSQL blob store (storage/pg-blobs.ts): `blob_objects` names each published blob
 * (key → the upload holding its bytes, size, chunk size) and `blob_chunks` holds the bytes of
 * every upload in numbered chunks. Created on both dialects (the SQLite tables stay empty: the
 * store is refused there) so that the schema is the same.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('blob_objects')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('chunk_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('blob_chunks')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('data', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_chunks_pk', ['upload_id', 'seq'])
    .execute();
  // Artifacts and packages are mostly compressed already: TOAST stores the chunks out of line
  // without trying pglz on each (and substring() of a range then reads only the pages it needs).
  if (postgres) await sql`alter table blob_chunks alter column data set storage external`.execute(db);
}
