/**
 * The rules of the epic tree (GitLab's `EE::Epic#validate_parent_epic`, `validate_children_count`,
 * `validate_confidential_parent`) and relative positions among siblings.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { countChildren, renumberChildren, selectAncestors, selectChildren, subtreeDepth } from './epic.queries.js';
import type { EpicRow } from './epic.table.js';

export const MAX_HIERARCHY_DEPTH = 7;
export const MAX_CHILDREN_COUNT = 100;
/** Distance between neighbours when positions are handed out or rebalanced. */
const GAP = 500;

export const DEPTH_MESSAGE = `This epic cannot be added. One or more epics would exceed the maximum depth (${MAX_HIERARCHY_DEPTH}) from its most distant ancestor.`;

export interface TreeProblem {
  /** The model attribute GitLab files the error under. */
  field: 'parent' | 'confidential';
  message: string;
}

/**
 * Why `child` (an existing epic, or null for one being created) can't go under `parent`;
 * undefined when it can. `childConfidential` is the child's confidentiality after the change.
 */
export async function treeProblem(db: Kysely<Database>, parent: EpicRow, child: EpicRow | null, childConfidential: boolean): Promise<TreeProblem | undefined> {
  if (child) {
    if (child.id === parent.id) return { field: 'parent', message: 'This epic cannot be added. An epic cannot be added to itself.' };
    if (child.parent_id === parent.id) return { field: 'parent', message: 'This epic cannot be added. It is already assigned to the parent epic.' };
  }
  const ancestors = await selectAncestors(db, parent);
  if (child && ancestors.some((a) => a.id === child.id)) {
    return { field: 'parent', message: 'This epic cannot be added. It is already an ancestor of the parent epic.' };
  }
  // The child's own levels (at least 1) plus the parent's ancestors must stay under the limit.
  const depth = child ? await subtreeDepth(db, child.id) : 1;
  if (depth + ancestors.length >= MAX_HIERARCHY_DEPTH) return { field: 'parent', message: DEPTH_MESSAGE };
  if ((await countChildren(db, parent.id)) >= MAX_CHILDREN_COUNT) {
    return { field: 'parent', message: 'You cannot add any more epics. This epic already has maximum number of child epics.' };
  }
  if (!childConfidential && parent.confidential === 1) {
    return { field: 'confidential', message: 'A non-confidential epic cannot be assigned to a confidential parent epic' };
  }
  return undefined;
}

/** GitLab's `max_hierarchy_depth_achieved?`: the parent and its ancestors already fill every level. */
export async function maxDepthAchieved(db: Kysely<Database>, parent: EpicRow): Promise<boolean> {
  if (parent.parent_id === null) return false;
  return (await selectAncestors(db, parent)).length + 1 >= MAX_HIERARCHY_DEPTH;
}

/** A position before every current child of `parentId` (`move_to_start`). */
export async function startPosition(db: Kysely<Database>, parentId: number, exceptId?: number): Promise<number> {
  const siblings = (await selectChildren(db, parentId)).filter((e) => e.id !== exceptId && e.relative_position !== null);
  if (siblings.length === 0) return 0;
  return Math.min(...siblings.map((e) => e.relative_position!)) - GAP;
}

/**
 * Moves `child` between `before` (ends up right before it) and `after` (right after it),
 * GitLab's `move_between`. Positions stay integers: when two neighbours leave no room, the
 * siblings are renumbered in their current order first.
 */
export async function moveBetween(trx: Kysely<Database>, child: EpicRow, before: EpicRow | undefined, after: EpicRow | undefined): Promise<void> {
  const parentId = child.parent_id!;
  for (let attempt = 0; attempt < 2; attempt++) {
    const siblings = (await selectChildren(trx, parentId)).filter((e) => e.id !== child.id);
    const at = (e: EpicRow | undefined) => (e ? siblings.findIndex((s) => s.id === e.id) : -1);
    let lower: EpicRow | undefined;
    let upper: EpicRow | undefined;
    if (before && after) {
      lower = siblings[at(before)];
      upper = siblings[at(after)];
      // Given in the wrong order: the child still goes between them.
      if (lower && upper && (lower.relative_position ?? 0) > (upper.relative_position ?? 0)) [lower, upper] = [upper, lower];
    } else if (before) {
      lower = siblings[at(before)];
      upper = siblings[at(before) + 1];
    } else if (after) {
      upper = siblings[at(after)];
      lower = at(after) > 0 ? siblings[at(after) - 1] : undefined;
    } else return;
    const lo = lower?.relative_position ?? null;
    const hi = upper?.relative_position ?? null;
    let position: number | null;
    if (lo !== null && hi !== null) position = hi - lo >= 2 ? Math.floor((lo + hi) / 2) : null;
    else if (lo !== null) position = lo + GAP;
    else if (hi !== null) position = hi - GAP;
    else position = 0;
    if (position !== null) {
      await trx.updateTable('epics').set({ relative_position: position }).where('id', '=', child.id).execute();
      return;
    }
    await renumberChildren(trx, siblings.map((s) => s.id), GAP);
  }
}
