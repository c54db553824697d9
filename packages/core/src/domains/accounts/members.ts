/**
 * Members of projects and groups (one template for both, as GitLab's members API):
 * direct lists, `/members/all` with inherited memberships, add, edit, remove.
 */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ACCESS_LEVEL_NAMES, OWNER } from '../../access/levels.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { accessLevel, authorize, traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { memberRolesByIds, roleAssignmentErrors } from '../member-roles/index.js';
import { findGroup, findProject, findUser, selectNamespaceById } from '../../access/lookup.js';
import { toMemberEntity, type MemberEntity } from './member.entity.js';
import { insertMember } from './member.queries.js';
import { runMemberChanged } from './account-hooks.js';
import type { MemberRow } from '../../access/member.table.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';

export type SourceKind = 'projects' | 'groups';

interface Source {
  kind: 'project' | 'namespace';
  id: number;
  /** Ancestor group ids whose memberships are inherited here (nearest last). */
  inheritedFrom: number[];
  /** The top-level namespace (a group role must belong to it). */
  rootNamespaceId: number;
  subject: { kind: 'project'; project: ProjectRow } | { kind: 'group'; group: NamespaceRow };
}

async function resolveSource(ctx: Ctx, sourceKind: SourceKind, ref: string): Promise<Source> {
  if (sourceKind === 'projects') {
    const project = await findProject(ctx, ref);
    const ns = await selectNamespaceById(ctx, project.namespace_id);
    const inheritedFrom = ns.kind === 'group' ? traversalIds(ns.traversal) : [];
    return { kind: 'project', id: project.id, inheritedFrom, rootNamespaceId: inheritedFrom[0] ?? ns.id, subject: { kind: 'project', project } };
  }
  const group = await findGroup(ctx, ref);
  const path = traversalIds(group.traversal);
  return { kind: 'namespace', id: group.id, inheritedFrom: path.filter((id) => id !== group.id), rootNamespaceId: path[0] ?? group.id, subject: { kind: 'group', group } };
}

const readAbility = (s: Source) => (s.kind === 'project' ? 'read_project_member' : 'read_group_member');
const adminAbility = (s: Source) => (s.kind === 'project' ? 'admin_project_member' : 'admin_group_member');

export const ListMembersInput = params({
  id: p.string(),
  query: p.string().optional(),
  user_ids: p.array(p.id()).commaSeparated().optional(),
  skip_users: p.array(p.id()).commaSeparated().optional(),
  show_seat_info: p.boolean().optional(),
  ...paginationParams,
});
export type ListMembersInput = InferShape<typeof ListMembersInput.shape>;

export const AddMemberInput = params(
  {
    id: p.string(),
    user_id: p.string().optional(),
    username: p.username().optional(),
    access_level: p.enum([5, 10, 15, 20, 25, 30, 40, 50] as const),
    expires_at: p.date().optional(),
    member_role_id: p.integer().optional().describe('A custom role (Ultimate) whose base access level is `access_level`.'),
  },
  { exactlyOneOf: [['user_id', 'username']] },
);
export type AddMemberInput = InferShape<typeof AddMemberInput.shape>;

export const EditMemberInput = params({
  id: p.string(),
  user_id: p.id(),
  access_level: p.enum([5, 10, 15, 20, 25, 30, 40, 50] as const),
  expires_at: p.date().nullable().optional(),
  member_role_id: p.integer().nullable().optional().describe('A custom role (Ultimate); null removes the member\'s role.'),
});
export type EditMemberInput = InferShape<typeof EditMemberInput.shape>;

type PresentedRow = Pick<MemberRow, 'user_id' | 'access_level' | 'created_at' | 'expires_at' | 'created_by_id' | 'member_role_id'>;

/** Entities for a page of memberships: one query for the users, one for their custom roles. */
async function presentMembers(ctx: Ctx, rows: PresentedRow[]): Promise<MemberEntity[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.flatMap((r) => (r.created_by_id ? [r.user_id, r.created_by_id] : [r.user_id])))];
  const users = new Map((await ctx.db.selectFrom('users').selectAll().where('id', 'in', ids).execute()).map((u) => [u.id, u]));
  const roles = await memberRolesByIds(ctx, rows.flatMap((r) => (r.member_role_id ? [r.member_role_id] : [])));
  return rows.map((r) =>
    toMemberEntity(r, users.get(r.user_id)!, r.created_by_id ? users.get(r.created_by_id) ?? null : null, ctx.urls, r.member_role_id ? roles.get(r.member_role_id) : undefined),
  );
}

