import type { CreateProjectRuleInput, ListRulesInput, ProjectApprovalRuleEntity, UpdateProjectRuleInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId, WithOptional } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListProjectApprovalRulesParams = ListParams<ListRulesInput>;
export type CreateProjectApprovalRuleParams = WithOptional<
  Omit<CreateProjectRuleInput, 'id' | 'name' | 'approvals_required' | 'users' | 'groups'>,
  'applies_to_all_protected_branches'
>;
export type EditProjectApprovalRuleParams = WithOptional<
  Omit<UpdateProjectRuleInput, 'id' | 'approval_rule_id' | 'users' | 'groups'>,
  'applies_to_all_protected_branches'
>;

/**
 * Project approval rules: `/projects/:id/approval_rules[/:approval_rule_id]`. Reading needs
 * Developer, writing Maintainer. Without approvers (and without `rule_type`) a new rule is
 * the any-approver rule; approvers are `user_ids` and `usernames` (project members only) and
 * the members of `group_ids` (groups the caller can see).
 */
export class ProjectApprovalRules {
  constructor(private readonly requester: Requester) {}

  all(projectId: ResourceId, params: ListProjectApprovalRulesParams = {}): Paginated<ProjectApprovalRuleEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/approval_rules`, params);
  }

  show(projectId: ResourceId, ruleId: number): Promise<ProjectApprovalRuleEntity> {
    return this.requester.get(endpoint`projects/${projectId}/approval_rules/${ruleId}`);
  }

  create(projectId: ResourceId, name: string, approvalsRequired: number, params: CreateProjectApprovalRuleParams = {}): Promise<ProjectApprovalRuleEntity> {
    return this.requester.post(endpoint`projects/${projectId}/approval_rules`, { name, approvals_required: approvalsRequired, ...params });
  }

  /**
   * Users and groups given replace the rule's (hidden groups stay unless `remove_hidden_groups`).
   * As in GitLab, `applies_to_all_protected_branches` is false unless sent.
   */
  edit(projectId: ResourceId, ruleId: number, params: EditProjectApprovalRuleParams): Promise<ProjectApprovalRuleEntity> {
    return this.requester.put(endpoint`projects/${projectId}/approval_rules/${ruleId}`, params);
  }

  remove(projectId: ResourceId, ruleId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/approval_rules/${ruleId}`);
  }
}
