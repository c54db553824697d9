import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('issues'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('issue_type', 'text', (c) => c.notNull().defaultTo('issue'))
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('discussion_locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('milestone_id', 'integer')
    .addColumn('due_date', 'text')
    .addColumn('weight', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('closed_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('issues_project_iid').on('issues').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('issues_project_state').on('issues').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('issues_created').on('issues').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('issues_milestone').on('issues').column('milestone_id').execute();

  await db.schema
    .createTable('issue_assignees')
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_assignees_pk', ['issue_id', 'user_id'])
    .execute();
  await db.schema.createIndex('issue_assignees_user').on('issue_assignees').column('user_id').execute();

  await withId(db, db.schema.createTable('labels'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index labels_project_title on labels (project_id, lower(title))`.execute(db);
  await sql`create unique index labels_group_title on labels (group_id, lower(title))`.execute(db);

  await withId(db, db.schema.createTable('label_links'))
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('label_links_unique').on('label_links').columns(['label_id', 'target_type', 'target_id']).unique().execute();
  await db.schema.createIndex('label_links_target').on('label_links').columns(['target_type', 'target_id']).execute();

  await withId(db, db.schema.createTable('merge_requests'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('source_branch', 'text', (c) => c.notNull())
    .addColumn('target_branch', 'text', (c) => c.notNull())
    .addColumn('source_project_id', 'integer', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('milestone_id', 'integer')
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('merge_commit_sha', 'text')
    .addColumn('squash_commit_sha', 'text')
    .addColumn('draft', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('squash', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('should_remove_source_branch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('discussion_locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('merged_at', 'text')
    .addColumn('merged_by_id', 'integer')
    .addColumn('closed_at', 'text')
    .addColumn('closed_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('merge_requests_project_iid').on('merge_requests').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('merge_requests_project_state').on('merge_requests').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('merge_requests_source').on('merge_requests').columns(['source_project_id', 'source_branch']).execute();
  await db.schema.createIndex('merge_requests_milestone').on('merge_requests').column('milestone_id').execute();

  for (const table of ['merge_request_assignees', 'merge_request_reviewers']) {
    await db.schema
      .createTable(table)
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint(`${table}_pk`, ['merge_request_id', 'user_id'])
      .execute();
    await db.schema.createIndex(`${table}_user`).on(table).column('user_id').execute();
  }

  await withId(db, db.schema.createTable('snippets'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('snippets_project').on('snippets').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('notes'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('noteable_type', 'text', (c) => c.notNull())
    .addColumn('noteable_id', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('system', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('internal', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notes_noteable').on('notes').columns(['noteable_type', 'noteable_id', 'id']).execute();

  await withId(db, db.schema.createTable('award_emoji'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('awardable_type', 'text', (c) => c.notNull())
    .addColumn('awardable_id', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('award_emoji_unique').on('award_emoji').columns(['user_id', 'awardable_type', 'awardable_id', 'name']).unique().execute();
  await db.schema.createIndex('award_emoji_awardable').on('award_emoji').columns(['awardable_type', 'awardable_id', 'id']).execute();

  await withId(db, db.schema.createTable('resource_state_events'))
    .addColumn('user_id', 'integer')
    .addColumn('issue_id', 'integer', (c) => c.references('issues.id').onDelete('cascade'))
    .addColumn('merge_request_id', 'integer', (c) => c.references('merge_requests.id').onDelete('cascade'))
    .addColumn('epic_id', 'integer')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('source_commit', 'text')
    .addColumn('source_merge_request_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('state_events_issue').on('resource_state_events').columns(['issue_id', 'id']).execute();
  await db.schema.createIndex('state_events_mr').on('resource_state_events').columns(['merge_request_id', 'id']).execute();
  await db.schema.createIndex('state_events_epic').on('resource_state_events').columns(['epic_id', 'id']).execute();
}
