import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * CI/CD variables of the instance, groups and projects (GitLab's ci_instance_variables,
 * ci_group_variables and ci_variables) in one table. `owner` names the scope (`instance`,
 * `group:<id>`, `project:<id>`) so one unique index holds GitLab's key uniqueness per owner
 * and environment scope on both dialects; `group_id` / `project_id` cascade deletes.
 * Only the value is secret: it is sealed (`value_encrypted`, storage/sealed-columns.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_variables'))
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value_encrypted', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
    .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('masked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('raw', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description', 'text')
    .addColumn('environment_scope', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_variables_owner_key_scope').on('ci_variables').columns(['owner', 'key', 'environment_scope']).unique().execute();
  await db.schema.createIndex('ci_variables_group_id').on('ci_variables').column('group_id').execute();
  await db.schema.createIndex('ci_variables_project_id').on('ci_variables').column('project_id').execute();
}
