/** Groups and subgroups: `/groups`, `/groups/:id`, `/groups/:id/subgroups`, `/groups/:id/descendant_groups`. */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { isoDate } from '../../kernel/clock.js';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../../kernel/errors.js';
import { OWNER } from '../../access/levels.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { authorize, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { bool } from '../../storage/dialect.js';
import { toGroupEntity, type GroupEntity } from './group.entity.js';
import { findGroup, selectNamespaceById } from '../../access/lookup.js';
import { insertMember } from './member.queries.js';
import { runGroupChanged, runMemberChanged, runProjectChanged } from './account-hooks.js';
import { checkPath, rethrowPathTaken } from './paths.js';
import { retireResourceTokens } from './tokens.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { groupMembershipFilter, visibleGroupsFilter } from '../../access/visibility.queries.js';

const VISIBILITY = ['private', 'internal', 'public'] as const;
const VISIBILITY_RANK: Record<string, number> = { private: 0, internal: 10, public: 20 };

const listFields = {
  search: p.search().optional(),
  all_available: p.boolean().optional(),
  owned: p.boolean().optional(),
  min_access_level: p.enum([10, 15, 20, 25, 30, 40, 50] as const).optional(),
  visibility: p.enum(VISIBILITY).optional(),
  skip_groups: p.array(p.id()).commaSeparated().optional(),
  order_by: p.enum(['name', 'path', 'id', 'similarity']).default('name'),
  sort: p.enum(['asc', 'desc']).default('asc'),
  statistics: p.boolean().optional(),
  with_custom_attributes: p.boolean().optional(),
  ...paginationParams,
};

export const ListGroupsInput = params({ ...listFields, top_level_only: p.boolean().optional() });
export type ListGroupsInput = InferShape<typeof ListGroupsInput.shape>;
export const ListSubgroupsInput = params({ id: p.string(), ...listFields });
export type ListSubgroupsInput = InferShape<typeof ListSubgroupsInput.shape>;

const settingFields = {
  description: p.string().optional(),
  visibility: p.enum(VISIBILITY).optional(),
  project_creation_level: p.enum(['noone', 'owner', 'maintainer', 'developer']).optional(),
  subgroup_creation_level: p.enum(['owner', 'maintainer']).optional(),
  request_access_enabled: p.boolean().optional(),
  share_with_group_lock: p.boolean().optional(),
  require_two_factor_authentication: p.boolean().optional(),
  lfs_enabled: p.boolean().optional(),
  default_branch: p.string().optional(),
};

export const CreateGroupInput = params({
  name: p.string().max(255).nonBlank(),
  path: p.string().max(255).nonBlank(),
  parent_id: p.id().optional(),
  ...settingFields,
});
export type CreateGroupInput = InferShape<typeof CreateGroupInput.shape>;

export const UpdateGroupInput = params({
  id: p.string(),
  name: p.string().max(255).nonBlank().optional(),
  path: p.string().max(255).nonBlank().optional(),
  ...settingFields,
});
export type UpdateGroupInput = InferShape<typeof UpdateGroupInput.shape>;

function listQuery(ctx: Ctx, input: ListGroupsInput | ListSubgroupsInput) {
  let q = ctx.db.selectFrom('namespaces as g').selectAll('g').where('g.kind', '=', 'group');
  const today = isoDate(ctx.clock.now());
  q = q.where((eb) => visibleGroupsFilter(eb, ctx.actor, today));
  const user = ctx.actor.user;
  const minLevel = input.owned ? OWNER : input.min_access_level;
  if (minLevel !== undefined) {
    if (!user) return q.where(sql<boolean>`1 = 0`);
    q = q.where((eb) => groupMembershipFilter(eb, user.id, today, minLevel));
  } else if (user && !ctx.actor.isAdmin && !input.all_available && !('id' in input)) {
    // Authenticated users list their groups unless they ask for all available ones.
    q = q.where((eb) => groupMembershipFilter(eb, user.id, today));
  }
  if (input.search) {
    const like = `%${input.search.toLowerCase()}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(g.name)`, 'like', like), eb(sql`lower(g.path)`, 'like', like)]));
  }
  if (input.visibility) q = q.where('g.visibility', '=', input.visibility);
  if (input.skip_groups?.length) q = q.where('g.id', 'not in', input.skip_groups);
  const order = input.order_by === 'similarity' ? 'name' : input.order_by;
  q = q.orderBy(order === 'name' || order === 'path' ? sql`lower(g.${sql.raw(order)})` : sql.ref(`g.${order}`), input.sort);
  if (order !== 'id') q = q.orderBy('g.id', input.sort);
  return q;
}

const toEntities = (ctx: Ctx) => (rows: NamespaceRow[]) => rows.map((r) => toGroupEntity(r, ctx.urls));

