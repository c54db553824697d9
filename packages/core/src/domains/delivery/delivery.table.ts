import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export const ENVIRONMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;
export type EnvironmentTier = (typeof ENVIRONMENT_TIERS)[number];

export interface EnvironmentTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  tier: string;
  state: Generated<string>; // available | stopping | stopped
  description: string | null;
  auto_stop_at: string | null;
  auto_stop_setting: Generated<string>; // always | with_action
  created_at: string;
  updated_at: string;
}
export type EnvironmentRow = Selectable<EnvironmentTable>;
export type NewEnvironmentRow = Insertable<EnvironmentTable>;
export type EnvironmentUpdate = Updateable<EnvironmentTable>;

export const DEPLOYMENT_STATUSES = ['created', 'running', 'success', 'failed', 'canceled', 'skipped', 'blocked'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export interface DeploymentTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  environment_id: number;
  ref: string;
  tag: Generated<number>;
  sha: string;
  user_id: number | null;
  /** The CI job that deploys (null for deployments created through the API). */
  deployable_id: number | null;
  status: string;
  /** API deployments held `blocked` for approvals: the status they proceed to once approved. */
  requested_status: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}
export type DeploymentRow = Selectable<DeploymentTable>;
export type DeploymentUpdate = Updateable<DeploymentTable>;

export interface DeploymentMergeRequestTable {
  deployment_id: number;
  merge_request_id: number;
  environment_id: number;
}

/** Group-level (group_id) or project-level (project_id) protection of an environment name / tier. */
export interface ProtectedEnvironmentTable {
  id: Generated<number>;
  group_id: number | null;
  project_id: number | null;
  name: string;
  required_approval_count: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type ProtectedEnvironmentRow = Selectable<ProtectedEnvironmentTable>;

/** Who may deploy: exactly one of access_level, user_id, group_id. */
export interface ProtectedEnvironmentDeployAccessLevelTable {
  id: Generated<number>;
  protected_environment_id: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
  group_inheritance_type: Generated<number>; // 0 direct members, 1 inherited too
  created_at: string;
  updated_at: string;
}
export type DeployAccessLevelRow = Selectable<ProtectedEnvironmentDeployAccessLevelTable>;

/** Who must approve, and how many approvals from them. */
export interface ProtectedEnvironmentApprovalRuleTable extends ProtectedEnvironmentDeployAccessLevelTable {
  required_approvals: Generated<number>;
}
export type ApprovalRuleRow = Selectable<ProtectedEnvironmentApprovalRuleTable>;

export interface DeploymentApprovalTable {
  id: Generated<number>;
  deployment_id: number;
  user_id: number;
  approval_rule_id: number | null;
  status: string; // approved | rejected
  comment: string | null;
  created_at: string;
  updated_at: string;
}
export type DeploymentApprovalRow = Selectable<DeploymentApprovalTable>;

/** One UTC day of one project's environments of one tier. */
export interface DoraDailyMetricsTable {
  id: Generated<number>;
  project_id: number;
  environment_tier: string;
  date: string;
  deployment_frequency: Generated<number>;
  lead_time_for_changes_in_seconds: number | null;
  incidents_count: number | null;
  time_to_restore_service_in_seconds: number | null;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    environments: EnvironmentTable;
    deployments: DeploymentTable;
    deployment_merge_requests: DeploymentMergeRequestTable;
    deployment_approvals: DeploymentApprovalTable;
    protected_environments: ProtectedEnvironmentTable;
    protected_environment_deploy_access_levels: ProtectedEnvironmentDeployAccessLevelTable;
    protected_environment_approval_rules: ProtectedEnvironmentApprovalRuleTable;
    dora_daily_metrics: DoraDailyMetricsTable;
  }
}
