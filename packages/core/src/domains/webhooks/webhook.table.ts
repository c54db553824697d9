import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type HookType = 'ProjectHook' | 'GroupHook' | 'SystemHook';

/** The event switches of a hook (0/1 columns). */
export const HOOK_EVENT_COLUMNS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events',
  'note_events', 'confidential_note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events',
  'feature_flag_events', 'releases_events', 'milestone_events', 'emoji_events', 'resource_access_token_events',
  'resource_deploy_token_events', 'vulnerability_events', 'member_events', 'subgroup_events', 'project_events',
  'repository_update_events',
] as const;
export type HookEventColumn = (typeof HOOK_EVENT_COLUMNS)[number];

/** GitLab's web_hooks: one row per project, group or system hook. */
export interface WebHookTable {
  id: Generated<number>;
  type: HookType;
  project_id: number | null;
  group_id: number | null;
  /** The URL as given (may hold `{variable}` placeholders and credentials), sealed. */
  url_encrypted: string;
  name: string | null;
  description: string | null;
  token_encrypted: string | null;
  /** JSON object header → value, sealed; values are never answered. */
  custom_headers_encrypted: string | null;
  /** JSON object key → value, sealed; values are never answered. */
  url_variables_encrypted: string | null;
  push_events_branch_filter: string | null;
  branch_filter_strategy: Generated<string>;
  custom_webhook_template: string | null;
  enable_ssl_verification: Generated<number>;
  push_events: Generated<number>;
  tag_push_events: Generated<number>;
  issues_events: Generated<number>;
  confidential_issues_events: Generated<number>;
  merge_requests_events: Generated<number>;
  note_events: Generated<number>;
  confidential_note_events: Generated<number>;
  job_events: Generated<number>;
  pipeline_events: Generated<number>;
  wiki_page_events: Generated<number>;
  deployment_events: Generated<number>;
  feature_flag_events: Generated<number>;
  releases_events: Generated<number>;
  milestone_events: Generated<number>;
  emoji_events: Generated<number>;
  resource_access_token_events: Generated<number>;
  resource_deploy_token_events: Generated<number>;
  vulnerability_events: Generated<number>;
  member_events: Generated<number>;
  subgroup_events: Generated<number>;
  project_events: Generated<number>;
  repository_update_events: Generated<number>;
  /** Consecutive failed deliveries (GitLab's auto-disabling). */
  recent_failures: Generated<number>;
  disabled_until: string | null;
  created_at: string;
  updated_at: string;
}
export type WebHookRow = Selectable<WebHookTable>;
export type NewWebHookRow = Insertable<WebHookTable>;
export type WebHookUpdate = Updateable<WebHookTable>;

/** One delivery (GitLab's web_hook_logs). JSON columns as text. */
export interface WebHookLogTable {
  id: Generated<number>;
  web_hook_id: number;
  trigger: string;
  url: string;
  request_headers: string;
  request_data: string;
  response_headers: string;
  response_body: string;
  response_status: string;
  execution_duration: number;
  internal_error_message: string | null;
  created_at: string;
}
export type WebHookLogRow = Selectable<WebHookLogTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    web_hooks: WebHookTable;
    web_hook_logs: WebHookLogTable;
  }
}