/**
 * The custom role of each user's membership that `/members/all` shows: the one with the
 * highest access level, the nearest source first on a tie (one query per page).
 */
async function withShownRoles<R extends Omit<PresentedRow, 'member_role_id'>>(ctx: Ctx, source: Source, rows: R[]): Promise<(R & { member_role_id: number | null })[]> {
  if (rows.length === 0) return [];
  const memberships = await ctx.db
    .selectFrom('members as m')
    .select(['m.user_id', 'm.access_level', 'm.member_role_id', 'm.source_kind', 'm.source_id'])
    .where('m.user_id', 'in', rows.map((r) => r.user_id))
    .where((eb) => {
      const ors = [eb.and([eb('m.source_kind', '=', source.kind), eb('m.source_id', '=', source.id)])];
      if (source.inheritedFrom.length) ors.push(eb.and([eb('m.source_kind', '=', 'namespace'), eb('m.source_id', 'in', source.inheritedFrom)]));
      return eb.or(ors);
    })
    .execute();
  const nearness = (m: { source_kind: string; source_id: number }) =>
    m.source_kind === source.kind && m.source_id === source.id ? Infinity : source.inheritedFrom.indexOf(m.source_id);
  const shown = new Map<number, (typeof memberships)[number]>();
  for (const m of memberships) {
    const best = shown.get(m.user_id);
    if (!best || m.access_level > best.access_level || (m.access_level === best.access_level && nearness(m) > nearness(best))) shown.set(m.user_id, m);
  }
  return rows.map((r) => ({ ...r, member_role_id: shown.get(r.user_id)?.member_role_id ?? null }));
}

function applyUserFilters<Q extends { where: (...a: any[]) => Q }>(q: Q, input: ListMembersInput, column: string): Q {
  if (input.user_ids?.length) q = q.where(column, 'in', input.user_ids);
  if (input.skip_users?.length) q = q.where(column, 'not in', input.skip_users);
  return q;
}

/** GET /:source/:id/members: direct members. */
export async function listMembers(ctx: Ctx, sourceKind: SourceKind, input: ListMembersInput): Promise<Page<MemberEntity>> {
  const source = await resolveSource(ctx, sourceKind, input.id);
  await authorize(ctx, readAbility(source), source.subject);
  let q = ctx.db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.access_level', 'm.created_at', 'm.expires_at', 'm.created_by_id', 'm.member_role_id'])
    .where('m.source_kind', '=', source.kind)
    .where('m.source_id', '=', source.id);
  if (input.query) {
    const like = `%${input.query.toLowerCase()}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(u.username)`, 'like', like), eb(sql`lower(u.name)`, 'like', like)]));
  }
  q = applyUserFilters(q, input, 'm.user_id').orderBy('m.id', 'asc');
  return paginate(ctx.db, q, input, (rows) => presentMembers(ctx, rows));
}

function allMembersQuery(ctx: Ctx, source: Source) {
  return ctx.db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select((eb) => [
      'm.user_id',
      eb.fn.max('m.access_level').as('access_level'),
      eb.fn.min('m.created_at').as('created_at'),
      eb.fn.max('m.expires_at').as('expires_at'),
      eb.fn.min('m.created_by_id').as('created_by_id'),
    ])
    .where((eb) => {
      const ors = [eb.and([eb('m.source_kind', '=', source.kind), eb('m.source_id', '=', source.id)])];
      if (source.inheritedFrom.length) ors.push(eb.and([eb('m.source_kind', '=', 'namespace'), eb('m.source_id', 'in', source.inheritedFrom)]));
      return eb.or(ors);
    })
    .groupBy('m.user_id');
}

/** GET /:source/:id/members/all: direct and inherited members, each with their highest level. */
export async function listAllMembers(ctx: Ctx, sourceKind: SourceKind, input: ListMembersInput): Promise<Page<MemberEntity>> {
  const source = await resolveSource(ctx, sourceKind, input.id);
  await authorize(ctx, readAbility(source), source.subject);
  let q = allMembersQuery(ctx, source);
  if (input.query) {
    const like = `%${input.query.toLowerCase()}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(u.username)`, 'like', like), eb(sql`lower(u.name)`, 'like', like)]));
  }
  q = applyUserFilters(q, input, 'm.user_id').orderBy('m.user_id', 'asc');
  return paginate(ctx.db, q, input, async (rows) => presentMembers(ctx, await withShownRoles(ctx, source, rows.map((r) => ({ ...r, access_level: Number(r.access_level) })))));
}

