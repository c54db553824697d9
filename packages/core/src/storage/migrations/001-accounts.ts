import { sql, type Kysely } from 'kysely';
import { createLowerIndex, withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot_kind', 'text')
    .addColumn('namespace_id', 'integer')
    .addColumn('bio', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('location', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('public_email', 'text')
    .addColumn('website_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('job_title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('organization', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('can_create_group', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('projects_limit', 'integer', (c) => c.notNull().defaultTo(100000))
    .addColumn('external', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_activity_on', 'text')
    .execute();
  await createLowerIndex(db, 'users_username_lower', 'users', 'username', true);
  await createLowerIndex(db, 'users_email_lower', 'users', 'email', true);

  await withId(db, db.schema.createTable('namespaces'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('full_path', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id'))
    .addColumn('traversal', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('owner_id', 'integer')
    .addColumn('default_branch', 'text')
    .addColumn('project_creation_level', 'text', (c) => c.notNull().defaultTo('developer'))
    .addColumn('subgroup_creation_level', 'text', (c) => c.notNull().defaultTo('maintainer'))
    .addColumn('request_access_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('share_with_group_lock', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('require_two_factor_authentication', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lfs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await createLowerIndex(db, 'namespaces_full_path_lower', 'namespaces', 'full_path', true);
  await db.schema.createIndex('namespaces_parent').on('namespaces').columns(['parent_id', 'id']).execute();
  await db.schema.createIndex('namespaces_traversal').on('namespaces').column('traversal').execute();

  await withId(db, db.schema.createTable('projects'))
    .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('path_with_namespace', 'text', (c) => c.notNull())
    .addColumn('name_with_namespace', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('default_branch', 'text', (c) => c.notNull().defaultTo('main'))
    .addColumn('creator_id', 'integer')
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('topics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('issues_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('merge_requests_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('jobs_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('wiki_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('snippets_enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .execute();
  await createLowerIndex(db, 'projects_path_lower', 'projects', 'path_with_namespace', true);
  await db.schema.createIndex('projects_namespace').on('projects').columns(['namespace_id', 'id']).execute();
  // Project lists sort by created_at by default, within a namespace or instance-wide.
  await db.schema.createIndex('projects_namespace_created').on('projects').columns(['namespace_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('projects_created').on('projects').columns(['created_at', 'id']).execute();

  await withId(db, db.schema.createTable('redirect_routes'))
    .addColumn('path_lower', 'text', (c) => c.notNull())
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('redirect_routes_path').on('redirect_routes').columns(['path_lower', 'source_kind']).unique().execute();

  await withId(db, db.schema.createTable('members'))
    .addColumn('source_kind', 'text', (c) => c.notNull())
    .addColumn('source_id', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('member_role_id', 'integer')
    .addColumn('created_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('members_source_user').on('members').columns(['source_kind', 'source_id', 'user_id']).unique().execute();
  await db.schema.createIndex('members_user').on('members').columns(['user_id', 'source_kind']).execute();

  await withId(db, db.schema.createTable('access_tokens'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_used_at', 'text')
    .addColumn('resource_kind', 'text')
    .addColumn('resource_id', 'integer')
    .addColumn('access_level', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('access_tokens_user').on('access_tokens').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('access_tokens_resource').on('access_tokens').columns(['resource_kind', 'resource_id', 'id']).execute();

  await withId(db, db.schema.createTable('queue_jobs'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('unique_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('queue_jobs_due').on('queue_jobs').columns(['status', 'run_at', 'id']).execute();
  // At most one pending job per unique_key, enforced by the database (no check-then-insert race).
  await db.schema
    .createIndex('queue_jobs_pending_unique')
    .on('queue_jobs')
    .column('unique_key')
    .unique()
    .where(sql<boolean>`status = 'pending'`)
    .execute();

  await db.schema
    .createTable('internal_ids')
    .addColumn('usage', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('internal_ids_pk', ['usage', 'scope'])
    .execute();
}
