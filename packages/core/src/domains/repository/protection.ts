/**
 * Protected branches as an access question: may the actor push to, merge into or unprotect a
 * branch? A branch matched by several rules (exact names and wildcards) follows the most
 * permissive one, as GitLab does. Unprotected branches need `push_code` (Developer).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { Ctx } from '../../access/context.js';
import { ADMIN, DEVELOPER, NO_ACCESS } from '../../access/levels.js';
import { accessLevel, can, namespaceOf } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { branchPatternMatches } from './refs.js';
import type { ProtectedBranchAccessLevelRow, ProtectedBranchRow, ProtectedTagRow } from './repository.table.js';

export type ProtectedAction = 'push' | 'merge' | 'unprotect';

/** Protection rules of the project that match the branch. */
export async function protectionsOf(db: Kysely<Database>, projectId: number, branch: string): Promise<ProtectedBranchRow[]> {
  // Exact names are found by index; wildcard rules are few per project.
  const rows = await db
    .selectFrom('protected_branches')
    .selectAll()
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('name', '=', branch), eb('name', 'like', '%*%')]))
    .orderBy('id')
    .execute();
  return rows.filter((r) => branchPatternMatches(r.name, branch));
}

/** Does one access-level entry admit the actor? */
async function entryAdmits(ctx: Ctx, project: ProjectRow, entry: Pick<ProtectedBranchAccessLevelRow, 'access_level' | 'user_id' | 'group_id'>, level: number): Promise<boolean> {
  const user = ctx.actor.user;
  if (!user) return false;
  if (entry.user_id !== null) return entry.user_id === user.id && level >= 30;
  if (entry.group_id !== null) {
    const group = await namespaceOf(ctx, entry.group_id).catch(() => undefined);
    if (!group) return false;
    return (await accessLevel(ctx, { kind: 'group', group })) >= 30;
  }
  const required = entry.access_level ?? NO_ACCESS;
  if (required === NO_ACCESS) return false;
  if (ctx.actor.isAdmin) return true;
  return level >= required && required <= ADMIN;
}

/**
 * May the actor perform `action` on the branch? Unprotected: push and merge need `push_code`
 * (Developer); unprotecting needs `admin_protected_branch`.
 */
export async function canOnBranch(ctx: Ctx, project: ProjectRow, branch: string, action: ProtectedAction): Promise<boolean> {
  const subject = { kind: 'project' as const, project };
  if (!(await can(ctx, 'push_code', subject))) return false;
  const rules = await protectionsOf(ctx.db, project.id, branch);
  if (!rules.length) return action === 'unprotect' ? can(ctx, 'admin_protected_branch', subject) : true;
  const level = await accessLevel(ctx, subject);
  const entries = await ctx.db
    .selectFrom('protected_branch_access_levels')
    .selectAll()
    .where('protected_branch_id', 'in', rules.map((r) => r.id))
    .where('action', '=', action)
    .execute();
  for (const entry of entries) if (await entryAdmits(ctx, project, entry, level)) return true;
  return false;
}

/**
 * GitLab's `ProtectedBranch#can_unprotect?`: a rule with no unprotect entries may be changed by
 * whoever administers protected branches; otherwise one of its unprotect entries must admit the
 * actor (administrators always pass). Used before updating or deleting the rule itself.
 */
export async function canUnprotectRule(ctx: Ctx, project: ProjectRow, ruleId: number): Promise<boolean> {
  if (ctx.actor.isAdmin) return true;
  const entries = await ctx.db
    .selectFrom('protected_branch_access_levels')
    .selectAll()
    .where('protected_branch_id', '=', ruleId)
    .where('action', '=', 'unprotect')
    .execute();
  if (!entries.length) return true;
  const level = await accessLevel(ctx, { kind: 'project', project });
  for (const entry of entries) if (await entryAdmits(ctx, project, entry, level)) return true;
  return false;
}

/** True when some protection rule matches the branch. */
export async function isProtectedBranch(db: Kysely<Database>, projectId: number, branch: string): Promise<boolean> {
  return (await protectionsOf(db, projectId, branch)).length > 0;
}

