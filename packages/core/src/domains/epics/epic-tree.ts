/**
 * The rules of the epic tree (GitLab's `EE::Epic#validate_parent_epic`, `validate_children_count`,
 * `validate_confidential_parent`) and relative positions among siblings.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { countChildren, selectAncestors, selectTreeNodes, subtreeDepth, updateTreeNodePosition, type TreeNode } from './epic.queries.js';
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

type NodeRef = Pick<TreeNode, 'type' | 'id'>;

const same = (a: NodeRef) => (b: NodeRef) => a.type === b.type && a.id === b.id;

/**
 * A position before every child epic and issue of `parentId` (`move_to_start`): GitLab orders
 * both in one tree, so a newly linked child or issue comes first among all of them.
 */
export async function startPosition(db: Kysely<Database>, parentId: number): Promise<number> {
  const taken = (await selectTreeNodes(db, parentId)).flatMap((n) => (n.relative_position === null ? [] : [n.relative_position]));
  return taken.length ? Math.min(...taken) - GAP : 0;
}

/**
 * Moves `node` (a child epic or an issue of `parentId`) between `before` (ends up right before
 * it) and `after` (right after it), GitLab's `move_between` over the whole tree: the neighbour
 * on the other side may be of the other kind. Positions stay integers: when two neighbours
 * leave no room, the tree is renumbered in its current order first.
 */
export async function moveBetween(trx: Kysely<Database>, parentId: number, node: NodeRef, before: NodeRef | undefined, after: NodeRef | undefined): Promise<void> {
  if (!before && !after) return;
  for (let attempt = 0; attempt < 2; attempt++) {
    const siblings = (await selectTreeNodes(trx, parentId)).filter((n) => !same(node)(n));
    const at = (ref: NodeRef | undefined) => (ref ? siblings.findIndex(same(ref)) : -1);
    let lower: TreeNode | undefined;
    let upper: TreeNode | undefined;
    if (before && after) {
      lower = siblings[at(before)];
      upper = siblings[at(after)];
      // Given in the wrong order: the node still goes between them.
      if (lower && upper && (lower.relative_position ?? 0) > (upper.relative_position ?? 0)) [lower, upper] = [upper, lower];
    } else if (before) {
      lower = siblings[at(before)];
      upper = siblings[at(before) + 1];
    } else {
      upper = siblings[at(after)];
      lower = at(after) > 0 ? siblings[at(after) - 1] : undefined;
    }
    const lo = lower?.relative_position ?? null;
    const hi = upper?.relative_position ?? null;
    let position: number | null;
    if (lo !== null && hi !== null) position = hi - lo >= 2 ? Math.floor((lo + hi) / 2) : null;
    else if (lo !== null) position = lo + GAP;
    else if (hi !== null) position = hi - GAP;
    else position = 0;
    if (position !== null) return updateTreeNodePosition(trx, node, position);
    for (const [i, s] of siblings.entries()) await updateTreeNodePosition(trx, s, (i + 1) * GAP);
  }
}
