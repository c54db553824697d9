import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { EpicRow, EpicTable, NewEpicRow } from './epic.table.js';
import type { Updateable } from 'kysely';

export type EpicUpdate = Updateable<EpicTable>;

export function selectEpicById(db: Kysely<Database>, id: number): Promise<EpicRow | undefined> {
  return db.selectFrom('epics').selectAll().where('id', '=', id).executeTakeFirst();
}

export function selectEpicByIid(db: Kysely<Database>, groupId: number, iid: number): Promise<EpicRow | undefined> {
  return db.selectFrom('epics').selectAll().where('group_id', '=', groupId).where('iid', '=', iid).executeTakeFirst();
}

export async function insertEpic(trx: Kysely<Database>, values: NewEpicRow): Promise<EpicRow> {
  return trx.insertInto('epics').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateEpicById(trx: Kysely<Database>, id: number, set: EpicUpdate): Promise<void> {
  await trx.updateTable('epics').set(set).where('id', '=', id).execute();
}

/** Closes an open epic; false when it was already closed. */
export async function closeEpicById(trx: Kysely<Database>, id: number, userId: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('epics')
    .set({ state: 'closed', closed_at: now, closed_by_id: userId, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'opened')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Reopens a closed epic; false when it was open. */
export async function reopenEpicById(trx: Kysely<Database>, id: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('epics')
    .set({ state: 'opened', closed_at: null, closed_by_id: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'closed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Deletes an epic with its label links and state events; its children lose their parent. */
export async function deleteEpicById(trx: Kysely<Database>, id: number): Promise<void> {
  await trx.updateTable('epics').set({ parent_id: null }).where('parent_id', '=', id).execute();
  await trx.deleteFrom('label_links').where('target_type', '=', 'Epic').where('target_id', '=', id).execute();
  await trx.deleteFrom('resource_state_events').where('epic_id', '=', id).execute();
  await trx.deleteFrom('epics').where('id', '=', id).execute();
}

/** Children of an epic in tree order: relative position, then newest first (GitLab's order_relative_position). */
export function selectChildren(db: Kysely<Database>, parentId: number): Promise<EpicRow[]> {
  return db.selectFrom('epics').selectAll().where('parent_id', '=', parentId).orderBy('relative_position', 'asc').orderBy('id', 'desc').execute();
}

export async function countChildren(db: Kysely<Database>, parentId: number): Promise<number> {
  const row = await db.selectFrom('epics').select((eb) => eb.fn.countAll<number | string>().as('n')).where('parent_id', '=', parentId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ids of epics (among `ids`) that have at least one child. */
export async function selectIdsWithChildren(db: Kysely<Database>, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('epics').select('parent_id').distinct().where('parent_id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.parent_id!));
}

/** The ancestors of an epic, nearest first (the tree is kept acyclic, so this ends). */
export async function selectAncestors(db: Kysely<Database>, epic: EpicRow): Promise<EpicRow[]> {
  const out: EpicRow[] = [];
  let parentId = epic.parent_id;
  while (parentId !== null) {
    const parent = await selectEpicById(db, parentId);
    if (!parent || out.some((e) => e.id === parent.id)) break;
    out.push(parent);
    parentId = parent.parent_id;
  }
  return out;
}

/** Every descendant of the epics `ids` (children, their children, …), the epics themselves left out. */
export async function selectDescendants(db: Kysely<Database>, ids: readonly number[]): Promise<EpicRow[]> {
  if (ids.length === 0) return [];
  // UNION (not UNION ALL) ends the walk even on a cycle the tree rules should never let in.
  return db
    .withRecursive('tree(id)', (qc) =>
      qc.selectFrom('epics').select('id').where('parent_id', 'in', [...ids]).union(qc.selectFrom('epics as e').innerJoin('tree', 'tree.id', 'e.parent_id').select('e.id')),
    )
    .selectFrom('epics')
    .innerJoin('tree', 'tree.id', 'epics.id')
    .selectAll('epics')
    .execute();
}

/** Levels of the subtree rooted at `epicId`, the epic itself counting 1 (GitLab's max_descendants_depth). */
export async function subtreeDepth(db: Kysely<Database>, epicId: number): Promise<number> {
  let depth = 1;
  let level = [epicId];
  const seen = new Set(level);
  for (;;) {
    const rows = await db.selectFrom('epics').select('id').where('parent_id', 'in', level).execute();
    const next = rows.map((r) => r.id).filter((id) => !seen.has(id));
    if (next.length === 0) return depth;
    for (const id of next) seen.add(id);
    depth += 1;
    level = next;
  }
}

/** A node of an epic's tree: a child epic or one of the epic's issues (GitLab's `EpicTreeSorting`). */
export interface TreeNode {
  type: 'epic' | 'epic_issue';
  id: number;
  relative_position: number | null;
}

/** The child epics and issues of `parentId`, the one order they share: position (none last), then id. */
export async function selectTreeNodes(db: Kysely<Database>, parentId: number): Promise<TreeNode[]> {
  const rows = await db
    .selectFrom('epics')
    .select([sql<TreeNode['type']>`'epic'`.as('type'), 'id', 'relative_position'])
    .where('parent_id', '=', parentId)
    .unionAll(
      db.selectFrom('epic_issues').select([sql<TreeNode['type']>`'epic_issue'`.as('type'), 'id', 'relative_position']).where('epic_id', '=', parentId),
    )
    .execute();
  const key = (n: TreeNode) => n.relative_position ?? Number.MAX_SAFE_INTEGER;
  return rows.sort((a, b) => key(a) - key(b) || a.id - b.id);
}

/** How many child epics and issues `parentId` has (GitLab's limit counts both). */
export async function countTreeNodes(db: Kysely<Database>, parentId: number): Promise<number> {
  const [epics, issues] = await Promise.all([
    db.selectFrom('epics').select((eb) => eb.fn.countAll<number | string>().as('n')).where('parent_id', '=', parentId).executeTakeFirstOrThrow(),
    db.selectFrom('epic_issues').select((eb) => eb.fn.countAll<number | string>().as('n')).where('epic_id', '=', parentId).executeTakeFirstOrThrow(),
  ]);
  return Number(epics.n) + Number(issues.n);
}

export async function updateTreeNodePosition(trx: Kysely<Database>, node: Pick<TreeNode, 'type' | 'id'>, position: number): Promise<void> {
  const table = node.type === 'epic' ? 'epics' : 'epic_issues';
  await trx.updateTable(table).set({ relative_position: position }).where('id', '=', node.id).execute();
}
