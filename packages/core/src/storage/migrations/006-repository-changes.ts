import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * What each recorded commit changed: one row per path (added, modified, deleted, renamed,
 * mode change) with its line counts. Gives commit stats, `path` filters of the commit list,
 * and merges their "changed since the branches diverged" set. Parent edges get an index by
 * parent, for walks from a commit towards its descendants (which refs contain a commit).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('repository_commit_changes'))
    .addColumn('commit_id', 'integer', (c) => c.notNull().references('repository_commits.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('previous_path', 'text') // renames
    .addColumn('change', 'text', (c) => c.notNull()) // added | modified | deleted | renamed | mode
    .addColumn('additions', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('deletions', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('repository_commit_changes_commit').on('repository_commit_changes').columns(['commit_id', 'path']).execute();
  await db.schema.createIndex('repository_commit_parents_parent').on('repository_commit_parents').columns(['parent_sha']).execute();
}
