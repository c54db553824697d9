import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The issues a merge request closes once merged into the default branch (GitLab's
 * `merge_requests_closing_issues`), kept from its title and description whenever it is opened
 * or edited: read back by `GET …/issues/:iid/closed_by` and the issue's `merge_requests_count`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('merge_request_closing_issues'))
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_request_closing_issues_pair').on('merge_request_closing_issues').columns(['merge_request_id', 'issue_id']).unique().execute();
  await db.schema.createIndex('merge_request_closing_issues_issue').on('merge_request_closing_issues').columns(['issue_id', 'merge_request_id']).execute();
}
