import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/** CI job token scope (per-project inbound allowlists) and instance application settings. */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_job_token_settings'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('inbound_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('outbound_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_job_token_settings_project').on('ci_job_token_settings').columns(['project_id']).unique().execute();

  /** `source_project_id` is the protected project; `target_project_id` may use its job tokens there. */
  await withId(db, db.schema.createTable('ci_job_token_project_links'))
    .addColumn('source_project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('target_project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('added_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_job_token_project_links_pair').on('ci_job_token_project_links').columns(['source_project_id', 'target_project_id']).unique().execute();

  await withId(db, db.schema.createTable('ci_job_token_group_links'))
    .addColumn('source_project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('target_group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('added_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_job_token_group_links_pair').on('ci_job_token_group_links').columns(['source_project_id', 'target_group_id']).unique().execute();

  await db.schema
    .createTable('application_settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull()) // JSON
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
