/**
 * Who may deploy to an environment and who must approve: the protected environments that
 * apply to it (GitLab's ProtectedEnvironment.for_environment: the project's own protection
 * of the environment's name, and every ancestor group's protection of its tier), their
 * deploy access levels and approval rules, checked as ProtectedEnvironments::Authorizable
 * does. Protected environments are a Premium feature: below it nothing is protected.
 */
import { selectUsersByIds } from '../../access/users.js';
import type { Kysely } from 'kysely';
import { GUEST } from '../../access/levels.js';
import type { Deps, ForgeConfig } from '../../access/context.js';
import { traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { UserRow } from '../../access/user.table.js';
import type { ApprovalRuleRow, DeployAccessLevelRow, DeploymentApprovalRow, ProtectedEnvironmentRow } from './delivery.table.js';

type Db = Kysely<Database>;

// ---- the licensed tier, reachable from a transaction -------------------------------------

/**
 * The forge configuration by Kysely adapter: a transaction shares its database's adapter, so
 * code that only holds a transaction (the CI hook) still knows the licensed tier.
 */
const configs = new WeakMap<object, ForgeConfig>();

/** Called once by createForge. */
export function registerDelivery(deps: Deps): void {
  configs.set(deps.db.getExecutor().adapter, deps.config);
}

/** Protected environments apply from Premium up (assumed when the forge was not registered). */
export function protectionsEnabled(db: Db): boolean {
  const config = configs.get(db.getExecutor().adapter);
  return config ? tierAtLeast(config.tier, 'premium') : true;
}

// ---- the protections of an environment ----------------------------------------------------

/** A protected environment with its entries and, for group-level ones, the group. */
export interface Protection {
  row: ProtectedEnvironmentRow;
  /** The group of a group-level protection (its members' levels count for access levels). */
  group: NamespaceRow | null;
  deployLevels: DeployAccessLevelRow[];
  rules: ApprovalRuleRow[];
}

/** Entries of protected environments, by protected environment id. */
export async function loadProtectionEntries(db: Db, rows: ProtectedEnvironmentRow[]): Promise<Map<number, { deployLevels: DeployAccessLevelRow[]; rules: ApprovalRuleRow[] }>> {
  const out = new Map(rows.map((r) => [r.id, { deployLevels: [] as DeployAccessLevelRow[], rules: [] as ApprovalRuleRow[] }]));
  if (!rows.length) return out;
  const ids = rows.map((r) => r.id);
  const [levels, rules] = await Promise.all([
    db.selectFrom('protected_environment_deploy_access_levels').selectAll().where('protected_environment_id', 'in', ids).orderBy('id').execute(),
    db.selectFrom('protected_environment_approval_rules').selectAll().where('protected_environment_id', 'in', ids).orderBy('id').execute(),
  ]);
  for (const l of levels) out.get(l.protected_environment_id)!.deployLevels.push(l);
  for (const r of rules) out.get(r.protected_environment_id)!.rules.push(r);
  return out;
}

/**
 * The protections of a project's environment: the project's protection of its name and the
 * protections of its tier by the project's group and every ancestor group.
 */
export async function protectionsFor(db: Db, project: { id: number; namespace_id: number }, env: { name: string; tier: string }): Promise<Protection[]> {
  if (!protectionsEnabled(db)) return [];
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const groupIds = namespace.kind === 'group' ? traversalIds(namespace.traversal) : [];
  const rows = await db
    .selectFrom('protected_environments')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('project_id', '=', project.id), eb('name', '=', env.name)]),
        ...(groupIds.length ? [eb.and([eb('group_id', 'in', groupIds), eb('name', '=', env.tier)])] : []),
      ]),
    )
    .orderBy('id')
    .execute();
  if (!rows.length) return [];
  const entries = await loadProtectionEntries(db, rows);
  const groupRowIds = [...new Set(rows.map((r) => r.group_id).filter((id): id is number => id !== null))];
  const groups = groupRowIds.length ? await db.selectFrom('namespaces').selectAll().where('id', 'in', groupRowIds).execute() : [];
  const groupById = new Map(groups.map((g) => [g.id, g]));
  return rows.map((row) => ({ row, group: row.group_id !== null ? (groupById.get(row.group_id) ?? null) : null, ...entries.get(row.id)! }));
}

// ---- access checks -------------------------------------------------------------------------

function today(now: string): string {
  return now.slice(0, 10);
}

/** Highest unexpired membership level of the user in the namespaces given. */
async function highestLevel(db: Db, userId: number, namespaceIds: number[], now: string): Promise<number> {
  if (!namespaceIds.length) return 0;
  const row = await db
    .selectFrom('members')
    .select((eb) => eb.fn.max('access_level').as('level'))
    .where('user_id', '=', userId)
    .where('source_kind', '=', 'namespace')
    .where('source_id', 'in', namespaceIds)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today(now))]))
    .executeTakeFirst();
  return Number(row?.level ?? 0);
}

/** The user's level on the project: direct membership or any of its groups'. */
async function projectLevel(db: Db, userId: number, projectId: number, now: string): Promise<number> {
  const project = await db.selectFrom('projects').select(['id', 'namespace_id']).where('id', '=', projectId).executeTakeFirst();
  if (!project) return 0;
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  if (namespace.kind === 'user') {
    if (namespace.owner_id === userId) return 50;
  }
  const direct = await db
    .selectFrom('members')
    .select((eb) => eb.fn.max('access_level').as('level'))
    .where('user_id', '=', userId)
    .where('source_kind', '=', 'project')
    .where('source_id', '=', projectId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today(now))]))
    .executeTakeFirst();
  const groups = namespace.kind === 'group' ? await highestLevel(db, userId, traversalIds(namespace.traversal), now) : 0;
  return Math.max(Number(direct?.level ?? 0), groups);
}

