/** Milestone entities for a page (or for the issues and merge requests of a page) in two queries at most. */
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { toMilestoneEntity, type MilestoneEntity } from './milestone.entity.js';
import { selectMilestonesByIds } from './milestone.queries.js';
import type { MilestoneRow } from './milestone.table.js';

export async function presentMilestones(ctx: Ctx, rows: MilestoneRow[]): Promise<MilestoneEntity[]> {
  if (rows.length === 0) return [];
  const groupIds = [...new Set(rows.filter((r) => r.group_id !== null).map((r) => r.group_id!))];
  const projectIds = [...new Set(rows.filter((r) => r.project_id !== null).map((r) => r.project_id!))];
  const [groups, projects] = await Promise.all([
    groupIds.length ? ctx.db.selectFrom('namespaces').select(['id', 'full_path']).where('id', 'in', groupIds).execute() : [],
    projectIds.length ? ctx.db.selectFrom('projects').select(['id', 'path_with_namespace']).where('id', 'in', projectIds).execute() : [],
  ]);
  const groupPath = new Map(groups.map((g) => [g.id, `groups/${g.full_path}`]));
  const projectPath = new Map(projects.map((p) => [p.id, p.path_with_namespace]));
  const today = isoDate(ctx.clock.now());
  return rows.map((row) => {
    const webPath = row.project_id !== null ? projectPath.get(row.project_id)! : groupPath.get(row.group_id!)!;
    return toMilestoneEntity(row, { webPath, today }, ctx.urls);
  });
}

export async function presentMilestone(ctx: Ctx, row: MilestoneRow): Promise<MilestoneEntity> {
  return (await presentMilestones(ctx, [row]))[0]!;
}

/**
 * The `milestone` object of each issue or merge request of a page, keyed by milestone id
 * (one query for the milestones, one or two for their containers).
 */
export async function milestonesByIdFor(ctx: Ctx, milestoneIds: ReadonlyArray<number | null>): Promise<Map<number, MilestoneEntity>> {
  const ids = milestoneIds.filter((id): id is number => id !== null);
  if (ids.length === 0) return new Map();
  const rows = await selectMilestonesByIds(ctx.db, ids);
  const entities = await presentMilestones(ctx, rows);
  return new Map(entities.map((e) => [e.id, e]));
}
