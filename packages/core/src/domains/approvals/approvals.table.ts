import type { Generated, Insertable, Selectable } from 'kysely';

/** One row per project that changed its approval settings; absent rows mean GitLab's defaults. */
export interface ProjectApprovalSettingsTable {
  project_id: number;
  reset_approvals_on_push: Generated<number>;
  selective_code_owner_removals: Generated<number>;
  disable_overriding_approvers_per_merge_request: Generated<number>;
  merge_requests_author_approval: Generated<number>;
  merge_requests_disable_committers_approval: Generated<number>;
  /** Also answered as the deprecated `require_password_to_approve`. */
  require_reauthentication_to_approve: Generated<number>;
  updated_at: string;
}
export type ProjectApprovalSettingsRow = Selectable<ProjectApprovalSettingsTable>;

export type ApprovalRuleType = 'any_approver' | 'regular' | 'report_approver' | 'code_owner';

/** Project rules (`merge_request_id` null) and merge request rules. */
export interface ApprovalRuleTable {
  id: Generated<number>;
  project_id: number;
  merge_request_id: number | null;
  name: string;
  rule_type: ApprovalRuleType;
  report_type: string | null;
  approvals_required: number;
  applies_to_all_protected_branches: Generated<number>;
  /** A merge request rule copied from a project rule (`approval_project_rule_id`). */
  source_rule_id: number | null;
  created_at: string;
  updated_at: string;
}
export type ApprovalRuleRow = Selectable<ApprovalRuleTable>;
export type NewApprovalRuleRow = Insertable<ApprovalRuleTable>;

export interface ApprovalRuleUserTable {
  id: Generated<number>;
  rule_id: number;
  user_id: number;
}

export interface ApprovalRuleGroupTable {
  id: Generated<number>;
  rule_id: number;
  group_id: number;
}

export interface ApprovalRuleProtectedBranchTable {
  id: Generated<number>;
  rule_id: number;
  protected_branch_id: number;
}

export interface MergeRequestApprovalTable {
  id: Generated<number>;
  merge_request_id: number;
  user_id: number;
  created_at: string;
}
export type MergeRequestApprovalRow = Selectable<MergeRequestApprovalTable>;

/** A push the queue has not processed yet (see on-push.ts). */
export interface MergeRequestApprovalSyncTable {
  merge_request_id: number;
  sha: string;
  /** 1 when the push reset the approvals (`approvals_syncing`), 0 otherwise (`checking`). */
  approvals_reset: Generated<number>;
  created_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    project_approval_settings: ProjectApprovalSettingsTable;
    approval_rules: ApprovalRuleTable;
    approval_rule_users: ApprovalRuleUserTable;
    approval_rule_groups: ApprovalRuleGroupTable;
    approval_rule_protected_branches: ApprovalRuleProtectedBranchTable;
    merge_request_approvals: MergeRequestApprovalTable;
    merge_request_approval_syncs: MergeRequestApprovalSyncTable;
  }
}