/** GET /groups */
export async function listGroups(ctx: Ctx, input: ListGroupsInput): Promise<Page<GroupEntity>> {
  let q = listQuery(ctx, input);
  if (input.top_level_only) q = q.where('g.parent_id', 'is', null);
  return paginate(ctx.db, q, input, toEntities(ctx));
}

/** GET /groups/:id/subgroups */
export async function listSubgroups(ctx: Ctx, input: ListSubgroupsInput): Promise<Page<GroupEntity>> {
  const group = await findGroup(ctx, input.id);
  return paginate(ctx.db, listQuery(ctx, input).where('g.parent_id', '=', group.id), input, toEntities(ctx));
}

/** GET /groups/:id/descendant_groups */
export async function listDescendantGroups(ctx: Ctx, input: ListSubgroupsInput): Promise<Page<GroupEntity>> {
  const group = await findGroup(ctx, input.id);
  const q = listQuery(ctx, input).where('g.traversal', 'like', `${group.traversal}%`).where('g.id', '!=', group.id);
  return paginate(ctx.db, q, input, toEntities(ctx));
}

/** GET /groups/:id */
export async function getGroup(ctx: Ctx, ref: string): Promise<GroupEntity> {
  return toGroupEntity(await findGroup(ctx, ref), ctx.urls);
}

function checkVisibilityUnderParent(visibility: string, parent: NamespaceRow | null) {
  if (parent && VISIBILITY_RANK[visibility]! > VISIBILITY_RANK[parent.visibility]!) {
    throw new BadRequestError({ visibility_level: [`${visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`] }, { raw: true });
  }
}

/** POST /groups: the creator becomes Owner. */
export async function createGroup(ctx: Ctx, input: CreateGroupInput): Promise<GroupEntity> {
  const user = requireUser(ctx);
  checkPath(input.path, 'group');
  let parent: NamespaceRow | null = null;
  if (input.parent_id !== undefined) {
    parent = await findGroup(ctx, input.parent_id);
    await authorize(ctx, 'create_subgroup', { kind: 'group', group: parent });
  } else if (!ctx.actor.isAdmin && !user.can_create_group) {
    throw new ForbiddenError();
  }
  const visibility = input.visibility ?? 'private';
  checkVisibilityUnderParent(visibility, parent);
  const now = nowIso(ctx);
  const fullPath = parent ? `${parent.full_path}/${input.path}` : input.path;
  const row = await rethrowPathTaken(() =>
    ctx.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('namespaces')
        .values({
          kind: 'group',
          name: input.name,
          path: input.path,
          full_path: fullPath,
          full_name: parent ? `${parent.full_name} / ${input.name}` : input.name,
          parent_id: parent?.id ?? null,
          traversal: '/',
          visibility,
          description: input.description ?? '',
          owner_id: null,
          default_branch: input.default_branch ?? null,
          project_creation_level: input.project_creation_level ?? 'developer',
          subgroup_creation_level: input.subgroup_creation_level ?? 'maintainer',
          request_access_enabled: input.request_access_enabled === false ? 0 : 1,
          share_with_group_lock: bool(input.share_with_group_lock),
          require_two_factor_authentication: bool(input.require_two_factor_authentication),
          lfs_enabled: input.lfs_enabled === false ? 0 : 1,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const traversal = `${parent ? parent.traversal : '/'}${inserted.id}/`;
      const group = await trx.updateTable('namespaces').set({ traversal }).where('id', '=', inserted.id).returningAll().executeTakeFirstOrThrow();
      await runGroupChanged(trx, { action: 'create', by: ctx, group });
      const member = await insertMember(trx, { source_kind: 'namespace', source_id: group.id, user_id: user.id, access_level: OWNER, created_by_id: user.id }, now);
      await runMemberChanged(trx, { action: 'create', by: ctx, member, source: { kind: 'group', group } });
      return group;
    }),
  );
  return toGroupEntity(row, ctx.urls);
}

/** Rewrites full paths and names below a renamed namespace (same transaction). */
export async function cascadeRename(trx: Kysely<Database>, before: NamespaceRow, after: NamespaceRow, now: string) {
  if (before.full_path !== after.full_path) {
    const oldLen = before.full_path.length;
    await trx
      .updateTable('namespaces')
      .set({ full_path: sql`${after.full_path} || substr(full_path, ${oldLen + 1})`, updated_at: now })
      .where('traversal', 'like', `${before.traversal}%`)
      .where('id', '!=', before.id)
      .execute();
    await trx
      .updateTable('projects')
      .set({ path_with_namespace: sql`${after.full_path} || substr(path_with_namespace, ${oldLen + 1})` })
      .where('namespace_id', 'in', (eb) => eb.selectFrom('namespaces').select('id').where('traversal', 'like', `${before.traversal}%`))
      .execute();
  }
  if (before.full_name !== after.full_name) {
    const oldLen = before.full_name.length;
    await trx
      .updateTable('namespaces')
      .set({ full_name: sql`${after.full_name} || substr(full_name, ${oldLen + 1})` })
      .where('traversal', 'like', `${before.traversal}%`)
      .where('id', '!=', before.id)
      .execute();
    await trx
      .updateTable('projects')
      .set({ name_with_namespace: sql`${after.full_name} || substr(name_with_namespace, ${oldLen + 1})` })
      .where('namespace_id', 'in', (eb) => eb.selectFrom('namespaces').select('id').where('traversal', 'like', `${before.traversal}%`))
      .execute();
  }
}

