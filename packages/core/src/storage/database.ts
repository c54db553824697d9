/** The union of every domain's tables. */
import type { UserTable } from '../domains/accounts/user.table.js';
import type { NamespaceTable } from '../domains/accounts/namespace.table.js';
import type { ProjectTable, RedirectRouteTable } from '../domains/accounts/project.table.js';
import type { MemberTable } from '../domains/accounts/member.table.js';
import type { AccessTokenTable } from '../domains/accounts/access-token.table.js';
import type { InternalIdTable, QueueJobTable } from './queue.table.js';
import type { SecretKeyTable } from './sealed-columns.js';
import type { IssueAssigneeTable, IssueTable } from '../domains/issues/issue.table.js';
import type { LabelLinkTable, LabelSubscriptionTable, LabelTable } from '../domains/labels/label.table.js';
import type { MilestoneTable } from '../domains/milestones/milestone.table.js';
import type { IterationCadenceTable, IterationTable } from '../domains/iterations/iteration.table.js';
import type { EpicTable } from '../domains/epics/epic.table.js';
import type { MergeRequestTable, MergeRequestUserTable } from '../domains/merge-requests/merge-request.table.js';
import type { NoteTable } from '../domains/notes/note.table.js';
import type { SnippetTable } from '../domains/snippets/snippet.table.js';
import type { AwardEmojiTable } from '../domains/award-emoji/award-emoji.table.js';
import type { ResourceStateEventTable } from '../domains/state-events/state-event.table.js';
import type {
  ProtectedBranchAccessLevelTable,
  ProtectedBranchTable,
  RepositoryBlobTable,
  RepositoryCommitChangeTable,
  RepositoryCommitParentTable,
  RepositoryCommitTable,
  RepositoryFileTable,
  RepositoryRefTable,
} from '../domains/repository/repository.table.js';
import type {
  CiArtifactEntryTable,
  CiJobArtifactTable,
  CiJobTable,
  CiJobTraceChunkTable,
  CiPipelineTable,
  CiPipelineVariableTable,
  CiRegistrationTokenTable,
  CiRunnerScopeTable,
  CiRunnerTable,
} from '../domains/ci/ci.table.js';
import type {
  CiPipelineScheduleInputTable,
  CiPipelineScheduleTable,
  CiPipelineScheduleVariableTable,
} from '../domains/pipeline-schedules/pipeline-schedule.table.js';
import type { JobTokenGroupLinkTable, JobTokenProjectLinkTable, JobTokenSettingsTable } from '../domains/job-token-scope/job-token-scope.table.js';
import type { ApplicationSettingTable } from '../domains/application-settings/application-settings.js';
import type { ReleaseLinkTable, ReleaseMilestoneTable, ReleaseTable } from '../domains/releases/release.table.js';
import type {
  ApprovalRuleGroupTable,
  ApprovalRuleProtectedBranchTable,
  ApprovalRuleTable,
  ApprovalRuleUserTable,
  MergeRequestApprovalSyncTable,
  MergeRequestApprovalTable,
  ProjectApprovalSettingsTable,
} from '../domains/approvals/approvals.table.js';
import type { UserPasswordTable } from '../domains/accounts/passwords.js';
import type {
  ErrorTrackingClientKeyTable,
  ErrorTrackingErrorFrequencyTable,
  ErrorTrackingErrorTable,
  ErrorTrackingErrorUserTable,
  ErrorTrackingEventTable,
  ErrorTrackingSessionAggregateTable,
  ErrorTrackingSessionTable,
  ErrorTrackingSettingTable,
} from '../domains/error-tracking/error-tracking.table.js';
import type { MemberRoleTable } from '../domains/member-roles/member-role.table.js';
import type { BulkImportEntityTable, BulkImportExportTable, BulkImportFailureTable, BulkImportSourceIdTable, BulkImportTable, BulkImportTrackerTable } from '../domains/bulk-imports/bulk-import.table.js';
import type { NamespacePackageSettingTable, PackageFileTable, PackageSymbolTable, PackageTable } from '../domains/packages/packages.table.js';
import type {
  DeploymentApprovalTable,
  DeploymentMergeRequestTable,
  DeploymentTable,
  DoraDailyMetricsTable,
  EnvironmentTable,
  ProtectedEnvironmentApprovalRuleTable,
  ProtectedEnvironmentDeployAccessLevelTable,
  ProtectedEnvironmentTable,
} from '../domains/delivery/delivery.table.js';
import type {
  AiFlowCallbackAttemptTable,
  AiFlowCallbackDeliveryTable,
  AiFlowCallbackTable,
  AiFlowCheckpointTable,
  AiFlowTable,
  OrganizationOwnerTable,
} from '../domains/flows/flows.table.js';

