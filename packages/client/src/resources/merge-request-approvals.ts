import type {
  ApprovalSettingsEntity,
  ApprovalStateEntity,
  ApproveInput,
  CreateMergeRequestRuleInput,
  ListMergeRequestRulesInput,
  MergeRequestApprovalRuleEntity,
  MergeRequestApprovalStateEntity,
  UpdateApprovalSettingsInput,
  UpdateMergeRequestRuleInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ApproveParams = Partial<Omit<ApproveInput, 'id' | 'merge_request_iid'>>;
export type EditApprovalConfigurationParams = Omit<UpdateApprovalSettingsInput, 'id'>;
export type ListMergeRequestApprovalRulesParams = ListParams<Omit<ListMergeRequestRulesInput, 'merge_request_iid'>>;
export type CreateMergeRequestApprovalRuleParams = Omit<CreateMergeRequestRuleInput, 'id' | 'merge_request_iid' | 'name' | 'approvals_required' | 'users' | 'groups'>;
export type EditMergeRequestApprovalRuleParams = Omit<UpdateMergeRequestRuleInput, 'id' | 'merge_request_iid' | 'approval_rule_id' | 'users' | 'groups'>;

/**
 * Merge request approvals: the project's approval configuration (`/projects/:id/approvals`),
 * approving, unapproving and resetting a merge request, its approval state and its own
 * approval rules. Project-level rules: ProjectApprovalRules.
 */
export class MergeRequestApprovals {
  constructor(private readonly requester: Requester) {}

  /** Developers and up. `approvers` / `approver_groups` are deprecated and always empty. */
  configuration(projectId: ResourceId): Promise<ApprovalSettingsEntity> {
    return this.requester.get(endpoint`projects/${projectId}/approvals`);
  }

  /** Maintainers. `selective_code_owner_removals` needs `reset_approvals_on_push` off. */
  editConfiguration(projectId: ResourceId, params: EditApprovalConfigurationParams): Promise<ApprovalSettingsEntity> {
    return this.requester.post(endpoint`projects/${projectId}/approvals`, params);
  }

  /** Approvals required and left, who approved, whether the caller may approve. */
  state(projectId: ResourceId, mergeRequestIid: number): Promise<ApprovalStateEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approvals`);
  }

  /** The applicable rules with who approved each. */
  approvalState(projectId: ResourceId, mergeRequestIid: number): Promise<MergeRequestApprovalStateEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_state`);
  }

  /** `sha` must be the head (409 otherwise); `approval_password` when re-authentication is required. */
  approve(projectId: ResourceId, mergeRequestIid: number, params: ApproveParams = {}): Promise<ApprovalStateEntity> {
    return this.requester.post(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approve`, params);
  }

  /** 404 when the caller has not approved. */
  unapprove(projectId: ResourceId, mergeRequestIid: number): Promise<ApprovalStateEntity> {
    return this.requester.post(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/unapprove`, {});
  }

  /** Project or group access token bots only (401 for humans). */
  async resetApprovals(projectId: ResourceId, mergeRequestIid: number): Promise<void> {
    await this.requester.put(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/reset_approvals`, {});
  }

  allRules(projectId: ResourceId, mergeRequestIid: number, params: ListMergeRequestApprovalRulesParams = {}): Paginated<MergeRequestApprovalRuleEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_rules`, params);
  }

  showRule(projectId: ResourceId, mergeRequestIid: number, ruleId: number): Promise<MergeRequestApprovalRuleEntity> {
    return this.requester.get(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_rules/${ruleId}`);
  }

  /** Needs the project to allow overriding approvers; `approval_project_rule_id` copies a project rule. */
  createRule(
    projectId: ResourceId,
    mergeRequestIid: number,
    name: string,
    approvalsRequired: number,
    params: CreateMergeRequestApprovalRuleParams = {},
  ): Promise<MergeRequestApprovalRuleEntity> {
    return this.requester.post(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_rules`, {
      name,
      approvals_required: approvalsRequired,
      ...params,
    });
  }

  editRule(projectId: ResourceId, mergeRequestIid: number, ruleId: number, params: EditMergeRequestApprovalRuleParams): Promise<MergeRequestApprovalRuleEntity> {
    return this.requester.put(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_rules/${ruleId}`, params);
  }

  removeRule(projectId: ResourceId, mergeRequestIid: number, ruleId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/merge_requests/${mergeRequestIid}/approval_rules/${ruleId}`);
  }
}
