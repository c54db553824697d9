/**
 * Protected branches as resources (GitLab's API::ProtectedBranches with ProtectedBranches::
 * {Create,Update,Destroy}Service). Whether a push, merge or unprotect is allowed is answered by
 * repository/protection.ts; this file only manages the rules and their access entries.
 */
import { sql, type Kysely, type SqlBool } from 'kysely';
import { isoDate } from '../../kernel/clock.js';
import { nowIso, type Ctx } from '../../access/context.js';
import { MAINTAINER } from '../../access/levels.js';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, namespaceOf, traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { canUnprotectRule } from '../repository/index.js';
import type { ProtectedBranchAccessLevelRow, ProtectedBranchRow } from '../repository/index.js';
import { presentProtectedBranch, presentProtectedBranches, type ProtectedBranchEntity } from './protected-branch.entity.js';
import type {
  AccessEntryInput,
  CreateProtectedBranchInput,
  ListProtectedBranchesInput,
  ProtectedBranchRefInput,
  UpdateProtectedBranchInput,
} from './protected-branch.schema.js';

type Action = ProtectedBranchAccessLevelRow['action'];
/** Validation order of GitLab's model: `protected_ref_access_levels :merge, :push`, then EE's unprotect. */
const ACTIONS: readonly Action[] = ['merge', 'push', 'unprotect'];
const PREFIX: Record<Action, string> = { push: 'Push access levels', merge: 'Merge access levels', unprotect: 'Unprotect access levels' };

/** An access entry as it will be stored (`id` for entries that exist already). */
export interface PlannedEntry {
  id?: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}

const NOT_FOUND = () => new NotFoundError(null, { exact: '404 Not found' });

/** Users, groups and several entries per action (`protected_refs_for_users`), unprotect restrictions, code owners: Premium. */
function premium(ctx: Ctx): boolean {
  return tierAtLeast(ctx.config.tier, 'premium');
}

export function planned(entry: AccessEntryInput, id?: number): PlannedEntry {
  const user = entry.user_id ?? null;
  const group = user === null ? entry.group_id ?? null : null;
  return { id, access_level: user === null && group === null ? entry.access_level ?? null : null, user_id: user, group_id: group };
}

async function findRule(ctx: Ctx, project: ProjectRow, name: string): Promise<ProtectedBranchRow> {
  const row = await ctx.db.selectFrom('protected_branches').selectAll().where('project_id', '=', project.id).where('name', '=', name).executeTakeFirst();
  if (!row) throw NOT_FOUND();
  return row;
}

