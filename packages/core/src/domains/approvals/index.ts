/** Merge request approvals: project settings and rules, merge request rules, approve / unapprove / reset. */
export { approvalsRoutes } from './approvals.routes.js';
export { getApprovalSettings, updateApprovalSettings, settingsOf, DEFAULT_SETTINGS, type ApprovalSettings, type ApprovalSettingsEntity } from './settings.js';
export { listProjectRules, getProjectRule, createProjectRule, updateProjectRule, deleteProjectRule } from './project-rules.js';
export { listMergeRequestRules, getMergeRequestRule, createMergeRequestRule, updateMergeRequestRule, deleteMergeRequestRule } from './merge-request-rules.js';
export { getApprovals, getApprovalState, approveMergeRequest, unapproveMergeRequest, resetApprovals } from './approve.js';
export { onMergeRequestHeadsMoved, approvalsPushHooks, approvalsMergeRequestHooks, registerApprovalJobs, APPROVALS_SYNC_JOB } from './on-push.js';
/** For the wiring: the approval status merge requests show and merge by. */
export { approvalStatusesOf } from './merge-status.js';
export type { ApprovalStateEntity, ApprovalStateRuleEntity, ApprovalRuleShortEntity, MergeRequestApprovalStateEntity } from './approval-state.entity.js';
export type {
  ApprovalRuleEntity,
  ProjectApprovalRuleEntity,
  MergeRequestApprovalRuleEntity,
  RuleProtectedBranchEntity,
  RuleProtectedBranchAccessEntity,
} from './rules.js';
export type {
  ApproveInput,
  CreateMergeRequestRuleInput,
  CreateProjectRuleInput,
  ListMergeRequestRulesInput,
  ListRulesInput,
  MergeRequestRefInput as ApprovalMergeRequestRefInput,
  MergeRequestRuleRefInput,
  ProjectRefInput as ApprovalProjectRefInput,
  ProjectRuleRefInput,
  UpdateApprovalSettingsInput,
  UpdateMergeRequestRuleInput,
  UpdateProjectRuleInput,
} from './approvals.schema.js';
/** GraphQL: the approval fields of MergeRequest. */
export { approvalsGraphql } from './approvals.graphql.js';
