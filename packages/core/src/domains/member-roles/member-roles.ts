/**
 * Custom member roles (Ultimate): a base access level plus permission flags, for the instance
 * (administrators) or for a top-level group (its Owners). What the flags allow is decided in
 * access/policy.ts (`CUSTOM_ROLE_ABILITIES`); roles are assigned through the members API.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ACCESS_LEVEL_NAMES } from '../../access/levels.js';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../kernel/errors.js';
import { authorize, CUSTOM_PERMISSIONS, requireAdmin, traversalIds, type CustomPermission } from '../../access/policy.js';
import { requireTier } from '../../kernel/tiers.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findGroup } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { enabledPermissions, toMemberRoleEntity, type MemberRoleEntity } from './member-role.entity.js';
import type { CreateRoleInput, UpdateRoleInput } from './member-role.schema.js';
import type { MemberRoleRow } from './member-role.table.js';

/** GitLab's `MemberRole::MAX_COUNT_PER_GROUP_HIERARCHY`. */
export const MAX_ROLES_PER_GROUP = 10;
const TEXT_LIMIT = 255;

/**
 * GitLab's `requirements` (ee/config/custom_abilities): a flag needs another one, unless the
 * base access level already includes it (`enabled_for_*_access_levels` of the requirement).
 */
const REQUIREMENTS: Partial<Record<CustomPermission, CustomPermission>> = {
  admin_vulnerability: 'read_vulnerability',
  manage_merge_request_settings: 'read_code',
};
const INCLUDED_FROM_LEVELS: Partial<Record<CustomPermission, readonly number[]>> = {
  read_vulnerability: [25, 30, 40, 50],
  read_code: [15, 20, 25, 30, 40, 50],
};

export const ROLE_ASSIGNED_MESSAGE = 'Role is assigned to one or more group members. Remove role from all group members, then delete role.';

/** Rails' `humanize`: `read_code` → `Read code`. */
const humanize = (flag: string) => flag.charAt(0).toUpperCase() + flag.slice(1).replace(/_/g, ' ');

/** Where a request's roles live: the instance (null) or a group. */
type Scope = { group: NamespaceRow } | { group: null };

// ---- authorization ----

/** `/member_roles`: an authenticated administrator on an Ultimate instance (403 otherwise). */
function instanceScope(ctx: Ctx): Scope {
  requireAdmin(ctx);
  requireTier(ctx, 'ultimate');
  return { group: null };
}

/** `/groups/:id/member_roles`: the readable group (404), then its Owner on Ultimate (403). */
async function groupScope(ctx: Ctx, ref: string): Promise<Scope & { group: NamespaceRow }> {
  if (!ctx.actor.user) throw new UnauthorizedError();
  const group = await findGroup(ctx, ref);
  await authorize(ctx, 'admin_member_role', { kind: 'group', group });
  requireTier(ctx, 'ultimate');
  return { group };
}

// ---- queries ----

function rolesOf(ctx: Ctx, namespaceId: number | null) {
  const q = ctx.db.selectFrom('member_roles').selectAll();
  return namespaceId === null ? q.where('namespace_id', 'is', null) : q.where('namespace_id', '=', namespaceId);
}

