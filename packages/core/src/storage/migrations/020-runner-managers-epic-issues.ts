import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * What runners say about themselves, and issues in epics:
 * - `ci_runners.name`: the `info[name]` a runner registers with (`POST /runners`).
 * - `ci_runner_managers` (GitLab's `ci_runner_machines`): one row per runner and `system_id`
 *   (`<legacy>` when a runner sends none), holding the version, revision, platform,
 *   architecture and client address it sent on its last contact; `ci_jobs.runner_manager_id`
 *   is the manager that took the job.
 * - `epic_issues`: an issue belongs to at most one epic, ordered by relative position.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ci_runners').addColumn('name', 'text').execute();

  await withId(db, db.schema.createTable('ci_runner_managers'))
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('system_xid', 'text', (c) => c.notNull())
    .addColumn('version', 'text')
    .addColumn('revision', 'text')
    .addColumn('platform', 'text')
    .addColumn('architecture', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('contacted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_runner_managers_runner_system').on('ci_runner_managers').columns(['runner_id', 'system_xid']).unique().execute();

  // No foreign key: a removed manager leaves the id, which then presents as no manager.
  await db.schema.alterTable('ci_jobs').addColumn('runner_manager_id', 'integer').execute();
  await db.schema.createIndex('ci_jobs_runner_manager').on('ci_jobs').columns(['runner_manager_id', 'status']).execute();

  await withId(db, db.schema.createTable('epic_issues'))
    .addColumn('epic_id', 'integer', (c) => c.notNull().references('epics.id').onDelete('cascade'))
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('relative_position', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('epic_issues_issue').on('epic_issues').columns(['issue_id']).unique().execute();
  await db.schema.createIndex('epic_issues_epic').on('epic_issues').columns(['epic_id', 'relative_position', 'id']).execute();
}
