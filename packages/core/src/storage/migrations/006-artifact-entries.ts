import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The index of each artifact archive, built once at upload from the zip's central directory:
 * one row per file and per (implied) directory, with what a random-access read needs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_artifact_entries'))
    .addColumn('artifact_id', 'integer', (c) => c.notNull().references('ci_job_artifacts.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull()) // directories end in '/'
    .addColumn('parent', 'text', (c) => c.notNull()) // '' for the root, else a directory path ending in '/'
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull()) // file | directory
    .addColumn('size', 'integer')
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('compressed_size', 'integer')
    .addColumn('compression_method', 'integer')
    .addColumn('local_header_offset', 'integer')
    .addColumn('crc32', 'integer')
    .execute();
  await db.schema.createIndex('ci_artifact_entries_path').on('ci_artifact_entries').columns(['artifact_id', 'path']).unique().execute();
  await db.schema.createIndex('ci_artifact_entries_parent').on('ci_artifact_entries').columns(['artifact_id', 'parent', 'path']).execute();
}
