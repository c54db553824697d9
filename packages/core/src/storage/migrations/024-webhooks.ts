import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/** Boolean event switches of a hook (0/1), as GitLab's web_hooks columns. */
const HOOK_EVENT_COLUMNS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events',
  'note_events', 'confidential_note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events',
  'feature_flag_events', 'releases_events', 'milestone_events', 'emoji_events', 'resource_access_token_events',
  'resource_deploy_token_events', 'vulnerability_events', 'member_events', 'subgroup_events', 'project_events',
  'repository_update_events',
] as const;

/**
 * Webhooks (domains/webhooks): project, group and system hooks in one table (GitLab's
 * web_hooks with its `type`), their URL, token, custom headers and URL variables sealed with the
 * instance key; the failure state of GitLab's auto-disabling (`recent_failures`,
 * `disabled_until`); and the recent deliveries (web_hook_logs) with request and response.
 */
export async function up(db: Kysely<any>): Promise<void> {
  let hooks = withId(db, db.schema.createTable('web_hooks'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('url_encrypted', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('description', 'text')
    .addColumn('token_encrypted', 'text')
    .addColumn('custom_headers_encrypted', 'text')
    .addColumn('url_variables_encrypted', 'text')
    .addColumn('push_events_branch_filter', 'text')
    .addColumn('branch_filter_strategy', 'text', (c) => c.notNull().defaultTo('wildcard'))
    .addColumn('custom_webhook_template', 'text')
    .addColumn('enable_ssl_verification', 'integer', (c) => c.notNull().defaultTo(1));
  for (const column of HOOK_EVENT_COLUMNS) hooks = hooks.addColumn(column, 'integer', (c) => c.notNull().defaultTo(column === 'push_events' ? 1 : 0));
  await hooks
    .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_hooks_project_id').on('web_hooks').column('project_id').execute();
  await db.schema.createIndex('web_hooks_group_id').on('web_hooks').column('group_id').execute();
  await db.schema.createIndex('web_hooks_type').on('web_hooks').column('type').execute();

  await withId(db, db.schema.createTable('web_hook_logs'))
    .addColumn('web_hook_id', 'integer', (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('request_data', 'text', (c) => c.notNull())
    .addColumn('response_headers', 'text', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('response_status', 'text', (c) => c.notNull())
    .addColumn('execution_duration', 'double precision', (c) => c.notNull())
    .addColumn('internal_error_message', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_hook_logs_hook_created').on('web_hook_logs').columns(['web_hook_id', 'created_at']).execute();
}
