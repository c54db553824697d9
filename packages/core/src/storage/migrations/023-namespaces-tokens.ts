import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Issue 27's substrate: label priorities per project (a group label may be prioritized in each
 * of its projects), `approvals_before_merge` as a column of projects (GitLab's; the approval
 * settings read and write the same column, so the two answers cannot differ), impersonation
 * tokens (personal access tokens an administrator made, marked), and deploy tokens of projects
 * and groups (stored as digests; `username` null means GitLab's `gitlab+deploy-token-<id>`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('label_priorities'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('label_priorities_project_label').on('label_priorities').columns(['project_id', 'label_id']).unique().execute();
  await db.schema.createIndex('label_priorities_label').on('label_priorities').columns(['label_id']).execute();

  await db.schema.alterTable('projects').addColumn('approvals_before_merge', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`update projects set approvals_before_merge = coalesce((select s.approvals_before_merge from project_approval_settings s where s.project_id = projects.id), 0)`.execute(db);
  await db.schema.alterTable('project_approval_settings').dropColumn('approvals_before_merge').execute();

  await db.schema.alterTable('access_tokens').addColumn('impersonation', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await withId(db, db.schema.createTable('deploy_tokens'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('deploy_tokens_project').on('deploy_tokens').columns(['project_id']).execute();
  await db.schema.createIndex('deploy_tokens_group').on('deploy_tokens').columns(['group_id']).execute();
}
