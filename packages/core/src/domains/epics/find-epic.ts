/**
 * The lookups every epic route shares. GitLab resolves the group first (404 when the caller
 * can't see it), then checks the license (403), then `authorize!(:read_epic, epic)`, which
 * answers 403 for an unknown iid as for an epic the caller may not read.
 */
import type { Ctx } from '../../access/context.js';
import { ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { can, canRead, namespaceOf } from '../../access/policy.js';
import { requireTier, tierAtLeast, type Tier } from '../../kernel/tiers.js';
import { findGroup } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { selectEpicById, selectEpicByIid } from './epic.queries.js';
import type { EpicRow } from './epic.table.js';

/** Epics are Premium; multi-level epics (epic links) Ultimate. */
export const EPICS_TIER: Tier = 'premium';
export const EPIC_LINKS_TIER: Tier = 'ultimate';

/** `/groups/:id` for an epic route: the readable group (404), then the tier (403). */
export async function findEpicGroup(ctx: Ctx, ref: string, tier: Tier = EPICS_TIER): Promise<NamespaceRow> {
  const group = await findGroup(ctx, ref);
  requireTier(ctx, tier);
  return group;
}

/** May the actor read this epic? Its group must be readable; confidential epics need Reporter there. */
export async function canReadEpic(ctx: Ctx, epic: EpicRow, group?: NamespaceRow): Promise<boolean> {
  const g = group ?? (await namespaceOf(ctx, epic.group_id));
  if (!(await canRead(ctx, { kind: 'group', group: g }))) return false;
  return epic.confidential === 0 || can(ctx, 'read_confidential_epic', { kind: 'group', group: g });
}

/** `:epic_iid` of the group: 403 when unknown or not readable, as GitLab's `authorize!(:read_epic, epic)`. */
export async function findEpic(ctx: Ctx, group: NamespaceRow, iid: number): Promise<EpicRow> {
  const epic = await selectEpicByIid(ctx.db, group.id, iid);
  if (!epic || !(await canReadEpic(ctx, epic, group))) throw new ForbiddenError();
  return epic;
}

/** An epic by global id with its group, when the actor can read it. */
export async function findReadableEpicById(ctx: Ctx, id: number): Promise<{ epic: EpicRow; group: NamespaceRow } | undefined> {
  const epic = await selectEpicById(ctx.db, id);
  if (!epic) return undefined;
  const group = await namespaceOf(ctx, epic.group_id);
  return (await canReadEpic(ctx, epic, group)) ? { epic, group } : undefined;
}

/**
 * `/groups/:id/epics/:epic_id` of the state-event routes: GitLab finds the eventable with
 * `target_id` for epics (`id_field: 'ID'`), so `:epic_id` is the epic's global id, looked up
 * among the epics of the group and its subgroups that the caller can read. Anything else, and
 * instances without epics (free tier), is ActiveRecord's `404 Not found`.
 */
export async function findEpicInHierarchy(ctx: Ctx, groupRef: string, epicId: number): Promise<EpicRow> {
  const group = await findGroup(ctx, groupRef);
  const missing = () => new NotFoundError(null, { exact: '404 Not found' });
  if (!tierAtLeast(ctx.config.tier, EPICS_TIER)) throw missing();
  const epic = await ctx.db
    .selectFrom('epics')
    .innerJoin('namespaces', 'namespaces.id', 'epics.group_id')
    .selectAll('epics')
    .where('epics.id', '=', epicId)
    .where('namespaces.traversal', 'like', `${group.traversal}%`)
    .executeTakeFirst();
  if (!epic || !(await canReadEpic(ctx, epic))) throw missing();
  return epic;
}