/** `project.team.member?(user)`: a direct, inherited or namespace-owner membership of the project. */
async function isProjectMember(ctx: Ctx, project: ProjectRow, userId: number): Promise<boolean> {
  const ns = await namespaceOf(ctx, project.namespace_id);
  if (ns.kind === 'user') {
    if (ns.owner_id === userId) return true;
  }
  const groupIds = ns.kind === 'group' ? traversalIds(ns.traversal) : [];
  const today = isoDate(ctx.clock.now());
  const row = await ctx.db
    .selectFrom('members')
    .select('id')
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .where((eb) =>
      eb.or([
        eb.and([eb('source_kind', '=', 'project'), eb('source_id', '=', project.id)]),
        ...(groupIds.length ? [eb.and([eb('source_kind', '=', 'namespace'), eb('source_id', 'in', groupIds)])] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/**
 * The model validations of one action's entries (ProtectedRefAccess), as full messages:
 * roles need a level; users must be project members; groups must reach the project (Forgelet
 * has no project shares, so the project's own groups); no role, user or group twice.
 */
export async function entryErrors(ctx: Ctx, project: ProjectRow, prefix: string, entries: PlannedEntry[]): Promise<string[]> {
  const errors: string[] = [];
  const add = (m: string) => {
    if (!errors.includes(m)) errors.push(m);
  };
  const ns = await namespaceOf(ctx, project.namespace_id);
  const projectGroups = ns.kind === 'group' ? traversalIds(ns.traversal) : [];
  const seen = { level: new Set<number>(), user: new Set<number>(), group: new Set<number>() };
  for (const e of entries) {
    if (e.user_id !== null) {
      if (!premium(ctx)) add(`${prefix} user must be blank`);
      else if (!(await isProjectMember(ctx, project, e.user_id))) add(`${prefix} user is not a member of the project`);
      if (seen.user.has(e.user_id)) add(`${prefix} user has already been taken`);
      seen.user.add(e.user_id);
    } else if (e.group_id !== null) {
      if (!premium(ctx)) add(`${prefix} group must be blank`);
      else if (!projectGroups.includes(e.group_id)) add(`${prefix} group does not have access to the project`);
      if (seen.group.has(e.group_id)) add(`${prefix} group has already been taken`);
      seen.group.add(e.group_id);
    } else if (e.access_level === null) {
      add(`${prefix} access level can't be blank`);
    } else {
      if (seen.level.has(e.access_level)) add(`${prefix} access level has already been taken`);
      seen.level.add(e.access_level);
    }
  }
  return errors;
}

async function insertEntries(trx: Kysely<Database>, ruleId: number, action: Action, entries: PlannedEntry[]): Promise<void> {
  const fresh = entries.filter((e) => e.id === undefined);
  if (!fresh.length) return;
  await trx
    .insertInto('protected_branch_access_levels')
    .values(fresh.map((e) => ({ protected_branch_id: ruleId, action, access_level: e.access_level, user_id: e.user_id, group_id: e.group_id })))
    .execute();
}

/** A unique-index race on the name answers as the existence check does. */
async function guardNameRace<T>(name: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`Protected branch '${name}' already exists`);
    throw err;
  }
}

/** GET /projects/:id/protected_branches: whoever may read the code; by id. */
export async function listProtectedBranches(ctx: Ctx, input: ListProtectedBranchesInput): Promise<Page<ProtectedBranchEntity>> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  let q = ctx.db.selectFrom('protected_branches').selectAll().where('project_id', '=', project.id);
  const search = input.search?.trim();
  if (search) {
    const like = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<SqlBool>`lower(name) like ${like} escape '\\'`);
  }
  return paginate(ctx.db, q.orderBy('id'), input, (rows) => presentProtectedBranches(ctx, rows));
}

/** GET /projects/:id/protected_branches/:name (the exact rule name, wildcards included). */
export async function getProtectedBranch(ctx: Ctx, input: ProtectedBranchRefInput): Promise<ProtectedBranchEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_code', { kind: 'project', project });
  return presentProtectedBranch(ctx, await findRule(ctx, project, input.name));
}

/**
 * POST /projects/:id/protected_branches (Maintainer). Each of push, merge and unprotect gets
 * `<action>_access_level` (default Maintainers when no `allowed_to_<action>` is given) plus the
 * `allowed_to_<action>` entries.
 */
