/**
 * Approval rules with what they name: users, groups (and their direct members, who are
 * approvers too), protected branches. Loaded in batches (one query per relation), shared by
 * the rule endpoints and the approval state.
 */
import { selectUsersByIds } from '../../access/users.js';
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { MINIMAL_ACCESS } from '../../access/levels.js';
import { canRead } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { toGroupEntity, type GroupEntity } from '../accounts/index.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import { loadAccessEntries, type ProtectedRefAccessEntity } from '../protected-branches/index.js';
import { branchPatternMatches } from '../repository/index.js';
import type { ProtectedBranchAccessLevelRow, ProtectedBranchRow } from '../repository/index.js';
import type { ApprovalRuleRow } from './approvals.table.js';

type Db = Kysely<Database>;

export interface LoadedRule {
  row: ApprovalRuleRow;
  userIds: number[];
  groupIds: number[];
  protectedBranchIds: number[];
}

/** Users, groups and group members named by a set of rules. */
export interface RuleIndex {
  users: Map<number, UserRow>;
  groups: Map<number, NamespaceRow>;
  /** Direct members of each group (unexpired, above Minimal Access): GitLab's `group_users`. */
  groupMembers: Map<number, number[]>;
  /** Protected branches of the projects involved, by project. */
  protectedBranches: Map<number, ProtectedBranchRow[]>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Attaches users, groups and protected branches to rule rows (three queries). */
export async function loadRules(db: Db, rows: ApprovalRuleRow[]): Promise<LoadedRule[]> {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const [users, groups, branches] = await Promise.all([
    db.selectFrom('approval_rule_users').select(['rule_id', 'user_id']).where('rule_id', 'in', ids).orderBy('user_id').execute(),
    db.selectFrom('approval_rule_groups').select(['rule_id', 'group_id']).where('rule_id', 'in', ids).orderBy('group_id').execute(),
    db
      .selectFrom('approval_rule_protected_branches')
      .select(['rule_id', 'protected_branch_id'])
      .where('rule_id', 'in', ids)
      .orderBy('protected_branch_id')
      .execute(),
  ]);
  const u = new Map<number, number[]>();
  const g = new Map<number, number[]>();
  const b = new Map<number, number[]>();
  for (const r of users) push(u, r.rule_id, r.user_id);
  for (const r of groups) push(g, r.rule_id, r.group_id);
  for (const r of branches) push(b, r.rule_id, r.protected_branch_id);
  return rows.map((row) => ({ row, userIds: u.get(row.id) ?? [], groupIds: g.get(row.id) ?? [], protectedBranchIds: b.get(row.id) ?? [] }));
}

/**
 * Project rules (merge_request_id null) of the projects, ordered as GitLab's
 * `user_defined_rules`: the any-approver rule first, then by id.
 */
export async function projectRuleRows(db: Db, projectIds: number[]): Promise<ApprovalRuleRow[]> {
  if (!projectIds.length) return [];
  const rows = await db
    .selectFrom('approval_rules')
    .selectAll()
    .where('project_id', 'in', [...new Set(projectIds)])
    .where('merge_request_id', 'is', null)
    .orderBy('id')
    .execute();
  return sortRows(rows);
}

export async function mergeRequestRuleRows(db: Db, mergeRequestIds: number[]): Promise<ApprovalRuleRow[]> {
  if (!mergeRequestIds.length) return [];
  return db.selectFrom('approval_rules').selectAll().where('merge_request_id', 'in', [...new Set(mergeRequestIds)]).orderBy('id').execute();
}

function userDefinedOrder(a: ApprovalRuleRow, b: ApprovalRuleRow): number {
  const rank = (r: ApprovalRuleRow) => (r.rule_type === 'any_approver' ? 0 : 1);
  return rank(a) - rank(b) || a.id - b.id;
}

function sortRows(rows: ApprovalRuleRow[]): ApprovalRuleRow[] {
  return [...rows].sort(userDefinedOrder);
}

/** GitLab's `user_defined_rules` order: the any-approver rule first, then by id. */
export function sortUserDefined(rules: LoadedRule[]): LoadedRule[] {
  return [...rules].sort((a, b) => userDefinedOrder(a.row, b.row));
}

/** Loads the users, groups, group members and protected branches the rules refer to. */
export async function loadRuleIndex(db: Db, rules: LoadedRule[], today: string, extraUserIds: number[] = []): Promise<RuleIndex> {
  const groupIds = [...new Set(rules.flatMap((r) => r.groupIds))];
  const projectIds = [...new Set(rules.map((r) => r.row.project_id))];
  const [groups, members, protectedBranches] = await Promise.all([
    groupIds.length ? db.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).execute() : [],
    groupIds.length
      ? db
          .selectFrom('members')
          .select(['source_id', 'user_id'])
          .where('source_kind', '=', 'namespace')
          .where('source_id', 'in', groupIds)
          .where('access_level', '>', MINIMAL_ACCESS)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
          .orderBy('user_id')
          .execute()
      : [],
    projectIds.length ? db.selectFrom('protected_branches').selectAll().where('project_id', 'in', projectIds).orderBy('id').execute() : [],
  ]);
  const groupMembers = new Map<number, number[]>();
  for (const m of members) push(groupMembers, m.source_id, m.user_id);
  const userIds = new Set<number>([...rules.flatMap((r) => r.userIds), ...members.map((m) => m.user_id), ...extraUserIds]);
  const users = await selectUsersByIds(db, userIds);
  const branches = new Map<number, ProtectedBranchRow[]>();
  for (const pb of protectedBranches) push(branches, pb.project_id, pb);
  return {
    users: new Map(users.map((x) => [x.id, x])),
    groups: new Map(groups.map((x) => [x.id, x])),
    groupMembers,
    protectedBranches: branches,
  };
}

