import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Merge request approvals: the project's approval settings, approval rules (project rules and
 * merge-request rules share one table; `merge_request_id` is null for project rules), their
 * approvers, groups and protected branches, the approvals given, the "approvals syncing"
 * marker a push leaves on a merge request until the queue has processed it, and user
 * passwords (hashed) for re-authentication when approving.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_approval_settings')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('approvals_before_merge', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reset_approvals_on_push', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('selective_code_owner_removals', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disable_overriding_approvers_per_merge_request', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merge_requests_author_approval', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merge_requests_disable_committers_approval', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('require_reauthentication_to_approve', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('approval_rules'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('merge_request_id', 'integer', (c) => c.references('merge_requests.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rule_type', 'text', (c) => c.notNull())
    .addColumn('report_type', 'text')
    .addColumn('approvals_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('applies_to_all_protected_branches', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('source_rule_id', 'integer', (c) => c.references('approval_rules.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('approval_rules_project').on('approval_rules').columns(['project_id', 'merge_request_id']).execute();
  await db.schema.createIndex('approval_rules_merge_request').on('approval_rules').columns(['merge_request_id']).execute();

  await withId(db, db.schema.createTable('approval_rule_users'))
    .addColumn('rule_id', 'integer', (c) => c.notNull().references('approval_rules.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('approval_rule_users_pair').on('approval_rule_users').columns(['rule_id', 'user_id']).unique().execute();

  await withId(db, db.schema.createTable('approval_rule_groups'))
    .addColumn('rule_id', 'integer', (c) => c.notNull().references('approval_rules.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('approval_rule_groups_pair').on('approval_rule_groups').columns(['rule_id', 'group_id']).unique().execute();

  await withId(db, db.schema.createTable('approval_rule_protected_branches'))
    .addColumn('rule_id', 'integer', (c) => c.notNull().references('approval_rules.id').onDelete('cascade'))
    .addColumn('protected_branch_id', 'integer', (c) => c.notNull().references('protected_branches.id').onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('approval_rule_protected_branches_pair')
    .on('approval_rule_protected_branches')
    .columns(['rule_id', 'protected_branch_id'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('merge_request_approvals'))
    .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_request_approvals_pair').on('merge_request_approvals').columns(['merge_request_id', 'user_id']).unique().execute();

  /** Present from a push until the queue has processed it: `detailed_merge_status` is checking / approvals_syncing. */
  await db.schema
    .createTable('merge_request_approval_syncs')
    .addColumn('merge_request_id', 'integer', (c) => c.primaryKey().references('merge_requests.id').onDelete('cascade'))
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('approvals_reset', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('user_passwords')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