export async function createProtectedBranch(ctx: Ctx, input: CreateProtectedBranchInput): Promise<ProtectedBranchEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'admin_protected_branch', { kind: 'project', project });
  const exists = await ctx.db.selectFrom('protected_branches').select('id').where('project_id', '=', project.id).where('name', '=', input.name).executeTakeFirst();
  if (exists) throw new ConflictError(`Protected branch '${input.name}' already exists`);

  const plan = {} as Record<Action, PlannedEntry[]>;
  const errors: string[] = [];
  if (input.name.trim() === '') errors.push("Name can't be blank");
  for (const action of ACTIONS) {
    const allowed = (input[`allowed_to_${action}`] ?? []).filter((e) => !e._destroy);
    let level: number | undefined = input[`${action}_access_level`];
    if (level === undefined && allowed.length === 0) level = MAINTAINER;
    plan[action] = [...(level !== undefined ? [planned({ access_level: level })] : []), ...allowed.map((e) => planned(e))];
    errors.push(...(await entryErrors(ctx, project, PREFIX[action], plan[action])));
  }
  if (errors.length) throw new UnprocessableError(errors);

  const now = nowIso(ctx);
  const row = await guardNameRace(input.name, () =>
    ctx.db.transaction().execute(async (trx) => {
      const rule = await trx
        .insertInto('protected_branches')
        .values({
          project_id: project.id,
          name: input.name,
          allow_force_push: input.allow_force_push ? 1 : 0,
          code_owner_approval_required: premium(ctx) && input.code_owner_approval_required ? 1 : 0,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      for (const action of ACTIONS) await insertEntries(trx, rule.id, action, plan[action]);
      return rule;
    }),
  );
  return presentProtectedBranch(ctx, row);
}

/**
 * Maintainers may change or delete a rule; on Premium the rule's unprotect entries must also
 * admit the actor (GitLab's `ProtectedBranchPolicy` with unprotection restrictions).
 */
async function authorizeRuleChange(ctx: Ctx, project: ProjectRow, rule: ProtectedBranchRow): Promise<void> {
  await authorize(ctx, 'admin_protected_branch', { kind: 'project', project });
  if (premium(ctx) && !(await canUnprotectRule(ctx, project, rule.id))) throw new ForbiddenError();
}

/**
 * PATCH /projects/:id/protected_branches/:name: `allow_force_push`, `code_owner_approval_required`,
 * and the `allowed_to_*` entries (new ones; `{id, ...}` changes one; `{id, _destroy: true}`
 * removes one). `unprotect_access_level` adds an unprotect entry.
 */
export async function updateProtectedBranch(ctx: Ctx, input: UpdateProtectedBranchInput): Promise<ProtectedBranchEntity> {
  const project = await findProject(ctx, input.id);
  const rule = await findRule(ctx, project, input.name);
  await authorizeRuleChange(ctx, project, rule);
  const current = await ctx.db.selectFrom('protected_branch_access_levels').selectAll().where('protected_branch_id', '=', rule.id).orderBy('id').execute();

  const touched = new Map<Action, PlannedEntry[]>();
  const errors: string[] = [];
  for (const action of ACTIONS) {
    const changes = input[`allowed_to_${action}`] ?? [];
    const extra = action === 'unprotect' && input.unprotect_access_level !== undefined ? [planned({ access_level: input.unprotect_access_level })] : [];
    if (!changes.length && !extra.length) continue;
    let set: PlannedEntry[] = current
      .filter((e) => e.action === action)
      .map((e) => ({ id: e.id, access_level: e.access_level, user_id: e.user_id, group_id: e.group_id }));
    for (const change of changes) {
      if (change.id === undefined) {
        if (!change._destroy) set.push(planned(change));
        continue;
      }
      const existing = set.find((e) => e.id === change.id);
      if (!existing) throw NOT_FOUND();
      if (change._destroy) {
        set = set.filter((e) => e !== existing);
        continue;
      }
      const merged: AccessEntryInput = {
        access_level: change.access_level ?? existing.access_level ?? undefined,
        user_id: change.user_id ?? existing.user_id ?? undefined,
        group_id: change.group_id ?? existing.group_id ?? undefined,
      };
      if (change.access_level !== undefined && change.user_id === undefined && change.group_id === undefined) {
        merged.user_id = undefined;
        merged.group_id = undefined;
      }
      Object.assign(existing, planned(merged, existing.id));
    }
    set.push(...extra);
    touched.set(action, set);
    errors.push(...(await entryErrors(ctx, project, PREFIX[action], set)));
  }
  if (errors.length) throw new UnprocessableError(errors);

  const set: { allow_force_push?: number; code_owner_approval_required?: number; updated_at: string } = { updated_at: nowIso(ctx) };
  if (input.allow_force_push !== undefined) set.allow_force_push = input.allow_force_push ? 1 : 0;
  if (input.code_owner_approval_required !== undefined && premium(ctx)) set.code_owner_approval_required = input.code_owner_approval_required ? 1 : 0;
  const row = await ctx.db.transaction().execute(async (trx) => {
    for (const [action, entries] of touched) {
      const kept = entries.filter((e) => e.id !== undefined);
      let del = trx.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', rule.id).where('action', '=', action);
      if (kept.length) del = del.where('id', 'not in', kept.map((e) => e.id!));
      await del.execute();
      for (const e of kept) {
        await trx
          .updateTable('protected_branch_access_levels')
          .set({ access_level: e.access_level, user_id: e.user_id, group_id: e.group_id })
          .where('id', '=', e.id!)
          .execute();
      }
      await insertEntries(trx, rule.id, action, entries);
    }
    return trx.updateTable('protected_branches').set(set).where('id', '=', rule.id).returningAll().executeTakeFirstOrThrow();
  });
  return presentProtectedBranch(ctx, row);
}

/** DELETE /projects/:id/protected_branches/:name (204). */
export async function deleteProtectedBranch(ctx: Ctx, input: ProtectedBranchRefInput): Promise<void> {
  const project = await findProject(ctx, input.id);
  const rule = await findRule(ctx, project, input.name);
  await authorizeRuleChange(ctx, project, rule);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('protected_branch_access_levels').where('protected_branch_id', '=', rule.id).execute();
    await trx.deleteFrom('protected_branches').where('id', '=', rule.id).execute();
  });
}