/** GET /:source/:id/members/:user_id and /members/all/:user_id */
export async function getMember(ctx: Ctx, sourceKind: SourceKind, ref: string, userId: number, inherited: boolean): Promise<MemberEntity> {
  const source = await resolveSource(ctx, sourceKind, ref);
  await authorize(ctx, readAbility(source), source.subject);
  let row: PresentedRow | undefined;
  if (inherited) {
    const found = await allMembersQuery(ctx, source).where('m.user_id', '=', userId).executeTakeFirst();
    if (found) [row] = await withShownRoles(ctx, source, [{ ...found, access_level: Number(found.access_level) }]);
  } else {
    row = await ctx.db
      .selectFrom('members as m')
      .select(['m.user_id', 'm.access_level', 'm.created_at', 'm.expires_at', 'm.created_by_id', 'm.member_role_id'])
      .where('m.source_kind', '=', source.kind)
      .where('m.source_id', '=', source.id)
      .where('m.user_id', '=', userId)
      .executeTakeFirst();
  }
  if (!row) throw new NotFoundError('Member');
  const [entity] = await presentMembers(ctx, [row]);
  return entity!;
}

/** Highest level the user inherits from ancestor groups (a direct membership may not go below it). */
async function inheritedLevel(ctx: Ctx, source: Source, userId: number): Promise<{ level: number; group: string } | null> {
  if (!source.inheritedFrom.length) return null;
  const row = await ctx.db
    .selectFrom('members as m')
    .innerJoin('namespaces as n', 'n.id', 'm.source_id')
    .select(['m.access_level', 'n.full_name'])
    .where('m.user_id', '=', userId)
    .where('m.source_kind', '=', 'namespace')
    .where('m.source_id', 'in', source.inheritedFrom)
    .orderBy('m.access_level', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { level: row.access_level, group: row.full_name } : null;
}

function checkExpiry(ctx: Ctx, expiresAt: string | null | undefined) {
  if (expiresAt && expiresAt < ctx.clock.now().toISOString().slice(0, 10)) {
    throw new BadRequestError({ expires_at: ['cannot be a date in the past'] }, { raw: true });
  }
}

/** GitLab: adding explains (400 on the member's base), updating refuses (403). */
const TOO_HIGH = {
  add: () => new BadRequestError("the member access level can't be higher than the current user's one", { raw: true }),
  edit: () => new ForbiddenError(),
};

async function checkGrant(ctx: Ctx, source: Source, userId: number, level: number, action: keyof typeof TOO_HIGH) {
  await authorize(ctx, adminAbility(source), source.subject);
  // Only Owners (and admins) may grant Owner.
  if (level === OWNER && !ctx.actor.isAdmin && (await accessLevel(ctx, source.subject)) < OWNER) throw new ForbiddenError();
  // A group member manager by custom role (`admin_group_member`) grants at most its own level.
  if (source.kind === 'namespace' && !ctx.actor.isAdmin && level > (await accessLevel(ctx, source.subject))) throw TOO_HIGH[action]();
  if (level === 5 && (source.kind === 'project' || source.inheritedFrom.length)) {
    throw new BadRequestError({ access_level: ['is not included in the list'] }, { raw: true });
  }
  const inherited = await inheritedLevel(ctx, source, userId);
  if (inherited && level < inherited.level) {
    throw new BadRequestError(
      { access_level: [`should be greater than or equal to ${ACCESS_LEVEL_NAMES[inherited.level]} inherited membership from group ${inherited.group}`] },
      { raw: true },
    );
  }
}

/** Custom roles are an Ultimate feature: below it, `member_role_id` is ignored (GitLab drops it). */
const customRolesEnabled = (ctx: Ctx) => tierAtLeast(ctx.config.tier, 'ultimate');

/** 400 with GitLab's model errors when `member_role_id` may not go with `level` on this source. */
async function checkRole(ctx: Ctx, source: Source, roleId: number, level: number): Promise<void> {
  const errors = await roleAssignmentErrors(ctx, roleId, level, source.rootNamespaceId, source.kind === 'project' ? 'project' : 'group');
  if (Object.keys(errors).length) throw new BadRequestError(errors, { raw: true });
}

/** POST /:source/:id/members */
export async function addMember(ctx: Ctx, sourceKind: SourceKind, input: AddMemberInput): Promise<MemberEntity> {
  const source = await resolveSource(ctx, sourceKind, input.id);
  await authorize(ctx, adminAbility(source), source.subject);
  const user = await findUser(ctx, (input.user_id ?? input.username)!);
  await checkGrant(ctx, source, user.id, input.access_level, 'add');
  checkExpiry(ctx, input.expires_at);
  const roleId = customRolesEnabled(ctx) ? (input.member_role_id ?? null) : null;
  if (roleId !== null) await checkRole(ctx, source, roleId, input.access_level);
  const now = nowIso(ctx);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const member = await insertMember(
        trx,
        {
          source_kind: source.kind,
          source_id: source.id,
          user_id: user.id,
          access_level: input.access_level,
          expires_at: input.expires_at ?? null,
          member_role_id: roleId,
          created_by_id: ctx.actor.user?.id ?? null,
        },
        now,
      );
      await runMemberChanged(trx, { action: 'create', by: ctx, member, source: source.subject });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError('Member already exists');
    throw err;
  }
  return getMember(ctx, sourceKind, input.id, user.id, false);
}

