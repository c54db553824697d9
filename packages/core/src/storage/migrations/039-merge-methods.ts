import type { Kysely } from 'kysely';

/**
 * Merge methods and rebases (GitLab's `projects.merge_requests_ff_only_enabled` /
 * `merge_requests_rebase_enabled`, shown as `merge_method`; `merge_requests.merge_error` and
 * `rebase_jid`): a project's `merge_method` (`merge`, `rebase_merge` or `ff`), the last merge or
 * rebase error of a merge request and the queue job of its rebase while one is queued or
 * running. `merge_request_diff_commits` lists the commits of each diff version (GitLab's table
 * of that name), so the merge requests of a commit are found in the database.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge')).execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_error', 'text').execute();
  await db.schema.alterTable('merge_requests').addColumn('rebase_job_id', 'integer').execute();
  await db.schema
    .createTable('merge_request_diff_commits')
    .addColumn('merge_request_diff_id', 'integer', (c) => c.notNull().references('merge_request_diffs.id').onDelete('cascade'))
    .addColumn('relative_order', 'integer', (c) => c.notNull())
    .addColumn('sha', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('merge_request_diff_commits_pkey', ['merge_request_diff_id', 'relative_order'])
    .execute();
  await db.schema.createIndex('merge_request_diff_commits_sha').on('merge_request_diff_commits').columns(['sha', 'merge_request_diff_id']).execute();
  await db.schema.createIndex('merge_requests_merge_commit_sha').on('merge_requests').columns(['project_id', 'merge_commit_sha']).execute();
  await db.schema.createIndex('merge_requests_squash_commit_sha').on('merge_requests').columns(['project_id', 'squash_commit_sha']).execute();
}
