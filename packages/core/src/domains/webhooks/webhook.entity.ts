/** The wire shapes of hooks and their deliveries: GitLab's Entities::Hook, ProjectHook, EE GroupHook and WebHookLog. */
import type { SecretBox } from '../../kernel/secrets.js';
import { alertStatusOf } from './auto-disabling.js';
import type { WebHookLogRow, WebHookRow } from './webhook.table.js';

export interface HookKeyEntity {
  key: string;
}

/** Entities::Hook (system hooks answer exactly this). */
export interface HookEntity {
  id: number;
  url: string;
  name: string | null;
  description: string | null;
  created_at: string;
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  repository_update_events: boolean;
  enable_ssl_verification: boolean;
  organization_id?: number;
  alert_status: 'executable' | 'temporarily_disabled' | 'disabled';
  disabled_until: string | null;
  url_variables: HookKeyEntity[];
  push_events_branch_filter: string | null;
  branch_filter_strategy: string;
  custom_webhook_template: string | null;
  custom_headers: HookKeyEntity[];
}

interface IssuableHookEvents {
  issues_events: boolean;
  confidential_issues_events: boolean;
  note_events: boolean;
  confidential_note_events: boolean;
  pipeline_events: boolean;
  wiki_page_events: boolean;
  deployment_events: boolean;
  feature_flag_events: boolean;
  job_events: boolean;
  releases_events: boolean;
  milestone_events: boolean;
  emoji_events: boolean;
  resource_access_token_events: boolean;
  resource_deploy_token_events: boolean;
  vulnerability_events: boolean;
}

/** Entities::ProjectHook. */
export interface ProjectHookEntity extends HookEntity, IssuableHookEvents {
  project_id: number;
}

/** EE::API::Entities::GroupHook. */
export interface GroupHookEntity extends HookEntity, IssuableHookEvents {
  group_id: number;
  subgroup_events: boolean;
  member_events: boolean;
  project_events: boolean;
}

/** Entities::WebHookLog. */
export interface HookLogEntity {
  id: number;
  url: string;
  trigger: string;
  request_headers: Record<string, string>;
  request_data: unknown;
  response_headers: Record<string, string>;
  response_body: string;
  execution_duration: number;
  response_status: string;
  created_at: string;
}

/** The keys of a sealed `{key: value}` column, in insertion order (GitLab's masked_url_variables / masked_custom_headers). */
export function sealedKeys(secrets: SecretBox, sealed: string | null): HookKeyEntity[] {
  return Object.keys(openSealedMap(secrets, sealed)).map((key) => ({ key }));
}

export function openSealedMap(secrets: SecretBox, sealed: string | null): Record<string, string> {
  return sealed ? (JSON.parse(secrets.decrypt(sealed)) as Record<string, string>) : {};
}

function toHookEntity(secrets: SecretBox, row: WebHookRow, now: Date): HookEntity {
  return {
    id: row.id,
    url: secrets.decrypt(row.url_encrypted),
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    push_events: row.push_events === 1,
    tag_push_events: row.tag_push_events === 1,
    merge_requests_events: row.merge_requests_events === 1,
    repository_update_events: row.repository_update_events === 1,
    enable_ssl_verification: row.enable_ssl_verification === 1,
    ...(row.type === 'SystemHook' ? { organization_id: 1 } : {}),
    alert_status: alertStatusOf(row, now),
    disabled_until: row.disabled_until,
    url_variables: sealedKeys(secrets, row.url_variables_encrypted),
    push_events_branch_filter: row.push_events_branch_filter,
    branch_filter_strategy: row.branch_filter_strategy,
    custom_webhook_template: row.custom_webhook_template,
    custom_headers: sealedKeys(secrets, row.custom_headers_encrypted),
  };
}

function issuableEvents(row: WebHookRow): IssuableHookEvents {
  return {
    issues_events: row.issues_events === 1,
    confidential_issues_events: row.confidential_issues_events === 1,
    note_events: row.note_events === 1,
    confidential_note_events: row.confidential_note_events === 1,
    pipeline_events: row.pipeline_events === 1,
    wiki_page_events: row.wiki_page_events === 1,
    deployment_events: row.deployment_events === 1,
    feature_flag_events: row.feature_flag_events === 1,
    job_events: row.job_events === 1,
    releases_events: row.releases_events === 1,
    milestone_events: row.milestone_events === 1,
    emoji_events: row.emoji_events === 1,
    resource_access_token_events: row.resource_access_token_events === 1,
    resource_deploy_token_events: row.resource_deploy_token_events === 1,
    vulnerability_events: row.vulnerability_events === 1,
  };
}

export function toSystemHookEntity(secrets: SecretBox, row: WebHookRow, now: Date): HookEntity {
  return toHookEntity(secrets, row, now);
}

export function toProjectHookEntity(secrets: SecretBox, row: WebHookRow, now: Date): ProjectHookEntity {
  return { ...toHookEntity(secrets, row, now), project_id: row.project_id!, ...issuableEvents(row) };
}

export function toGroupHookEntity(secrets: SecretBox, row: WebHookRow, now: Date): GroupHookEntity {
  return {
    ...toHookEntity(secrets, row, now),
    group_id: row.group_id!,
    ...issuableEvents(row),
    subgroup_events: row.subgroup_events === 1,
    member_events: row.member_events === 1,
    project_events: row.project_events === 1,
  };
}

export function toHookLogEntity(row: WebHookLogRow): HookLogEntity {
  return {
    id: row.id,
    url: row.url,
    trigger: row.trigger,
    request_headers: JSON.parse(row.request_headers) as Record<string, string>,
    request_data: JSON.parse(row.request_data) as unknown,
    response_headers: JSON.parse(row.response_headers) as Record<string, string>,
    response_body: row.response_body,
    execution_duration: row.execution_duration,
    response_status: row.response_status,
    created_at: row.created_at,
  };
}