/** GitLab's Authorizable#check_access for one deploy access level or approval rule. */
export async function checkAccess(
  db: Db,
  entry: Pick<DeployAccessLevelRow, 'access_level' | 'user_id' | 'group_id' | 'group_inheritance_type'>,
  protection: Pick<Protection, 'row' | 'group'>,
  user: Pick<UserRow, 'id' | 'is_admin'> | null,
  now: string,
): Promise<boolean> {
  if (!user) return false;
  if (user.is_admin === 1) return true;
  if (entry.user_id !== null) return entry.user_id === user.id;
  if (entry.group_id !== null) {
    if (entry.group_inheritance_type === 1) {
      const group = await db.selectFrom('namespaces').select('traversal').where('id', '=', entry.group_id).executeTakeFirst();
      return group ? (await highestLevel(db, user.id, traversalIds(group.traversal), now)) >= GUEST : false;
    }
    return (await highestLevel(db, user.id, [entry.group_id], now)) > 0;
  }
  if (entry.access_level === null) return false;
  const level = protection.group
    ? await highestLevel(db, user.id, traversalIds(protection.group.traversal), now)
    : protection.row.project_id !== null
      ? await projectLevel(db, user.id, protection.row.project_id, now)
      : 0;
  return level >= entry.access_level;
}

/** May the user deploy under this protection (any of its deploy access levels)? */
export async function accessibleTo(db: Db, protection: Protection, user: Pick<UserRow, 'id' | 'is_admin'> | null, now: string): Promise<boolean> {
  for (const level of protection.deployLevels) if (await checkAccess(db, level, protection, user, now)) return true;
  return false;
}

/** GitLab's Environment#protected_from?: some protection does not let the user deploy. */
export async function protectedFrom(db: Db, protections: Protection[], user: Pick<UserRow, 'id' | 'is_admin'> | null, now: string): Promise<boolean> {
  if (user?.is_admin === 1) return false;
  for (const p of protections) if (!(await accessibleTo(db, p, user, now))) return true;
  return false;
}

// ---- approvals -----------------------------------------------------------------------------

export interface ApprovalRuleInScope {
  rule: ApprovalRuleRow;
  protection: Protection;
}

/** The approval rules of the protections; the legacy count applies when there are none. */
export function approvalRulesOf(protections: Protection[]): ApprovalRuleInScope[] {
  return protections.flatMap((protection) => protection.rules.map((rule) => ({ rule, protection })));
}

/** Environment#needs_approval?: approval rules, or a (legacy) required approval count. */
export function needsApproval(protections: Protection[]): boolean {
  return approvalRulesOf(protections).length > 0 || legacyApprovalCount(protections) > 0;
}

export function legacyApprovalCount(protections: Protection[]): number {
  return Math.max(0, ...protections.map((p) => p.row.required_approval_count));
}

/** Approvals still missing: per rule when there are rules, else against the legacy count. */
export function pendingApprovalCount(protections: Protection[], approvals: DeploymentApprovalRow[]): number {
  const approved = approvals.filter((a) => a.status === 'approved');
  const rules = approvalRulesOf(protections);
  if (rules.length) {
    return rules.reduce((n, { rule }) => n + Math.max(0, rule.required_approvals - approved.filter((a) => a.approval_rule_id === rule.id).length), 0);
  }
  return Math.max(0, legacyApprovalCount(protections) - approved.length);
}

export const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  30: 'Developers + Maintainers',
  40: 'Maintainers',
  60: 'Instance admins',
};

/** Authorizable#humanize: the user's name, the group's name, or the role. */
export function describeEntry(entry: Pick<DeployAccessLevelRow, 'access_level' | 'user_id' | 'group_id'>, names: { users: Map<number, string>; groups: Map<number, string> }): string | null {
  if (entry.user_id !== null) return names.users.get(entry.user_id) ?? null;
  if (entry.group_id !== null) return names.groups.get(entry.group_id) ?? null;
  return entry.access_level !== null ? (HUMAN_ACCESS_LEVELS[entry.access_level] ?? null) : null;
}

/** Names of the users and groups entries refer to, for their descriptions. */
export async function entryNames(db: Db, entries: Pick<DeployAccessLevelRow, 'user_id' | 'group_id'>[]): Promise<{ users: Map<number, string>; groups: Map<number, string> }> {
  const userIds = [...new Set(entries.map((e) => e.user_id).filter((id): id is number => id !== null))];
  const groupIds = [...new Set(entries.map((e) => e.group_id).filter((id): id is number => id !== null))];
  const [users, groups] = await Promise.all([
    selectUsersByIds(db, userIds),
    groupIds.length ? db.selectFrom('namespaces').select(['id', 'name']).where('id', 'in', groupIds).execute() : Promise.resolve([]),
  ]);
  return { users: new Map(users.map((u) => [u.id, u.name])), groups: new Map(groups.map((g) => [g.id, g.name])) };
}

/**
 * Environment#find_approval_rule_for: the first rule the user belongs to, or the one named
 * `representedAs` (a user's, group's or role's name).
 */
export async function findApprovalRuleFor(
  db: Db,
  protections: Protection[],
  user: Pick<UserRow, 'id' | 'is_admin'>,
  representedAs: string | undefined,
  now: string,
): Promise<ApprovalRuleInScope | undefined> {
  const mine: ApprovalRuleInScope[] = [];
  for (const r of approvalRulesOf(protections)) if (await checkAccess(db, r.rule, r.protection, user, now)) mine.push(r);
  if (representedAs === undefined || representedAs === '') return mine[0];
  const names = await entryNames(db, mine.map((r) => r.rule));
  return mine.find((r) => describeEntry(r.rule, names) === representedAs);
}