/** PUT /:source/:id/members/:user_id */
export async function editMember(ctx: Ctx, sourceKind: SourceKind, input: EditMemberInput): Promise<MemberEntity> {
  const source = await resolveSource(ctx, sourceKind, input.id);
  await authorize(ctx, adminAbility(source), source.subject);
  const existing = await ctx.db
    .selectFrom('members')
    .selectAll()
    .where('source_kind', '=', source.kind)
    .where('source_id', '=', source.id)
    .where('user_id', '=', input.user_id)
    .executeTakeFirst();
  if (!existing) throw new NotFoundError('Member');
  await checkGrant(ctx, source, input.user_id, input.access_level, 'edit');
  // nor change a member who holds more than it does (GitLab's `current_access_level` check)
  if (source.kind === 'namespace' && !ctx.actor.isAdmin && existing.access_level > (await accessLevel(ctx, source.subject))) throw TOO_HIGH.edit();
  checkExpiry(ctx, input.expires_at);
  if (existing.access_level === OWNER && !ctx.actor.isAdmin && (await accessLevel(ctx, source.subject)) < OWNER) throw new ForbiddenError();
  // The role: a new one is checked against the level; keeping one locks the level.
  const roleChange = customRolesEnabled(ctx) ? input.member_role_id : undefined;
  if (roleChange !== undefined && roleChange !== null) await checkRole(ctx, source, roleChange, input.access_level);
  if (roleChange === undefined && existing.member_role_id !== null && customRolesEnabled(ctx) && input.access_level !== existing.access_level) {
    const errors: Record<string, string[]> = {};
    const role = (await memberRolesByIds(ctx, [existing.member_role_id])).get(existing.member_role_id);
    if (role && role.base_access_level !== input.access_level) errors.member_role_id = ["the custom role's base access level does not match the current access level"];
    errors.access_level = ['cannot be changed because of an existing association with a custom role'];
    throw new BadRequestError(errors, { raw: true });
  }
  await ctx.db.transaction().execute(async (trx) => {
    const member = await trx
      .updateTable('members')
      .set({
        access_level: input.access_level,
        ...(input.expires_at !== undefined && { expires_at: input.expires_at }),
        ...(roleChange !== undefined && { member_role_id: roleChange }),
        updated_at: nowIso(ctx),
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (member.access_level !== existing.access_level || member.expires_at !== existing.expires_at) {
      await runMemberChanged(trx, { action: 'update', by: ctx, member, source: source.subject });
    }
  });
  return getMember(ctx, sourceKind, input.id, input.user_id, false);
}

/** DELETE /:source/:id/members/:user_id. A group keeps at least one Owner. */
export async function removeMember(ctx: Ctx, sourceKind: SourceKind, ref: string, userId: number): Promise<void> {
  const source = await resolveSource(ctx, sourceKind, ref);
  const self = ctx.actor.user?.id === userId;
  if (!self) await authorize(ctx, adminAbility(source), source.subject);
  const existing = await ctx.db
    .selectFrom('members')
    .selectAll()
    .where('source_kind', '=', source.kind)
    .where('source_id', '=', source.id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  if (!existing) throw new NotFoundError('Member');
  if (existing.access_level === OWNER && !ctx.actor.isAdmin && !self && (await accessLevel(ctx, source.subject)) < OWNER) throw new ForbiddenError();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('members').where('id', '=', existing.id).execute();
    if (source.kind === 'namespace' && existing.access_level === OWNER && source.inheritedFrom.length === 0) {
      const owners = await trx
        .selectFrom('members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('source_kind', '=', 'namespace')
        .where('source_id', '=', source.id)
        .where('access_level', '=', OWNER)
        .executeTakeFirstOrThrow();
      if (Number(owners.n) === 0) throw new ForbiddenError('A group must have at least one owner');
    }
    await runMemberChanged(trx, { action: 'destroy', by: ctx, member: existing, source: source.subject });
  });
}