/** GitLab's `ApprovalRuleLike#approvers`: active users of the rule and of its groups, by id. */
export function approverIdsOf(rule: LoadedRule, index: RuleIndex): number[] {
  const ids = new Set<number>(rule.userIds);
  for (const g of rule.groupIds) for (const id of index.groupMembers.get(g) ?? []) ids.add(id);
  return [...ids].filter((id) => index.users.get(id)?.state === 'active').sort((a, b) => a - b);
}

/** The protected branches a project rule targets: all of the project's when `applies_to_all_protected_branches`. */
export function protectedBranchesOf(rule: LoadedRule, index: RuleIndex): ProtectedBranchRow[] {
  const all = index.protectedBranches.get(rule.row.project_id) ?? [];
  if (rule.row.applies_to_all_protected_branches === 1) return all;
  const wanted = new Set(rule.protectedBranchIds);
  return all.filter((pb) => wanted.has(pb.id));
}

/** `ApprovalProjectRule#applies_to_branch?`: no branches means every branch. */
export function ruleAppliesToBranch(rule: LoadedRule, index: RuleIndex, branch: string): boolean {
  if (rule.row.merge_request_id !== null) return true;
  if (rule.row.applies_to_all_protected_branches !== 1 && !rule.protectedBranchIds.length) return true;
  return protectedBranchesOf(rule, index).some((pb) => branchPatternMatches(pb.name, branch));
}

// ---------------------------------------------------------------------------------------
// Entities

export type RuleProtectedBranchAccessEntity = ProtectedRefAccessEntity;

export interface RuleProtectedBranchEntity {
  id: number;
  name: string;
  push_access_levels: RuleProtectedBranchAccessEntity[];
  merge_access_levels: RuleProtectedBranchAccessEntity[];
  unprotect_access_levels: RuleProtectedBranchAccessEntity[];
  /** A string, as GitLab's approval rule documentation shows it. */
  code_owner_approval_required: string;
}

/** GitLab's `ApprovalRule` entity (ApprovalRuleShort + approvers). */
export interface ApprovalRuleEntity {
  id: number;
  name: string;
  rule_type: string;
  report_type: string | null;
  eligible_approvers: UserBasicEntity[];
  approvals_required: number;
  users: UserBasicEntity[];
  groups: GroupEntity[];
  contains_hidden_groups: boolean;
}

export interface ProjectApprovalRuleEntity extends ApprovalRuleEntity {
  applies_to_all_protected_branches: boolean;
  protected_branches: RuleProtectedBranchEntity[];
}

export interface MergeRequestApprovalRuleEntity extends ApprovalRuleEntity {
  /** The project rule it was copied from: `{approvals_required}`, or null. */
  source_rule: { approvals_required: number } | null;
  overridden: boolean;
  section: null;
}

/** Which of the groups the caller may see (a rule's other groups are "hidden"). */
export async function visibleGroupIds(ctx: Ctx, rules: LoadedRule[], index: RuleIndex): Promise<Set<number>> {
  const out = new Set<number>();
  for (const id of new Set(rules.flatMap((r) => r.groupIds))) {
    const group = index.groups.get(id);
    if (group && (await canRead(ctx, { kind: 'group', group }))) out.add(id);
  }
  return out;
}

