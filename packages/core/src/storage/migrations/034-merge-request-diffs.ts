import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Merge request diff versions (GitLab's merge_request_diffs): one row each time a merge
 * request's source head moves (creation, a commit or a push, a new target branch, reopening),
 * with the shas git computed then and `patch_id_sha` (`git patch-id --stable` of the diff
 * from base to head), which the queue fills in after the write. `merge_status` is GitLab's
 * mergeability state machine (unchecked, checking, can_be_merged, cannot_be_merged,
 * cannot_be_merged_recheck, cannot_be_merged_rechecking); existing merge requests start
 * unchecked, so their first read checks them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('merge_request_diffs'))
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('base_commit_sha', 'text')
    .addColumn('start_commit_sha', 'text')
    .addColumn('head_commit_sha', 'text')
    .addColumn('real_size', 'text')
    .addColumn('commits_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('patch_id_sha', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_request_diffs_merge_request_id').on('merge_request_diffs').columns(['merge_request_id', 'id']).execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_status', 'text', (c) => c.notNull().defaultTo('unchecked')).execute();
}
