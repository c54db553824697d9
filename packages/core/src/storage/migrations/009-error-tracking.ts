import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Error tracking (integrated backend): project settings, client keys, errors grouped by
 * fingerprint with their events, distinct users and hourly counts, and sessions per release.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('error_tracking_settings'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('integrated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_settings_project').on('error_tracking_settings').columns(['project_id']).unique().execute();

  await withId(db, db.schema.createTable('error_tracking_client_keys'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_client_keys_key').on('error_tracking_client_keys').columns(['public_key']).unique().execute();
  await db.schema.createIndex('error_tracking_client_keys_project').on('error_tracking_client_keys').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('error_tracking_errors'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('type', 'text')
    .addColumn('message', 'text')
    .addColumn('culprit', 'text')
    .addColumn('platform', 'text')
    .addColumn('level', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('unresolved'))
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('user_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('first_release', 'text')
    .addColumn('last_release', 'text')
    .addColumn('last_event_id', 'text')
    .addColumn('stack_trace', 'text')
    .addColumn('issue_id', 'integer', (c) => c.references('issues.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_errors_fingerprint').on('error_tracking_errors').columns(['project_id', 'fingerprint']).unique().execute();
  await db.schema.createIndex('error_tracking_errors_last_seen').on('error_tracking_errors').columns(['project_id', 'last_seen_at', 'id']).execute();
  await db.schema.createIndex('error_tracking_errors_first_seen').on('error_tracking_errors').columns(['project_id', 'first_seen_at', 'id']).execute();
  await db.schema.createIndex('error_tracking_errors_count').on('error_tracking_errors').columns(['project_id', 'event_count', 'id']).execute();
  await db.schema.createIndex('error_tracking_errors_purge').on('error_tracking_errors').columns(['last_seen_at']).execute();

  await withId(db, db.schema.createTable('error_tracking_error_events'))
    .addColumn('error_id', 'integer', (c) => c.notNull().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('level', 'text')
    .addColumn('environment', 'text')
    .addColumn('release', 'text')
    .addColumn('platform', 'text')
    .addColumn('message', 'text')
    .addColumn('user_key', 'text')
    .addColumn('user', 'text')
    .addColumn('stack_trace', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_error_events_error').on('error_tracking_error_events').columns(['error_id', 'occurred_at', 'id']).execute();
  await db.schema.createIndex('error_tracking_error_events_purge').on('error_tracking_error_events').columns(['occurred_at']).execute();

  await db.schema
    .createTable('error_tracking_error_users')
    .addColumn('error_id', 'integer', (c) => c.notNull().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('user_key', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_tracking_error_users_pk', ['error_id', 'user_key'])
    .execute();

  await db.schema
    .createTable('error_tracking_error_frequency')
    .addColumn('error_id', 'integer', (c) => c.notNull().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('hour_start', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_tracking_error_frequency_pk', ['error_id', 'hour_start'])
    .execute();
  await db.schema.createIndex('error_tracking_error_frequency_purge').on('error_tracking_error_frequency').columns(['hour_start']).execute();

  await withId(db, db.schema.createTable('error_tracking_sessions'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('release', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_sessions_sid').on('error_tracking_sessions').columns(['project_id', 'sid']).unique().execute();
  await db.schema.createIndex('error_tracking_sessions_release').on('error_tracking_sessions').columns(['project_id', 'release', 'environment']).execute();
  await db.schema.createIndex('error_tracking_sessions_purge').on('error_tracking_sessions').columns(['updated_at']).execute();

  await withId(db, db.schema.createTable('error_tracking_session_aggregates'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('release', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('exited', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('errored', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('crashed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('abnormal', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('error_tracking_session_aggregates_release').on('error_tracking_session_aggregates').columns(['project_id', 'release', 'environment']).unique().execute();
  await db.schema.createIndex('error_tracking_session_aggregates_purge').on('error_tracking_session_aggregates').columns(['last_seen_at']).execute();
}