export function presentRule(ctx: Ctx, rule: LoadedRule, index: RuleIndex, visible: Set<number>): ApprovalRuleEntity {
  const user = (id: number) => {
    const row = index.users.get(id);
    return row ? toUserBasicEntity(row, ctx.urls) : null;
  };
  const users = (ids: number[]) => ids.map(user).filter((u): u is UserBasicEntity => u !== null);
  const groups = rule.groupIds.filter((id) => visible.has(id)).map((id) => toGroupEntity(index.groups.get(id)!, ctx.urls));
  return {
    id: rule.row.id,
    name: rule.row.name,
    rule_type: rule.row.rule_type,
    report_type: rule.row.report_type,
    eligible_approvers: users(approverIdsOf(rule, index)),
    approvals_required: rule.row.approvals_required,
    users: users(rule.userIds),
    groups,
    contains_hidden_groups: rule.groupIds.some((id) => !visible.has(id)),
  };
}

async function presentBranches(ctx: Ctx, branches: ProtectedBranchRow[]): Promise<Map<number, RuleProtectedBranchEntity>> {
  const out = new Map<number, RuleProtectedBranchEntity>();
  if (!branches.length) return out;
  const access = await loadAccessEntries(ctx, branches.map((b) => b.id));
  for (const b of branches) {
    const of = (action: ProtectedBranchAccessLevelRow['action']) => access.of(b.id, action);
    out.set(b.id, {
      id: b.id,
      name: b.name,
      push_access_levels: of('push'),
      merge_access_levels: of('merge'),
      unprotect_access_levels: of('unprotect'),
      code_owner_approval_required: String(b.code_owner_approval_required === 1),
    });
  }
  return out;
}

/** Project rule entities for a page of rules (a fixed number of queries). */
export async function presentProjectRules(ctx: Ctx, rows: ApprovalRuleRow[]): Promise<ProjectApprovalRuleEntity[]> {
  const rules = await loadRules(ctx.db, rows);
  const index = await loadRuleIndex(ctx.db, rules, ctx.clock.now().toISOString().slice(0, 10));
  const visible = await visibleGroupIds(ctx, rules, index);
  const branchRows = new Map<number, ProtectedBranchRow>();
  for (const r of rules) for (const pb of protectedBranchesOf(r, index)) branchRows.set(pb.id, pb);
  const branches = await presentBranches(ctx, [...branchRows.values()]);
  return rules.map((r) => ({
    ...presentRule(ctx, r, index, visible),
    applies_to_all_protected_branches: r.row.applies_to_all_protected_branches === 1,
    protected_branches: protectedBranchesOf(r, index).map((pb) => branches.get(pb.id)!),
  }));
}

/** Merge request rule entities, with their source project rule. */
export async function presentMergeRequestRules(ctx: Ctx, rows: ApprovalRuleRow[]): Promise<MergeRequestApprovalRuleEntity[]> {
  const rules = await loadRules(ctx.db, rows);
  const sourceIds = [...new Set(rows.map((r) => r.source_rule_id).filter((id): id is number => id !== null))];
  const sources = await loadRules(ctx.db, sourceIds.length ? await ctx.db.selectFrom('approval_rules').selectAll().where('id', 'in', sourceIds).execute() : []);
  const sourceById = new Map(sources.map((s) => [s.row.id, s]));
  const index = await loadRuleIndex(ctx.db, rules, ctx.clock.now().toISOString().slice(0, 10));
  const visible = await visibleGroupIds(ctx, rules, index);
  return rules.map((r) => {
    const source = r.row.source_rule_id === null ? undefined : sourceById.get(r.row.source_rule_id);
    return {
      ...presentRule(ctx, r, index, visible),
      source_rule: source ? { approvals_required: source.row.approvals_required } : null,
      overridden: source ? isOverridden(r, source) : false,
      section: null,
    };
  });
}

/** `ApprovalRuleLike#overridden?`: name, count, users or groups differ from the source rule. */
export function isOverridden(rule: LoadedRule, source: LoadedRule): boolean {
  const sorted = (ids: number[]) => [...ids].sort((x, y) => x - y);
  const same = (a: number[], b: number[]) => a.length === b.length && sorted(a).every((x, i) => x === sorted(b)[i]);
  return (
    source.row.name !== rule.row.name ||
    source.row.approvals_required !== rule.row.approvals_required ||
    !same(source.userIds, rule.userIds) ||
    !same(source.groupIds, rule.groupIds)
  );
}
