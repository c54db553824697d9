import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Repository refs without git: commits (with their parents, for ancestry walks), branches and
 * tags, the latest content of each file per ref (content-addressed blobs shared by refs),
 * protected branches; then releases and their asset links.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('repository_commits'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('parent_ids', 'text', (c) => c.notNull().defaultTo('[]')) // JSON array of shas
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('author_name', 'text', (c) => c.notNull())
    .addColumn('author_email', 'text', (c) => c.notNull())
    .addColumn('authored_date', 'text', (c) => c.notNull())
    .addColumn('committer_name', 'text', (c) => c.notNull())
    .addColumn('committer_email', 'text', (c) => c.notNull())
    .addColumn('committed_date', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer') // the Forgelet user who recorded it, when known
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('repository_commits_sha').on('repository_commits').columns(['project_id', 'sha']).unique().execute();
  await db.schema.createIndex('repository_commits_date').on('repository_commits').columns(['project_id', 'committed_date', 'id']).execute();

  await withId(db, db.schema.createTable('repository_commit_parents'))
    .addColumn('commit_id', 'integer', (c) => c.notNull().references('repository_commits.id').onDelete('cascade'))
    .addColumn('parent_sha', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('repository_commit_parents_commit').on('repository_commit_parents').columns(['commit_id', 'position']).execute();

  await withId(db, db.schema.createTable('repository_refs'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull()) // branch | tag
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('commit_sha', 'text', (c) => c.notNull())
    .addColumn('message', 'text') // annotated tags
    .addColumn('tagger_name', 'text')
    .addColumn('tagger_email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('repository_refs_name').on('repository_refs').columns(['project_id', 'kind', 'name']).unique().execute();
  await db.schema.createIndex('repository_refs_commit').on('repository_refs').columns(['project_id', 'commit_sha']).execute();

  await withId(db, db.schema.createTable('repository_blobs'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('sha', 'text', (c) => c.notNull()) // git blob id: sha1("blob <size>\0" + content)
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull()) // base64
    .execute();
  await db.schema.createIndex('repository_blobs_sha').on('repository_blobs').columns(['project_id', 'sha']).unique().execute();

  await withId(db, db.schema.createTable('repository_files'))
    .addColumn('ref_id', 'integer', (c) => c.notNull().references('repository_refs.id').onDelete('cascade'))
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('blob_sha', 'text', (c) => c.notNull())
    .addColumn('last_commit_sha', 'text', (c) => c.notNull())
    .addColumn('executable', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('repository_files_path').on('repository_files').columns(['ref_id', 'path']).unique().execute();

  await withId(db, db.schema.createTable('protected_branches'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull()) // exact name or wildcard (`release/*`)
    .addColumn('allow_force_push', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('code_owner_approval_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('protected_branches_name').on('protected_branches').columns(['project_id', 'name']).unique().execute();

  await withId(db, db.schema.createTable('protected_branch_access_levels'))
    .addColumn('protected_branch_id', 'integer', (c) => c.notNull().references('protected_branches.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull()) // push | merge | unprotect
    .addColumn('access_level', 'integer') // null when user_id or group_id is set
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('protected_branch_access_levels_branch').on('protected_branch_access_levels').columns(['protected_branch_id', 'action']).execute();

  await withId(db, db.schema.createTable('releases'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('tag_name', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('author_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('sha', 'text', (c) => c.notNull()) // the tag's commit when the release was made
    .addColumn('released_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('releases_tag').on('releases').columns(['project_id', 'tag_name']).unique().execute();
  await db.schema.createIndex('releases_released_at').on('releases').columns(['project_id', 'released_at', 'id']).execute();
  await db.schema.createIndex('releases_created_at').on('releases').columns(['project_id', 'created_at', 'id']).execute();

  await withId(db, db.schema.createTable('release_milestones'))
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('milestone_id', 'integer', (c) => c.notNull().references('milestones.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('release_milestones_unique').on('release_milestones').columns(['release_id', 'milestone_id']).unique().execute();
  await db.schema.createIndex('release_milestones_milestone').on('release_milestones').columns(['milestone_id']).execute();

  await withId(db, db.schema.createTable('release_links'))
    .addColumn('release_id', 'integer', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('filepath', 'text') // direct_asset_path
    .addColumn('link_type', 'text', (c) => c.notNull().defaultTo('other'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('release_links_name').on('release_links').columns(['release_id', 'name']).unique().execute();
  await db.schema.createIndex('release_links_url').on('release_links').columns(['release_id', 'url']).unique().execute();
  await db.schema.createIndex('release_links_filepath').on('release_links').columns(['release_id', 'filepath']).unique().execute();
}
