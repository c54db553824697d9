/** GitLab's `Entities::ProtectedBranch` and `Entities::ProtectedRefAccess` (with the EE fields). */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import type { ProtectedBranchAccessLevelRow, ProtectedBranchRow } from '../repository/index.js';

export interface ProtectedRefAccessEntity {
  id: number;
  access_level: number | null;
  /** A role's name (`Maintainers`), or the user's or group's name. */
  access_level_description: string | null;
  user_id: number | null;
  group_id: number | null;
}

export interface ProtectedBranchEntity {
  id: number;
  name: string;
  push_access_levels: ProtectedRefAccessEntity[];
  merge_access_levels: ProtectedRefAccessEntity[];
  allow_force_push: boolean;
  unprotect_access_levels: ProtectedRefAccessEntity[];
  code_owner_approval_required: boolean;
  /** Always false: Forgelet has no group-level protected branches. */
  inherited: boolean;
}

/** `ProtectedRefAccess.human_access_levels`. */
export const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  30: 'Developers + Maintainers',
  40: 'Maintainers',
  60: 'Instance admins',
  0: 'No one',
};

/** An access entry row of a protected branch or tag rule. */
type AccessRow = Pick<ProtectedBranchAccessLevelRow, 'id' | 'access_level' | 'user_id' | 'group_id'>;

/**
 * Presents access entries (of branch or tag rules): one query each for the users and groups
 * they name; a role shows its human name.
 */
export async function accessEntryPresenter(ctx: Ctx, entries: readonly AccessRow[]): Promise<(e: AccessRow) => ProtectedRefAccessEntity> {
  const userIds = [...new Set(entries.filter((e) => e.user_id !== null).map((e) => e.user_id!))];
  const groupIds = [...new Set(entries.filter((e) => e.group_id !== null).map((e) => e.group_id!))];
  const [users, groups] = await Promise.all([
    selectUsersByIds(ctx.db, userIds),
    groupIds.length ? ctx.db.selectFrom('namespaces').select(['id', 'name']).where('id', 'in', groupIds).execute() : [],
  ]);
  const userName = new Map(users.map((u) => [u.id, u.name]));
  const groupName = new Map(groups.map((g) => [g.id, g.name]));
  return (e) => ({
    id: e.id,
    access_level: e.access_level,
    access_level_description:
      e.user_id !== null
        ? userName.get(e.user_id) ?? null
        : e.group_id !== null
          ? groupName.get(e.group_id) ?? null
          : HUMAN_ACCESS_LEVELS[e.access_level ?? -1] ?? null,
    user_id: e.user_id,
    group_id: e.group_id,
  });
}

/**
 * The access entries of some protected branches, presented: one query for the entries, one
 * each for the users and groups they name. `of(ruleId, action)` lists one rule's entries.
 */
export async function loadAccessEntries(
  ctx: Ctx,
  ruleIds: number[],
): Promise<{ of(ruleId: number, action: ProtectedBranchAccessLevelRow['action']): ProtectedRefAccessEntity[] }> {
  const entries = ruleIds.length
    ? await ctx.db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', ruleIds).orderBy('id').execute()
    : [];
  const present = await accessEntryPresenter(ctx, entries);
  return { of: (ruleId, action) => entries.filter((e) => e.protected_branch_id === ruleId && e.action === action).map(present) };
}

/** Entities for a page of rules (a fixed number of queries). */
export async function presentProtectedBranches(ctx: Ctx, rows: ProtectedBranchRow[]): Promise<ProtectedBranchEntity[]> {
  if (!rows.length) return [];
  const access = await loadAccessEntries(ctx, rows.map((r) => r.id));
  const of = (ruleId: number, action: ProtectedBranchAccessLevelRow['action']) => access.of(ruleId, action);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    push_access_levels: of(row.id, 'push'),
    merge_access_levels: of(row.id, 'merge'),
    allow_force_push: row.allow_force_push === 1,
    unprotect_access_levels: of(row.id, 'unprotect'),
    code_owner_approval_required: row.code_owner_approval_required === 1,
    inherited: false,
  }));
}

export async function presentProtectedBranch(ctx: Ctx, row: ProtectedBranchRow): Promise<ProtectedBranchEntity> {
  return (await presentProtectedBranches(ctx, [row]))[0]!;
}
