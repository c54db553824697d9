/**
 * Parameters of the approval endpoints, as GitLab's `merge_request_approvals.rb`,
 * `project_approvals.rb`, `project_approval_rules.rb` and `merge_request_approval_rules.rb`
 * declare them. `:id` and `:merge_request_iid` must be single values: several
 * space-separated values are refused (`id is invalid`, `merge_request_iid is invalid`).
 */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

/** A project id or full path: one value, never several separated by spaces. */
const projectRef = () => p.string().regex(/^\S+$/);
const userIds = () => p.array(p.integer()).commaSeparated();
const usernames = () => p.array(p.string()).commaSeparated();

export const ProjectRefInput = params({ id: projectRef() });
export type ProjectRefInput = InferShape<typeof ProjectRefInput.shape>;

export const MergeRequestRefInput = params({ id: projectRef(), merge_request_iid: p.integer() });
export type MergeRequestRefInput = InferShape<typeof MergeRequestRefInput.shape>;

export const ApproveInput = params({
  id: projectRef(),
  merge_request_iid: p.integer(),
  sha: p.string().optional().describe('Must equal the merge request\'s head when given (409 otherwise).'),
  approval_password: p.string().optional().describe('The caller\'s password, when the project requires re-authentication to approve.'),
  publish_review: p.boolean().optional().describe('Accepted for compatibility: Forgelet has no draft review notes to publish.'),
});
export type ApproveInput = InferShape<typeof ApproveInput.shape>;

const SETTING_KEYS = [
  'approvals_before_merge',
  'reset_approvals_on_push',
  'selective_code_owner_removals',
  'disable_overriding_approvers_per_merge_request',
  'merge_requests_author_approval',
  'merge_requests_disable_committers_approval',
  'require_password_to_approve',
  'require_reauthentication_to_approve',
] as const;

export const UpdateApprovalSettingsInput = params(
  {
    id: projectRef(),
    approvals_before_merge: p.integer().min(0).optional().describe('Deprecated (12.3).'),
    reset_approvals_on_push: p.boolean().optional(),
    selective_code_owner_removals: p.boolean().optional().describe('Only when `reset_approvals_on_push` is (or becomes) false.'),
    disable_overriding_approvers_per_merge_request: p.boolean().optional(),
    merge_requests_author_approval: p.boolean().optional(),
    merge_requests_disable_committers_approval: p.boolean().optional(),
    require_password_to_approve: p.boolean().optional().describe('Deprecated (16.9): the same setting as `require_reauthentication_to_approve`.'),
    require_reauthentication_to_approve: p.boolean().optional(),
  },
  { atLeastOneOf: [[...SETTING_KEYS]] },
);
export type UpdateApprovalSettingsInput = InferShape<typeof UpdateApprovalSettingsInput.shape>;

export const RULE_TYPES = ['any_approver', 'regular', 'report_approver'] as const;
export const REPORT_TYPES = ['license_scanning', 'code_coverage'] as const;

/** Approver fields shared by every rule write. `users`/`groups` are GitLab's internal names, accepted as aliases. */
const approverFields = {
  user_ids: userIds().optional(),
  users: userIds().optional(),
  group_ids: userIds().optional(),
  groups: userIds().optional(),
  usernames: usernames().optional(),
};

export const ListRulesInput = params({ id: projectRef(), ...paginationParams });
export type ListRulesInput = InferShape<typeof ListRulesInput.shape>;

export const ProjectRuleRefInput = params({ id: projectRef(), approval_rule_id: p.integer() });
export type ProjectRuleRefInput = InferShape<typeof ProjectRuleRefInput.shape>;

export const CreateProjectRuleInput = params({
  id: projectRef(),
  name: p.string(),
  approvals_required: p.integer(),
  rule_type: p.enum(RULE_TYPES).optional(),
  report_type: p.enum(REPORT_TYPES).optional(),
  ...approverFields,
  protected_branch_ids: userIds().optional(),
  applies_to_all_protected_branches: p.boolean().default(false),
});
export type CreateProjectRuleInput = InferShape<typeof CreateProjectRuleInput.shape>;

export const UpdateProjectRuleInput = params({
  id: projectRef(),
  approval_rule_id: p.integer(),
  name: p.string().optional(),
  approvals_required: p.integer().optional(),
  ...approverFields,
  protected_branch_ids: userIds().optional(),
  applies_to_all_protected_branches: p.boolean().default(false).describe('GitLab declares it with a default: an update without it turns it off.'),
  remove_hidden_groups: p.boolean().optional().describe('Groups the caller cannot see are kept unless this is true.'),
});
export type UpdateProjectRuleInput = InferShape<typeof UpdateProjectRuleInput.shape>;

export const ListMergeRequestRulesInput = params({ id: projectRef(), merge_request_iid: p.integer(), ...paginationParams });
export type ListMergeRequestRulesInput = InferShape<typeof ListMergeRequestRulesInput.shape>;

export const MergeRequestRuleRefInput = params({ id: projectRef(), merge_request_iid: p.integer(), approval_rule_id: p.integer() });
export type MergeRequestRuleRefInput = InferShape<typeof MergeRequestRuleRefInput.shape>;

export const CreateMergeRequestRuleInput = params({
  id: projectRef(),
  merge_request_iid: p.integer(),
  name: p.string(),
  approvals_required: p.integer(),
  approval_project_rule_id: p.integer().optional().describe('Copies the name, users and groups of that project rule.'),
  ...approverFields,
});
export type CreateMergeRequestRuleInput = InferShape<typeof CreateMergeRequestRuleInput.shape>;

export const UpdateMergeRequestRuleInput = params({
  id: projectRef(),
  merge_request_iid: p.integer(),
  approval_rule_id: p.integer(),
  name: p.string().optional(),
  approvals_required: p.integer().optional(),
  ...approverFields,
  remove_hidden_groups: p.boolean().optional(),
});
export type UpdateMergeRequestRuleInput = InferShape<typeof UpdateMergeRequestRuleInput.shape>;
