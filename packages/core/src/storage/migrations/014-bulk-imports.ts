import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Direct transfer (bulk imports). Destination side: migrations, their entities, one tracker per
 * entity and relation (progress, counts, the next page or batch to fetch), failures, and the
 * source ids already imported (so a step that runs again after a crash writes no duplicates).
 * Source side: relation export requests (`export_relations`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('bulk_imports'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull()) // created | started | finished | failed | canceled | timeout
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_url', 'text', (c) => c.notNull())
    .addColumn('source_token', 'text', (c) => c.notNull()) // sealed with the secret box
    .addColumn('source_version', 'text')
    .addColumn('has_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_imports_user').on('bulk_imports').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('bulk_import_entities'))
    .addColumn('bulk_import_id', 'integer', (c) => c.notNull().references('bulk_imports.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull()) // group | project
    .addColumn('source_full_path', 'text', (c) => c.notNull())
    .addColumn('source_xid', 'integer')
    .addColumn('destination_name', 'text', (c) => c.notNull())
    .addColumn('destination_slug', 'text', (c) => c.notNull())
    .addColumn('destination_namespace', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'integer', (c) => c.references('bulk_import_entities.id').onDelete('cascade'))
    .addColumn('namespace_id', 'integer', (c) => c.references('namespaces.id').onDelete('set null'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('migrate_projects', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('migrate_memberships', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('has_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('exports_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_import_entities_import').on('bulk_import_entities').columns(['bulk_import_id', 'id']).execute();

  await withId(db, db.schema.createTable('bulk_import_trackers'))
    .addColumn('entity_id', 'integer', (c) => c.notNull().references('bulk_import_entities.id').onDelete('cascade'))
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('stage', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // created | started | finished | failed | canceled
    .addColumn('cursor', 'text') // next page or batch (JSON), null before the first
    .addColumn('source_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fetched_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('imported_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_import_trackers_entity_relation').on('bulk_import_trackers').columns(['entity_id', 'relation']).unique().execute();

  await withId(db, db.schema.createTable('bulk_import_failures'))
    .addColumn('entity_id', 'integer', (c) => c.notNull().references('bulk_import_entities.id').onDelete('cascade'))
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('exception_message', 'text', (c) => c.notNull())
    .addColumn('exception_class', 'text', (c) => c.notNull())
    .addColumn('correlation_id_value', 'text')
    .addColumn('pipeline_class', 'text', (c) => c.notNull())
    .addColumn('source_url', 'text')
    .addColumn('source_title', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_import_failures_entity').on('bulk_import_failures').columns(['entity_id', 'id']).execute();

  await db.schema
    .createTable('bulk_import_source_ids')
    .addColumn('entity_id', 'integer', (c) => c.notNull().references('bulk_import_entities.id').onDelete('cascade'))
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('destination_id', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_import_source_ids_key').on('bulk_import_source_ids').columns(['entity_id', 'relation', 'source_id']).unique().execute();

  await withId(db, db.schema.createTable('bulk_import_exports'))
    .addColumn('owner_kind', 'text', (c) => c.notNull()) // group | project
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull()) // 0 started, 1 finished, -1 failed (GitLab's values)
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bulk_import_exports_owner').on('bulk_import_exports').columns(['owner_kind', 'owner_id', 'relation']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['bulk_import_exports', 'bulk_import_source_ids', 'bulk_import_failures', 'bulk_import_trackers', 'bulk_import_entities', 'bulk_imports']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
