/**
 * GitLab's `ApprovalState` entity (what `/approvals`, `/approve` and `/unapprove` answer) and
 * `MergeRequestApprovalState` (`/approval_state`).
 */
import type { Ctx } from '../../access/context.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { toGroupEntity, type GroupEntity } from '../accounts/index.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { ApprovalState, WrappedRule } from './approval-state.js';
import { publicMergeStatus } from '../merge-requests/index.js';
import { isOverridden, loadRules, presentRule, visibleGroupIds, type ApprovalRuleEntity, type LoadedRule } from './rules.js';

export interface ApprovalRuleShortEntity {
  id: number;
  name: string;
  rule_type: string;
  report_type: string | null;
}

export interface ApprovalStateEntity {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  merge_status: string;
  approved: boolean;
  approvals_required: number;
  approvals_left: number;
  require_password_to_approve: boolean;
  approved_by: { user: UserBasicEntity; approved_at: string }[];
  suggested_approvers: UserBasicEntity[];
  /** Deprecated: the first rule's users. */
  approvers: { user: UserBasicEntity }[];
  /** Deprecated: the first rule's visible groups. */
  approver_groups: { group: GroupEntity }[];
  user_has_approved: boolean;
  user_can_approve: boolean;
  approval_rules_left: ApprovalRuleShortEntity[];
  has_approval_rules: boolean;
  merge_request_approvers_available: boolean;
  multiple_approval_rules_available: boolean;
  invalid_approvers_rules: ApprovalRuleShortEntity[];
}

export interface ApprovalStateRuleEntity extends ApprovalRuleEntity {
  section: null;
  source_rule: { approvals_required: number } | null;
  overridden: boolean;
  code_owner: boolean;
  approved_by: UserBasicEntity[];
  approved: boolean;
}

export interface MergeRequestApprovalStateEntity {
  approval_rules_overwritten: boolean;
  rules: ApprovalStateRuleEntity[];
}


function short(r: WrappedRule): ApprovalRuleShortEntity {
  return { id: r.rule.row.id, name: r.rule.row.name, rule_type: r.rule.row.rule_type, report_type: r.rule.row.report_type };
}

export async function presentApprovalState(
  ctx: Ctx,
  state: ApprovalState,
  viewer: { canApprove: boolean },
): Promise<ApprovalStateEntity> {
  const mr = state.mergeRequest;
  const user = (id: number) => {
    const row = state.index.users.get(id);
    return row ? toUserBasicEntity(row, ctx.urls) : null;
  };
  const users = (ids: number[]) => ids.map(user).filter((u): u is UserBasicEntity => u !== null);
  const loaded = state.rules.map((r) => r.rule);
  const visible = await visibleGroupIds(ctx, loaded, state.index);
  const approvedIds = state.approvals.map((a) => a.user_id);
  const suggested = new Set<number>();
  for (const r of state.rules) {
    if (r.rule.groupIds.some((g) => !visible.has(g))) continue;
    for (const id of r.approvers) if (!approvedIds.includes(id)) suggested.add(id);
  }
  const first = state.rules[0];
  const me = ctx.actor.user?.id;
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merge_status: publicMergeStatus(mr.merge_status),
    approved: state.approved,
    approvals_required: state.approvalsRequired,
    approvals_left: state.approvalsLeft,
    require_password_to_approve: state.settings.require_reauthentication_to_approve,
    approved_by: state.approvals
      .map((a) => ({ user: user(a.user_id), approved_at: a.created_at }))
      .filter((a): a is { user: UserBasicEntity; approved_at: string } => a.user !== null),
    suggested_approvers: users([...suggested]),
    approvers: first ? users(first.rule.userIds).map((u) => ({ user: u })) : [],
    approver_groups: first
      ? first.rule.groupIds.filter((g) => visible.has(g)).map((g) => ({ group: toGroupEntity(state.index.groups.get(g)!, ctx.urls) }))
      : [],
    user_has_approved: me !== undefined && approvedIds.includes(me),
    user_can_approve: viewer.canApprove,
    approval_rules_left: state.rules.filter((r) => !r.approved).map(short),
    has_approval_rules: state.rules.length > 0,
    merge_request_approvers_available: tierAtLeast(ctx.config.tier, 'premium'),
    multiple_approval_rules_available: tierAtLeast(ctx.config.tier, 'premium'),
    invalid_approvers_rules: state.rules
      .filter((r) => r.rule.row.rule_type === 'regular' && r.rule.row.approvals_required > r.approvers.length)
      .map(short),
  };
}

/** GET …/approval_state: every applicable rule with who approved it. */
export async function presentMergeRequestApprovalState(ctx: Ctx, state: ApprovalState): Promise<MergeRequestApprovalStateEntity> {
  const loaded = state.rules.map((r) => r.rule);
  const visible = await visibleGroupIds(ctx, loaded, state.index);
  const sourceIds = [...new Set(loaded.map((r) => r.row.source_rule_id).filter((id): id is number => id !== null))];
  const sources: LoadedRule[] = sourceIds.length
    ? await loadRules(ctx.db, await ctx.db.selectFrom('approval_rules').selectAll().where('id', 'in', sourceIds).execute())
    : [];
  const sourceById = new Map(sources.map((s) => [s.row.id, s]));
  return {
    approval_rules_overwritten: state.overwritten,
    rules: state.rules.map((r) => {
      const source = r.rule.row.source_rule_id === null ? undefined : sourceById.get(r.rule.row.source_rule_id);
      return {
        ...presentRule(ctx, r.rule, state.index, visible),
        section: null,
        source_rule: source ? { approvals_required: source.row.approvals_required } : null,
        overridden: source ? isOverridden(r.rule, source) : false,
        code_owner: false,
        approved_by: r.approvedApprovers
          .map((id) => state.index.users.get(id))
          .filter((u) => u !== undefined)
          .map((u) => toUserBasicEntity(u!, ctx.urls)),
        approved: r.approved,
      };
    }),
  };
}
