/** Where a milestone lives (a group or a project) and the lookups every milestone route shares. */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { authorize, namespaceOf, traversalIds, type Ability, type Subject } from '../../access/policy.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { selectMilestoneOf } from './milestone.queries.js';
import type { MilestoneRow } from './milestone.table.js';

export type MilestoneParentKind = 'groups' | 'projects';

/** The group or project of a `/groups/:id/milestones` or `/projects/:id/milestones` route. */
export type MilestoneParent = Subject;

/** 404 `Group Not Found` / `Project Not Found` when the caller can't see it; 403 without the ability. */
export async function findMilestoneParent(ctx: Ctx, kind: MilestoneParentKind, ref: string, ability: Ability): Promise<MilestoneParent> {
  const parent: MilestoneParent =
    kind === 'groups' ? { kind: 'group', group: await findGroup(ctx, ref) } : { kind: 'project', project: await findProject(ctx, ref) };
  await authorize(ctx, ability, parent);
  return parent;
}

export function ownerOf(parent: MilestoneParent): { projectId: number } | { groupId: number } {
  return parent.kind === 'project' ? { projectId: parent.project.id } : { groupId: parent.group.id };
}

/** A milestone of exactly this group or project, by its global id; GitLab's `find` answers `404 Not found`. */
export async function findMilestone(ctx: Ctx, parent: MilestoneParent, id: number): Promise<MilestoneRow> {
  const row = await selectMilestoneOf(ctx.db, ownerOf(parent), id);
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

/** Ids of the project's group and its ancestors (root first); empty for personal projects. */
export async function projectGroupIds(ctx: Ctx, project: ProjectRow): Promise<number[]> {
  const ns = await namespaceOf(ctx, project.namespace_id);
  return ns.kind === 'group' ? traversalIds(ns.traversal) : [];
}

/**
 * The milestone an issue or merge request of `project` may carry: the project's own or one
 * of its ancestor groups'. Anything else is undefined; GitLab then leaves the milestone
 * unset rather than failing (Issues::BaseService#filter_milestone).
 */
export async function selectAssignableMilestone(ctx: Ctx, project: ProjectRow, id: number): Promise<MilestoneRow | undefined> {
  const groupIds = await projectGroupIds(ctx, project);
  return ctx.db
    .selectFrom('milestones')
    .selectAll()
    .where('id', '=', id)
    .where((eb) => eb.or([eb('project_id', '=', project.id), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]))
    .executeTakeFirst();
}

/**
 * The `milestone_id` to store for a request's `milestone_id`: undefined when the request
 * doesn't touch it, null for `0`, null or an id that isn't assignable here.
 */
export async function milestoneIdToAssign(ctx: Ctx, project: ProjectRow, requested: number | null | undefined): Promise<number | null | undefined> {
  if (requested === undefined) return undefined;
  if (requested === null || requested <= 0) return null;
  return (await selectAssignableMilestone(ctx, project, requested))?.id ?? null;
}
