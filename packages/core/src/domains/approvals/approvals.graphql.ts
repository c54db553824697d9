/** GitLab's approval fields of `MergeRequest` (ee/app/graphql/ee/types/merge_request_type.rb), from GET …/merge_requests/:iid/approvals's use case. */
import { gql, type GraphqlModule } from '../../kernel/graphql.js';
import type { Ctx } from '../../access/context.js';
import { getApprovals } from './approve.js';
import type { ApprovalStateEntity } from './approval-state.entity.js';

const { nn, int, boolean } = gql;

/** The merge request's approval answer, once per request and merge request. */
function approvalsOf(ctx: Ctx, mr: { project_id: number; iid: number }): Promise<ApprovalStateEntity> {
  const key = `graphql:approvals:${mr.project_id}:${mr.iid}`;
  let found = ctx.cache.get(key) as Promise<ApprovalStateEntity> | undefined;
  if (!found) ctx.cache.set(key, (found = getApprovals(ctx, { id: String(mr.project_id), merge_request_iid: mr.iid })));
  return found;
}

type Mr = { project_id: number; iid: number };

export const approvalsGraphql: GraphqlModule = (g) => {
  g.extend('MergeRequest', () => ({
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
