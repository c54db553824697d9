/**
 * Epic links (GitLab's deprecated `ee/lib/api/epic_links.rb`): the children of an epic.
 * Every call is authenticated; the group must be readable (404), multi-level epics need
 * Ultimate (403), and the parent is `authorize!`d (403, also for an unknown iid). Changing
 * the tree needs Guest on the parent's group (`admin_epic_relation`).
 */
import type { Ctx } from '../../access/context.js';
import { ConflictError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { authorize, can, namespaceOf, requireUser } from '../../access/policy.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { toLinkedEpicEntity, type EpicEntity, type LinkedEpicEntity } from './epic.entity.js';
import { checkEpicFields, NO_MATCHING_EPIC } from './epic-fields.js';
import { selectChildren, selectEpicById, selectIdsWithChildren, updateEpicById } from './epic.queries.js';
import { selectIdsWithIssues } from './epic-issue.queries.js';
import type { CreateChildEpicInput, EpicLinkPathInput, ReorderChildEpicInput } from './epic.schema.js';
import type { EpicRow } from './epic.table.js';
import { DEPTH_MESSAGE, maxDepthAchieved, moveBetween, startPosition, treeProblem } from './epic-tree.js';
import { insertNewEpic } from './create-epic.js';
import { canReadEpic, EPIC_LINKS_TIER, findEpic, findEpicGroup } from './find-epic.js';
import { presentEpic, presentEpics } from './present-epics.js';

async function findParent(ctx: Ctx, groupRef: string, iid: number): Promise<{ group: NamespaceRow; parent: EpicRow }> {
  requireUser(ctx);
  const group = await findEpicGroup(ctx, groupRef, EPIC_LINKS_TIER);
  return { group, parent: await findEpic(ctx, group, iid) };
}

/** The children of `parent` the caller can read, in tree order. */
async function readableChildren(ctx: Ctx, parent: EpicRow): Promise<EpicRow[]> {
  const out: EpicRow[] = [];
  for (const child of await selectChildren(ctx.db, parent.id)) if (await canReadEpic(ctx, child)) out.push(child);
  return out;
}

/** A readable child of `parent` by global id. */
async function findChild(ctx: Ctx, parent: EpicRow, childId: number): Promise<EpicRow | undefined> {
  const child = await selectEpicById(ctx.db, childId);
  return child && child.parent_id === parent.id && (await canReadEpic(ctx, child)) ? child : undefined;
}

/** GET /groups/:id/epics/:epic_iid/epics: children by relative position (not paginated, as in GitLab). */
export async function listChildEpics(ctx: Ctx, groupRef: string, iid: number): Promise<EpicEntity[]> {
  const { group, parent } = await findParent(ctx, groupRef, iid);
  return presentEpics(ctx, await readableChildren(ctx, parent), group);
}

/**
 * POST /groups/:id/epics/:epic_iid/epics/:child_epic_id: makes an existing epic (any group the
 * caller can link in) the first child, moving it from its old parent. An unknown or hidden
 * epic is 404; a refused tree change 409 with GitLab's message.
 */
export async function assignChildEpic(ctx: Ctx, input: EpicLinkPathInput): Promise<EpicEntity> {
  const { group, parent } = await findParent(ctx, input.id, input.epic_iid);
  await authorize(ctx, 'admin_epic_relation', { kind: 'group', group });
  const child = await selectEpicById(ctx.db, input.child_epic_id);
  const childGroup = child ? await namespaceOf(ctx, child.group_id) : undefined;
  if (!child || !childGroup || !(await canReadEpic(ctx, child, childGroup)) || !(await can(ctx, 'admin_epic_relation', { kind: 'group', group: childGroup }))) {
    throw new NotFoundError(null, { exact: NO_MATCHING_EPIC });
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (await maxDepthAchieved(trx, parent)) throw new ConflictError(DEPTH_MESSAGE);
    const current = (await selectEpicById(trx, child.id))!;
    const problem = await treeProblem(trx, parent, current, current.confidential === 1);
    if (problem) throw new ConflictError(problem.message);
    await updateEpicById(trx, child.id, { parent_id: parent.id, relative_position: await startPosition(trx, parent.id) });
    return (await selectEpicById(trx, child.id))!;
  });
  return presentEpic(ctx, row, group);
}

/**
 * POST /groups/:id/epics/:epic_iid/epics: creates an epic in the group as the parent's first
 * child; `confidential` defaults to the parent's. Answers GitLab's LinkedEpic (201).
 */
export async function createChildEpic(ctx: Ctx, input: CreateChildEpicInput): Promise<LinkedEpicEntity> {
  const { group, parent } = await findParent(ctx, input.id, input.epic_iid);
  await authorize(ctx, 'admin_epic_relation', { kind: 'group', group });
  checkEpicFields(input);
  const confidential = input.confidential ?? parent.confidential === 1;
  const row = await insertNewEpic(ctx, group, { title: input.title, confidential }, parent);
  const [withChildren, withIssues] = await Promise.all([selectIdsWithChildren(ctx.db, [row.id]), selectIdsWithIssues(ctx.db, [row.id])]);
  const has = { children: withChildren.has(row.id), issues: withIssues.has(row.id) };
  return toLinkedEpicEntity(row, group, { row: parent, group: await namespaceOf(ctx, parent.group_id) }, has, ctx.urls);
}

/**
 * PUT /groups/:id/epics/:epic_iid/epics/:child_epic_id: moves a child between siblings
 * (`move_before_id` ends up before it, `move_after_id` after it) and answers all children in
 * their new order. Not a child: 404; a sibling id that isn't one: 422.
 */
export async function reorderChildEpic(ctx: Ctx, input: ReorderChildEpicInput): Promise<EpicEntity[]> {
  const { group, parent } = await findParent(ctx, input.id, input.epic_iid);
  await authorize(ctx, 'admin_epic_relation', { kind: 'group', group });
  const child = await findChild(ctx, parent, input.child_epic_id);
  if (!child) throw new NotFoundError(null, { exact: 'Epic not found for given params' });
  if (input.move_before_id !== undefined || input.move_after_id !== undefined) {
    await ctx.db.transaction().execute(async (trx) => {
      const sibling = async (id: number | undefined) => {
        if (id === undefined) return undefined;
        const s = await selectEpicById(trx, id);
        if (!s || s.parent_id !== parent.id || s.id === child.id) throw new UnprocessableError('Epic not found for given params');
        return s;
      };
      const before = await sibling(input.move_before_id);
      const after = await sibling(input.move_after_id);
      await moveBetween(trx, parent.id, { type: 'epic', id: child.id }, before && { type: 'epic', id: before.id }, after && { type: 'epic', id: after.id });
    });
  }
  return presentEpics(ctx, await readableChildren(ctx, parent), group);
}

/** DELETE /groups/:id/epics/:epic_iid/epics/:child_epic_id: the child loses its parent; answers it (200). */
export async function unassignChildEpic(ctx: Ctx, input: EpicLinkPathInput): Promise<EpicEntity> {
  const { group, parent } = await findParent(ctx, input.id, input.epic_iid);
  await authorize(ctx, 'admin_epic_relation', { kind: 'group', group });
  const child = await findChild(ctx, parent, input.child_epic_id);
  if (!child || !(await can(ctx, 'admin_epic_relation', { kind: 'group', group: await namespaceOf(ctx, child.group_id) }))) {
    throw new NotFoundError(null, { exact: 'No Epic found for given params' });
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    await updateEpicById(trx, child.id, { parent_id: null });
    return (await selectEpicById(trx, child.id))!;
  });
  return presentEpic(ctx, row, group);
}
