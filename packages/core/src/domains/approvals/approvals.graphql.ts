/** GitLab's approval fields of `MergeRequest` (ee/app/graphql/ee/types/merge_request_type.rb), from GET …/merge_requests/:iid/approvals's use case. */
import { gql, oncePerRequest, toGraphqlError, type GraphqlModule } from '../../kernel/graphql.js';
import type { Ctx } from '../../access/context.js';
import { GraphQLEnumType } from 'graphql';
import { getApprovals, getApprovalState } from './approve.js';
import type { ApprovalStateEntity, ApprovalStateRuleEntity, MergeRequestApprovalStateEntity } from './approval-state.entity.js';

const { nn, int, boolean, string, from } = gql;

/** The merge request's approval answer, once per request and merge request. */
function approvalsOf(ctx: Ctx, mr: { project_id: number; iid: number }): Promise<ApprovalStateEntity> {
  return oncePerRequest(ctx, `graphql:approvals:${mr.project_id}:${mr.iid}`, () => getApprovals(ctx, { id: String(mr.project_id), merge_request_iid: mr.iid }));
}

type Mr = { project_id: number; iid: number };

type Rule = ApprovalStateRuleEntity & { overwritten: boolean };

export const approvalsGraphql: GraphqlModule = (g) => {
  g.add(
    new GraphQLEnumType({
      name: 'ApprovalRuleType',
      description: 'The kind of an approval rule.',
      values: Object.fromEntries(['regular', 'code_owner', 'report_approver', 'any_approver'].map((v) => [v.toUpperCase(), { value: v }])),
    }),
  );
  g.defineObject('ApprovalRule', {
    description: 'Describes a rule for who can approve merge requests.',
    fields: () => ({
      // The merge request's own rules when it overrides the project's (GitLab's ApprovalMergeRequestRule), else the project's.
      id: { type: nn(gql.id), description: 'ID of the rule.', resolve: (r: Rule) => `gid://gitlab/${r.overwritten ? 'ApprovalMergeRequestRule' : 'ApprovalProjectRule'}/${r.id}` },
      name: from(string, 'name', 'Name of the rule.'),
      type: from(g.type('ApprovalRuleType'), 'rule_type', 'Type of the rule.'),
      approvalsRequired: from(int, 'approvals_required', 'Number of required approvals.'),
      approved: from(boolean, 'approved', 'Indicates if the rule is satisfied.'),
      overridden: from(boolean, 'overridden', 'Indicates if the rule was overridden for the merge request.'),
      containsHiddenGroups: from(boolean, 'contains_hidden_groups', 'Indicates if the rule contains approvers from a hidden group.'),
      approvedBy: { type: g.connection('UserCore'), description: 'List of users defined in the rule that approved the merge request.', resolve: (r: Rule) => gql.wholeList(r.approved_by) },
      eligibleApprovers: from(gql.list(g.object('UserCore')), 'eligible_approvers', 'List of all users eligible to approve the merge request (defined explicitly and from associated groups).'),
      users: { type: g.connection('UserCore'), description: 'List of users added as approvers for the rule.', resolve: (r: Rule) => gql.wholeList(r.users) },
      groups: { type: g.connection('Group'), description: 'List of groups added as approvers for the rule.', resolve: (r: Rule) => gql.wholeList(r.groups) },
    }),
  });
  g.defineObject('MergeRequestApprovalState', {
    description: 'Information relating to rules that must be satisfied to merge this merge request.',
    fields: () => ({
      approvalRulesOverwritten: from(boolean, 'approval_rules_overwritten', 'Indicates if the merge request approval rules are overwritten for the merge request.'),
      rules: {
        type: gql.list(g.object('ApprovalRule')),
        description: 'List of approval rules associated with the merge request.',
        resolve: (state: MergeRequestApprovalStateEntity) => state.rules.map((r) => ({ ...r, overwritten: state.approval_rules_overwritten })),
      },
    }),
  });
  g.extend('MergeRequestPermissions', () =>
    gql.permissionFields<Mr>({
      canApprove: ['Indicates the user can perform `can_approve` on this resource.', async (mr, ctx) => (await approvalsOf(ctx, mr)).user_can_approve],
    }),
  );
  g.extend('MergeRequest', () => ({
    approvalState: {
      type: nn(g.object('MergeRequestApprovalState')),
      description: 'Information relating to rules that must be satisfied to merge the merge request.',
      resolve: (mr: Mr, _a: unknown, ctx: Ctx) =>
        getApprovalState(ctx, { id: String(mr.project_id), merge_request_iid: mr.iid }).catch((err: unknown) => {
          throw toGraphqlError(err);
        }),
    },
    approved: { type: nn(boolean), description: 'Indicates if the merge request has all the required approvals.', resolve: async (mr: Mr, _a: unknown, ctx: Ctx) => (await approvalsOf(ctx, mr)).approved },
    approvalsRequired: { type: int, description: 'Number of approvals required.', resolve: async (mr: Mr, _a: unknown, ctx: Ctx) => (await approvalsOf(ctx, mr)).approvals_required },
    approvalsLeft: { type: int, description: 'Number of approvals left.', resolve: async (mr: Mr, _a: unknown, ctx: Ctx) => (await approvalsOf(ctx, mr)).approvals_left },
    approvedBy: {
      type: g.connection('UserCore'),
      description: 'Users who approved the merge request.',
      resolve: async (mr: Mr, _a: unknown, ctx: Ctx) => gql.wholeList((await approvalsOf(ctx, mr)).approved_by.map((a) => a.user)),
    },
  }));
};
