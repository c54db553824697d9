import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Protected tags (GitLab's `protected_tags` and `protected_tag_create_access_levels`): a tag
 * name or wildcard, and who may create matching tags (a role, or on Premium a user or group).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('protected_tags'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull()) // exact name or wildcard (`v*`)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('protected_tags_name').on('protected_tags').columns(['project_id', 'name']).unique().execute();

  await withId(db, db.schema.createTable('protected_tag_create_access_levels'))
    .addColumn('protected_tag_id', 'integer', (c) => c.notNull().references('protected_tags.id').onDelete('cascade'))
    .addColumn('access_level', 'integer') // null when user_id or group_id is set
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('protected_tag_create_access_levels_tag').on('protected_tag_create_access_levels').column('protected_tag_id').execute();
}