/** Every protection rule of a project with its access entries, loaded once for a page of branches. */
export interface BranchRules {
  /** Rules whose name or wildcard matches the branch. */
  matching(branch: string): ProtectedBranchRow[];
  /** The answer `canOnBranch` gives, without a query per branch. */
  can(branch: string, action: ProtectedAction): Promise<boolean>;
  /** GitLab's `developers_can_push` / `developers_can_merge`: a matching rule grants Developers exactly. */
  developersCan(branch: string, action: 'push' | 'merge'): boolean;
}

/**
 * GitLab's `can_update_branch?`: may the actor push to or merge into the branch? (Running a
 * pipeline on it and merging into it ask this.) The rules are read once for both actions.
 */
export async function canUpdateBranch(ctx: Ctx, project: ProjectRow, branch: string): Promise<boolean> {
  const rules = await loadBranchRules(ctx, project);
  return (await rules.can(branch, 'push')) || (await rules.can(branch, 'merge'));
}

export async function loadBranchRules(ctx: Ctx, project: ProjectRow): Promise<BranchRules> {
  const subject = { kind: 'project' as const, project };
  const rules = await ctx.db.selectFrom('protected_branches').selectAll().where('project_id', '=', project.id).orderBy('id').execute();
  const entries = rules.length
    ? await ctx.db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', 'in', rules.map((r) => r.id)).execute()
    : [];
  const pushCode = await can(ctx, 'push_code', subject);
  let level: number | undefined;
  const matching = (branch: string) => rules.filter((r) => branchPatternMatches(r.name, branch));
  const entriesOf = (branch: string, action: ProtectedAction) => {
    const ids = new Set(matching(branch).map((r) => r.id));
    return entries.filter((e) => ids.has(e.protected_branch_id) && e.action === action);
  };
  return {
    matching,
    async can(branch, action) {
      if (!pushCode) return false;
      if (!matching(branch).length) return action === 'unprotect' ? can(ctx, 'admin_protected_branch', subject) : true;
      level ??= await accessLevel(ctx, subject);
      for (const entry of entriesOf(branch, action)) if (await entryAdmits(ctx, project, entry, level)) return true;
      return false;
    },
    developersCan(branch, action) {
      return entriesOf(branch, action).some((e) => e.access_level === DEVELOPER);
    },
  };
}

/** Protected tag rules of the project that match the tag (exact names and wildcards). */
export async function tagProtectionsOf(db: Kysely<Database>, projectId: number, tag: string): Promise<ProtectedTagRow[]> {
  const rows = await db
    .selectFrom('protected_tags')
    .selectAll()
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('name', '=', tag), eb('name', 'like', '%*%')]))
    .orderBy('id')
    .execute();
  return rows.filter((r) => branchPatternMatches(r.name, tag));
}

/**
 * GitLab's `UserAccess#can_create_tag?`: a protected tag needs one of its rules' create
 * entries to admit the actor; an unprotected one needs `push_code` (GitLab's `admin_tag`, Developer).
 */
export async function canCreateTag(ctx: Ctx, project: ProjectRow, tag: string): Promise<boolean> {
  const subject = { kind: 'project' as const, project };
  const rules = await tagProtectionsOf(ctx.db, project.id, tag);
  if (!rules.length) return can(ctx, 'push_code', subject);
  const level = await accessLevel(ctx, subject);
  const entries = await ctx.db.selectFrom('protected_tag_create_access_levels').selectAll().where('protected_tag_id', 'in', rules.map((r) => r.id)).execute();
  for (const entry of entries) if (await entryAdmits(ctx, project, entry, level)) return true;
  return false;
}

/** GitLab's texts (lib/gitlab/checks/tag_check.rb). */
export const TAG_MESSAGES = {
  updateProtectedTag: 'Protected tags cannot be updated.',
  deleteProtectedTag: 'You are not allowed to delete protected tags from this project. Only a project maintainer or owner can delete a protected tag.',
  nonWebDeleteProtectedTag: 'You can only delete protected tags using the web interface.',
  createProtectedTag: 'You are not allowed to create this tag as it is protected.',
  defaultBranchCollision: 'You cannot use default branch name to create a tag',
} as const;
