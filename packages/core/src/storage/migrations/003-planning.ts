import { sql, type Kysely } from 'kysely';
import { withId } from './helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('labels').addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await withId(db, db.schema.createTable('label_subscriptions'))
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('label_subscriptions_unique').on('label_subscriptions').columns(['label_id', 'user_id']).unique().execute();

  await withId(db, db.schema.createTable('milestones'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('start_date', 'text')
    .addColumn('due_date', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('milestones_project').on('milestones').columns(['project_id', 'iid']).execute();
  await db.schema.createIndex('milestones_group').on('milestones').columns(['group_id', 'iid']).execute();
  await sql`create unique index milestones_project_title on milestones (project_id, lower(title))`.execute(db);
  await sql`create unique index milestones_group_title on milestones (group_id, lower(title))`.execute(db);

  await withId(db, db.schema.createTable('iteration_cadences'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('duration_in_weeks', 'integer')
    .addColumn('iterations_in_advance', 'integer')
    .addColumn('automatic', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('roll_over', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('iteration_cadences_group').on('iteration_cadences').columns(['group_id', 'id']).execute();

  await withId(db, db.schema.createTable('iterations'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('iteration_cadence_id', 'integer', (c) => c.notNull().references('iteration_cadences.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('start_date', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('iterations_group').on('iterations').columns(['group_id', 'due_date', 'id']).execute();
  await db.schema.createIndex('iterations_cadence').on('iterations').columns(['iteration_cadence_id', 'start_date']).execute();

  await withId(db, db.schema.createTable('epics'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    .addColumn('author_id', 'integer', (c) => c.notNull())
    .addColumn('parent_id', 'integer', (c) => c.references('epics.id').onDelete('set null'))
    .addColumn('relative_position', 'integer')
    .addColumn('confidential', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('start_date_fixed', 'text')
    .addColumn('start_date_is_fixed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('due_date_fixed', 'text')
    .addColumn('due_date_is_fixed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('color', 'text', (c) => c.notNull().defaultTo('#1068bf'))
    .addColumn('closed_at', 'text')
    .addColumn('closed_by_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('epics_group_iid').on('epics').columns(['group_id', 'iid']).unique().execute();
  await db.schema.createIndex('epics_parent').on('epics').columns(['parent_id', 'relative_position', 'id']).execute();
}
