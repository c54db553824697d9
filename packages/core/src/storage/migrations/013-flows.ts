import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Agent flows: the flows (GitLab's Duo Workflows) with their checkpoints, the flow callback
 * endpoints of the (single, default) organization and their owners, and the durable record of
 * every callback delivery and attempt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ai_flows'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('namespace_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('workflow_definition', 'text')
    .addColumn('goal', 'text')
    .addColumn('agent_privileges', 'text', (c) => c.notNull()) // JSON integer array
    .addColumn('pre_approved_agent_privileges', 'text', (c) => c.notNull()) // JSON integer array
    .addColumn('allow_agent_to_request_user', 'integer', (c) => c.notNull())
    .addColumn('shallow_clone', 'integer', (c) => c.notNull())
    .addColumn('image', 'text')
    .addColumn('environment', 'text')
    .addColumn('source', 'text')
    .addColumn('source_branch', 'text')
    .addColumn('issue_iid', 'integer')
    .addColumn('merge_request_iid', 'integer')
    .addColumn('ai_catalog_item_version_id', 'integer')
    .addColumn('ai_catalog_item_consumer_id', 'integer')
    .addColumn('additional_context', 'text', (c) => c.notNull()) // JSON array
    .addColumn('mcp_enabled', 'integer', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('callback_id', 'integer')
    .addColumn('pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
    .addColumn('job_id', 'integer', (c) => c.references('ci_jobs.id').onDelete('set null'))
    .addColumn('access_token_id', 'integer', (c) => c.references('access_tokens.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_flows_user').on('ai_flows').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('ai_flows_job').on('ai_flows').columns(['job_id']).execute();

  await withId(db, db.schema.createTable('ai_flow_checkpoints'))
    .addColumn('flow_id', 'integer', (c) => c.notNull().references('ai_flows.id').onDelete('cascade'))
    .addColumn('thread_ts', 'text', (c) => c.notNull())
    .addColumn('parent_ts', 'text')
    .addColumn('checkpoint', 'text', (c) => c.notNull()) // JSON
    .addColumn('metadata', 'text', (c) => c.notNull()) // JSON
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_flow_checkpoints_flow').on('ai_flow_checkpoints').columns(['flow_id', 'id']).execute();

  await db.schema
    .createTable('organization_owners')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('ai_flow_callbacks'))
    .addColumn('name', 'text')
    .addColumn('url_encrypted', 'text', (c) => c.notNull())
    .addColumn('signing_token_encrypted', 'text')
    .addColumn('token_encrypted', 'text')
    .addColumn('created_by_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await withId(db, db.schema.createTable('ai_flow_callback_deliveries'))
    .addColumn('callback_id', 'integer', (c) => c.notNull().references('ai_flow_callbacks.id').onDelete('cascade'))
    .addColumn('flow_id', 'integer', (c) => c.references('ai_flows.id').onDelete('set null'))
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull()) // pending | delivered | failed
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_flow_callback_deliveries_callback').on('ai_flow_callback_deliveries').columns(['callback_id', 'id']).execute();

  await withId(db, db.schema.createTable('ai_flow_callback_attempts'))
    .addColumn('delivery_id', 'integer', (c) => c.notNull().references('ai_flow_callback_deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ai_flow_callback_attempts_delivery').on('ai_flow_callback_attempts').columns(['delivery_id', 'attempt']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['ai_flow_callback_attempts', 'ai_flow_callback_deliveries', 'ai_flow_callbacks', 'organization_owners', 'ai_flow_checkpoints', 'ai_flows']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
