import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Delivery: environments and their deployments (with the merge requests each deployment
 * shipped and the approvals it collected), group-level protected environments with their
 * deploy access levels and approval rules, and the DORA daily aggregates (one row per
 * project, environment tier and UTC day, maintained as deployments succeed and incidents
 * open and close).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('environments'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('external_url', 'text')
    .addColumn('tier', 'text', (c) => c.notNull()) // production | staging | testing | development | other
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('available')) // available | stopping | stopped
    .addColumn('description', 'text')
    .addColumn('auto_stop_at', 'text')
    .addColumn('auto_stop_setting', 'text', (c) => c.notNull().defaultTo('always'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('environments_project_name').on('environments').columns(['project_id', 'name']).unique().execute();
  await db.schema.createIndex('environments_project_slug').on('environments').columns(['project_id', 'slug']).unique().execute();

  await withId(db, db.schema.createTable('deployments'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('environment_id', 'integer', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('deployable_id', 'integer', (c) => c.references('ci_jobs.id').onDelete('set null'))
    // created | running | success | failed | canceled | skipped | blocked
    .addColumn('status', 'text', (c) => c.notNull())
    // A deployment created through the API while approvals are pending: the status it proceeds to.
    .addColumn('requested_status', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deployments_project_iid').on('deployments').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('deployments_environment_status').on('deployments').columns(['environment_id', 'status', 'finished_at']).execute();
  await db.schema.createIndex('deployments_deployable').on('deployments').columns(['deployable_id']).execute();

  // One link per merge request and environment: a merge request ships to an environment once.
  await db.schema
    .createTable('deployment_merge_requests')
    .addColumn('deployment_id', 'integer', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('environment_id', 'integer', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('deployment_merge_requests_environment_mr')
    .on('deployment_merge_requests')
    .columns(['environment_id', 'merge_request_id'])
    .unique()
    .execute();
  await db.schema.createIndex('deployment_merge_requests_deployment').on('deployment_merge_requests').columns(['deployment_id']).execute();

  await withId(db, db.schema.createTable('protected_environments'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('required_approval_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index protected_environments_scope_name on protected_environments (coalesce(group_id, 0), coalesce(project_id, 0), name)`.execute(db);

  for (const table of ['protected_environment_deploy_access_levels', 'protected_environment_approval_rules']) {
    let t = withId(db, db.schema.createTable(table))
      .addColumn('protected_environment_id', 'integer', (c) => c.notNull().references('protected_environments.id').onDelete('cascade'))
      .addColumn('access_level', 'integer')
      .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
      .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
      .addColumn('group_inheritance_type', 'integer', (c) => c.notNull().defaultTo(0));
    if (table === 'protected_environment_approval_rules') t = t.addColumn('required_approvals', 'integer', (c) => c.notNull().defaultTo(1));
    await t.addColumn('created_at', 'text', (c) => c.notNull()).addColumn('updated_at', 'text', (c) => c.notNull()).execute();
    await db.schema.createIndex(`${table}_pe`).on(table).columns(['protected_environment_id']).execute();
  }

  await withId(db, db.schema.createTable('deployment_approvals'))
    .addColumn('deployment_id', 'integer', (c) => c.notNull().references('deployments.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('approval_rule_id', 'integer', (c) => c.references('protected_environment_approval_rules.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull()) // approved | rejected
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index deployment_approvals_user_rule on deployment_approvals (deployment_id, user_id, coalesce(approval_rule_id, 0))`.execute(db);

  await withId(db, db.schema.createTable('dora_daily_metrics'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('environment_tier', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull()) // YYYY-MM-DD (UTC)
    .addColumn('deployment_frequency', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lead_time_for_changes_in_seconds', 'double precision')
    // Production rows only (GitLab attributes incidents to production): null elsewhere.
    .addColumn('incidents_count', 'integer')
    .addColumn('time_to_restore_service_in_seconds', 'double precision')
    .execute();
  await db.schema
    .createIndex('dora_daily_metrics_key')
    .on('dora_daily_metrics')
    .columns(['project_id', 'environment_tier', 'date'])
    .unique()
    .execute();
}