/** PUT /groups/:id */
export async function updateGroup(ctx: Ctx, input: UpdateGroupInput): Promise<GroupEntity> {
  const group = await findGroup(ctx, input.id);
  await authorize(ctx, 'admin_group', { kind: 'group', group });
  if (input.path !== undefined) checkPath(input.path, 'group');
  const parent = group.parent_id ? await selectNamespaceById(ctx, group.parent_id) : null;
  if (input.visibility) checkVisibilityUnderParent(input.visibility, parent);
  const now = nowIso(ctx);
  const name = input.name ?? group.name;
  const path = input.path ?? group.path;
  const row = await rethrowPathTaken(() =>
    ctx.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('namespaces')
        .set({
          name,
          path,
          full_path: parent ? `${parent.full_path}/${path}` : path,
          full_name: parent ? `${parent.full_name} / ${name}` : name,
          ...(input.description !== undefined && { description: input.description }),
          ...(input.visibility !== undefined && { visibility: input.visibility }),
          ...(input.project_creation_level !== undefined && { project_creation_level: input.project_creation_level }),
          ...(input.subgroup_creation_level !== undefined && { subgroup_creation_level: input.subgroup_creation_level }),
          ...(input.request_access_enabled !== undefined && { request_access_enabled: bool(input.request_access_enabled) }),
          ...(input.share_with_group_lock !== undefined && { share_with_group_lock: bool(input.share_with_group_lock) }),
          ...(input.require_two_factor_authentication !== undefined && { require_two_factor_authentication: bool(input.require_two_factor_authentication) }),
          ...(input.lfs_enabled !== undefined && { lfs_enabled: bool(input.lfs_enabled) }),
          ...(input.default_branch !== undefined && { default_branch: input.default_branch }),
          updated_at: now,
        })
        .where('id', '=', group.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await cascadeRename(trx, group, updated, now);
      if (updated.path !== group.path) await runGroupChanged(trx, { action: 'rename', by: ctx, group: updated, before: group });
      return updated;
    }),
  );
  return toGroupEntity(row, ctx.urls);
}

/** DELETE /groups/:id: removes the group, its subgroups and their projects in one transaction. */
export async function deleteGroup(ctx: Ctx, ref: string): Promise<void> {
  const group = await findGroup(ctx, ref);
  if (!ctx.actor.user) throw new UnauthorizedError();
  await authorize(ctx, 'remove_group', { kind: 'group', group });
  const prefix = `${group.traversal}%`;
  const removed: number[] = [];
  await ctx.db.transaction().execute(async (trx) => {
    const inTree = trx.selectFrom('namespaces').select('id').where('traversal', 'like', prefix);
    const projectsInTree = trx.selectFrom('projects').select('id').where('namespace_id', 'in', inTree);
    // As GitLab's Groups::DestroyService: the projects go, then the groups, the deepest first.
    for (const project of await trx.selectFrom('projects').selectAll().where('namespace_id', 'in', inTree).orderBy('id').execute()) {
      await runProjectChanged(trx, { action: 'destroy', by: ctx, project });
      removed.push(project.id);
    }
    const groups = await trx.selectFrom('namespaces').selectAll().where('traversal', 'like', prefix).orderBy(sql`length(traversal)`, 'desc').orderBy('id').execute();
    for (const g of groups) await runGroupChanged(trx, { action: 'destroy', by: ctx, group: g });
    await retireResourceTokens(trx, 'group', (await inTree.execute()).map((r) => r.id));
    await retireResourceTokens(trx, 'project', (await projectsInTree.execute()).map((r) => r.id));
    await trx.deleteFrom('members').where('source_kind', '=', 'project').where('source_id', 'in', projectsInTree).execute();
    await trx.deleteFrom('projects').where('namespace_id', 'in', inTree).execute();
    await trx.deleteFrom('members').where('source_kind', '=', 'namespace').where('source_id', 'in', inTree).execute();
    await trx.deleteFrom('namespaces').where('traversal', 'like', prefix).execute();
  });
  // The projects' git repositories go once the rows are gone.
  for (const id of removed) await ctx.git.remove(id).catch(() => {});
}