export async function selectMemberRole(ctx: Pick<Ctx, 'db'>, id: number): Promise<MemberRoleRow | undefined> {
  return ctx.db.selectFrom('member_roles').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Roles by id, for presenting members (one query). */
export async function memberRolesByIds(ctx: Pick<Ctx, 'db'>, ids: number[]): Promise<Map<number, MemberRoleRow>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await ctx.db.selectFrom('member_roles').selectAll().where('id', 'in', unique).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/** The scope's role with this id; `404 Member Role Not Found`. */
async function findRole(ctx: Ctx, scope: Scope, id: number): Promise<MemberRoleRow> {
  const row = await rolesOf(ctx, scope.group?.id ?? null).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('Member Role');
  return row;
}

async function nameTaken(ctx: Ctx, namespaceId: number | null, name: string, exceptId?: number): Promise<boolean> {
  let q = rolesOf(ctx, namespaceId).where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return Boolean(await q.select('id').executeTakeFirst());
}

// ---- validation (GitLab's MemberRole model, its messages in its order) ----

function requirementErrors(baseLevel: number, flags: ReadonlySet<CustomPermission>): string[] {
  const errors: string[] = [];
  for (const flag of CUSTOM_PERMISSIONS) {
    const requirement = REQUIREMENTS[flag];
    if (!flags.has(flag) || !requirement || flags.has(requirement)) continue;
    if (INCLUDED_FROM_LEVELS[requirement]?.includes(baseLevel)) continue;
    errors.push(`${humanize(requirement)} has to be enabled in order to enable ${humanize(flag)}`);
  }
  return errors;
}

function lengthErrors(name: string, description: string | null): string[] {
  const errors: string[] = [];
  if (name.length > TEXT_LIMIT) errors.push(`Name is too long (maximum is ${TEXT_LIMIT} characters)`);
  if (description && description.length > TEXT_LIMIT) errors.push(`Description is too long (maximum is ${TEXT_LIMIT} characters)`);
  return errors;
}

function throwIfAny(errors: string[]): void {
  if (errors.length) throw new BadRequestError(errors.join(', '), { raw: true });
}

/** The flags a request sets, each to true or false. */
function requestedFlags(input: Partial<Record<CustomPermission, boolean>>): Map<CustomPermission, boolean> {
  const out = new Map<CustomPermission, boolean>();
  for (const flag of CUSTOM_PERMISSIONS) if (input[flag] !== undefined) out.set(flag, input[flag]!);
  return out;
}

const serializeFlags = (flags: ReadonlySet<CustomPermission>) => JSON.stringify([...flags].sort());

// ---- use cases ----

async function listRoles(ctx: Ctx, namespaceId: number | null): Promise<MemberRoleEntity[]> {
  const rows = await rolesOf(ctx, namespaceId).orderBy('name', 'asc').orderBy('id', 'asc').execute();
  return rows.map(toMemberRoleEntity);
}

async function createRole(ctx: Ctx, scope: Scope, input: CreateRoleInput): Promise<MemberRoleEntity> {
  const group = scope.group;
  const name = input.name.trim() === '' ? `${ACCESS_LEVEL_NAMES[input.base_access_level]} - custom` : input.name;
  const description = input.description ?? null;
  const flags = new Set([...requestedFlags(input)].filter(([, on]) => on).map(([flag]) => flag));
  const namespaceId = group?.id ?? null;
  const errors: string[] = [];
  if (await nameTaken(ctx, namespaceId, name)) errors.push('Name has already been taken');
  errors.push(...lengthErrors(name, description));
  if (group && group.parent_id !== null) errors.push('Namespace must be top-level namespace');
  if (group) {
    const { n } = await ctx.db
      .selectFrom('member_roles')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('namespace_id', '=', group.id)
      .executeTakeFirstOrThrow();
    if (Number(n) >= MAX_ROLES_PER_GROUP) {
      errors.push('Namespace maximum number of Member Roles are already in use by the group hierarchy. Please delete an existing Member Role.');
    }
  }
  errors.push(...requirementErrors(input.base_access_level, flags));
  throwIfAny(errors);
  const now = nowIso(ctx);
  try {
    const row = await ctx.db
      .insertInto('member_roles')
      .values({ namespace_id: namespaceId, name, description, base_access_level: input.base_access_level, permissions: serializeFlags(flags), created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toMemberRoleEntity(row);
  } catch (err) {
    // a concurrent create took the name
    if (isUniqueViolation(err)) throw new BadRequestError('Name has already been taken', { raw: true });
    throw err;
  }
}

/** Name, description and flags change; the base access level and the scope never do. */
async function updateRole(ctx: Ctx, scope: Scope, input: UpdateRoleInput): Promise<MemberRoleEntity> {
  const role = await findRole(ctx, scope, input.member_role_id);
  const name = input.name ?? role.name;
  const description = input.description !== undefined ? input.description : role.description;
  const flags = enabledPermissions(role);
  for (const [flag, on] of requestedFlags(input)) {
    if (on) flags.add(flag);
    else flags.delete(flag);
  }
  const errors: string[] = [];
  if (name.trim() === '') errors.push("Name can't be blank");
  else if (await nameTaken(ctx, role.namespace_id, name, role.id)) errors.push('Name has already been taken');
  errors.push(...lengthErrors(name, description));
  if (input.base_access_level !== undefined && input.base_access_level !== role.base_access_level) {
    errors.push('Base access level cannot be changed. Please create a new Member Role instead.');
  }
  errors.push(...requirementErrors(role.base_access_level, flags));
  throwIfAny(errors);
  try {
    const row = await ctx.db
      .updateTable('member_roles')
      .set({ name, description, permissions: serializeFlags(flags), updated_at: nowIso(ctx) })
      .where('id', '=', role.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toMemberRoleEntity(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError('Name has already been taken', { raw: true });
    throw err;
  }
}

/** Refused while any membership holds the role (GitLab's message list, 400). */
async function deleteRole(ctx: Ctx, scope: Scope, id: number): Promise<void> {
  const role = await findRole(ctx, scope, id);
  await ctx.db.transaction().execute(async (trx) => {
    const assigned = await trx.selectFrom('members').select('id').where('member_role_id', '=', role.id).limit(1).executeTakeFirst();
    if (assigned) throw new BadRequestError([ROLE_ASSIGNED_MESSAGE], { raw: true });
    await trx.deleteFrom('member_roles').where('id', '=', role.id).execute();
  });
}

// ---- instance roles ----

export async function listInstanceRoles(ctx: Ctx): Promise<MemberRoleEntity[]> {
  instanceScope(ctx);
  return listRoles(ctx, null);
}
export async function createInstanceRole(ctx: Ctx, input: CreateRoleInput): Promise<MemberRoleEntity> {
  return createRole(ctx, instanceScope(ctx), input);
}
export async function updateInstanceRole(ctx: Ctx, input: UpdateRoleInput): Promise<MemberRoleEntity> {
  return updateRole(ctx, instanceScope(ctx), input);
}
export async function deleteInstanceRole(ctx: Ctx, id: number): Promise<void> {
  return deleteRole(ctx, instanceScope(ctx), id);
}

// ---- group roles ----

/** A subgroup lists the roles of its top-level group (GitLab's `root_ancestor.member_roles`). */
export async function listGroupRoles(ctx: Ctx, ref: string): Promise<MemberRoleEntity[]> {
  const { group } = await groupScope(ctx, ref);
  return listRoles(ctx, traversalIds(group.traversal)[0] ?? group.id);
}
/** Only a top-level group holds roles: a subgroup is refused with the model's message. */
export async function createGroupRole(ctx: Ctx, input: CreateRoleInput & { id: string }): Promise<MemberRoleEntity> {
  return createRole(ctx, await groupScope(ctx, input.id), input);
}
export async function updateGroupRole(ctx: Ctx, input: UpdateRoleInput & { id: string }): Promise<MemberRoleEntity> {
  return updateRole(ctx, await groupScope(ctx, input.id), input);
}
export async function deleteGroupRole(ctx: Ctx, ref: string, id: number): Promise<void> {
  return deleteRole(ctx, await groupScope(ctx, ref), id);
}

// ---- assignment (members API) ----

/**
 * Model errors for giving a membership the role (GitLab's `MemberRoles::MemberRoleRelation`):
 * the role must exist, belong to the instance or to the member's top-level group, and have
 * the membership's access level as its base. `ownerKey` is `group` or `project`.
 */
export async function roleAssignmentErrors(
  ctx: Ctx,
  roleId: number,
  accessLevel: number,
  rootNamespaceId: number,
  ownerKey: 'group' | 'project',
): Promise<Record<string, string[]>> {
  const role = await selectMemberRole(ctx, roleId);
  if (!role) return { member_role: ['not found'] };
  const errors: Record<string, string[]> = {};
  if (role.base_access_level !== accessLevel) errors.member_role_id = ["the custom role's base access level does not match the current access level"];
  if (role.namespace_id !== null && role.namespace_id !== rootNamespaceId) errors[ownerKey] = ["must be in same hierarchy as custom role's namespace"];
  return errors;
}