export interface Database {
  users: UserTable;
  namespaces: NamespaceTable;
  projects: ProjectTable;
  redirect_routes: RedirectRouteTable;
  members: MemberTable;
  member_roles: MemberRoleTable;
  access_tokens: AccessTokenTable;
  queue_jobs: QueueJobTable;
  internal_ids: InternalIdTable;
  secret_keys: SecretKeyTable;
  issues: IssueTable;
  issue_assignees: IssueAssigneeTable;
  labels: LabelTable;
  label_links: LabelLinkTable;
  merge_requests: MergeRequestTable;
  merge_request_assignees: MergeRequestUserTable;
  merge_request_reviewers: MergeRequestUserTable;
  snippets: SnippetTable;
  notes: NoteTable;
  award_emoji: AwardEmojiTable;
  resource_state_events: ResourceStateEventTable;
  label_subscriptions: LabelSubscriptionTable;
  milestones: MilestoneTable;
  iteration_cadences: IterationCadenceTable;
  iterations: IterationTable;
  epics: EpicTable;
  repository_commits: RepositoryCommitTable;
  repository_commit_parents: RepositoryCommitParentTable;
  repository_commit_changes: RepositoryCommitChangeTable;
  repository_refs: RepositoryRefTable;
  repository_blobs: RepositoryBlobTable;
  repository_files: RepositoryFileTable;
  protected_branches: ProtectedBranchTable;
  protected_branch_access_levels: ProtectedBranchAccessLevelTable;
  releases: ReleaseTable;
  release_milestones: ReleaseMilestoneTable;
  release_links: ReleaseLinkTable;
  ci_runners: CiRunnerTable;
  ci_runner_scopes: CiRunnerScopeTable;
  ci_registration_tokens: CiRegistrationTokenTable;
  ci_pipeline_schedules: CiPipelineScheduleTable;
  ci_pipeline_schedule_variables: CiPipelineScheduleVariableTable;
  ci_pipeline_schedule_inputs: CiPipelineScheduleInputTable;
  ci_pipelines: CiPipelineTable;
  ci_pipeline_variables: CiPipelineVariableTable;
  ci_jobs: CiJobTable;
  ci_job_trace_chunks: CiJobTraceChunkTable;
  ci_job_artifacts: CiJobArtifactTable;
  ci_artifact_entries: CiArtifactEntryTable;
  ci_job_token_settings: JobTokenSettingsTable;
  ci_job_token_project_links: JobTokenProjectLinkTable;
  ci_job_token_group_links: JobTokenGroupLinkTable;
  application_settings: ApplicationSettingTable;
  project_approval_settings: ProjectApprovalSettingsTable;
  approval_rules: ApprovalRuleTable;
  approval_rule_users: ApprovalRuleUserTable;
  approval_rule_groups: ApprovalRuleGroupTable;
  approval_rule_protected_branches: ApprovalRuleProtectedBranchTable;
  merge_request_approvals: MergeRequestApprovalTable;
  merge_request_approval_syncs: MergeRequestApprovalSyncTable;
  user_passwords: UserPasswordTable;
  error_tracking_settings: ErrorTrackingSettingTable;
  error_tracking_client_keys: ErrorTrackingClientKeyTable;
  error_tracking_errors: ErrorTrackingErrorTable;
  error_tracking_error_events: ErrorTrackingEventTable;
  error_tracking_error_users: ErrorTrackingErrorUserTable;
  error_tracking_error_frequency: ErrorTrackingErrorFrequencyTable;
  error_tracking_sessions: ErrorTrackingSessionTable;
  error_tracking_session_aggregates: ErrorTrackingSessionAggregateTable;
  packages: PackageTable;
  package_files: PackageFileTable;
  package_symbols: PackageSymbolTable;
  namespace_package_settings: NamespacePackageSettingTable;
  environments: EnvironmentTable;
  deployments: DeploymentTable;
  deployment_merge_requests: DeploymentMergeRequestTable;
  deployment_approvals: DeploymentApprovalTable;
  protected_environments: ProtectedEnvironmentTable;
  protected_environment_deploy_access_levels: ProtectedEnvironmentDeployAccessLevelTable;
  protected_environment_approval_rules: ProtectedEnvironmentApprovalRuleTable;
  dora_daily_metrics: DoraDailyMetricsTable;
  ai_flows: AiFlowTable;
  ai_flow_checkpoints: AiFlowCheckpointTable;
  organization_owners: OrganizationOwnerTable;
  ai_flow_callbacks: AiFlowCallbackTable;
  ai_flow_callback_deliveries: AiFlowCallbackDeliveryTable;
  ai_flow_callback_attempts: AiFlowCallbackAttemptTable;
  bulk_imports: BulkImportTable;
  bulk_import_entities: BulkImportEntityTable;
  bulk_import_trackers: BulkImportTrackerTable;
  bulk_import_failures: BulkImportFailureTable;
  bulk_import_source_ids: BulkImportSourceIdTable;
  bulk_import_exports: BulkImportExportTable;
}
