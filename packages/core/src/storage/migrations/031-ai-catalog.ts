import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * The AI catalog (GitLab's Ai::Catalog): items (agents and flows) owned by a project, their
 * versions with a definition, and item consumers enabling an item for a project or a group.
 * A flow started from a consumer keeps the configuration it took (`ai_flows.flow_config`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ai_catalog_items'))
    .addColumn('item_type', 'text', (c) => c.notNull()) // agent | flow
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('public', 'integer', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('latest_version_id', 'integer')
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('deleted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_catalog_items_project').on('ai_catalog_items').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('ai_catalog_item_versions'))
    .addColumn('item_id', 'integer', (c) => c.notNull().references('ai_catalog_items.id').onDelete('cascade'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('schema_version', 'integer', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull()) // JSON object
    .addColumn('release_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ai_catalog_item_versions_item_version', ['item_id', 'version'])
    .execute();

  await withId(db, db.schema.createTable('ai_catalog_item_consumers'))
    .addColumn('item_id', 'integer', (c) => c.notNull().references('ai_catalog_items.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('pinned_version_prefix', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // One consumer per item and container ("Item already configured"); NULLs never collide.
    .addUniqueConstraint('ai_catalog_item_consumers_project_item', ['project_id', 'item_id'])
    .addUniqueConstraint('ai_catalog_item_consumers_group_item', ['group_id', 'item_id'])
    .execute();
  await db.schema.createIndex('ai_catalog_item_consumers_item').on('ai_catalog_item_consumers').columns(['item_id']).execute();

  await db.schema.alterTable('ai_flows').addColumn('flow_config', 'text').execute();
}
