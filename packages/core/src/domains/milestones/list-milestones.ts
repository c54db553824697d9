/**
 * `GET /groups/:id/milestones` and `GET /projects/:id/milestones` (GitLab's MilestonesFinder):
 * which containers count, every filter and the order are decided in SQL.
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { traversalIds } from '../../access/policy.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { visibleGroupsFilter, visibleProjectsFilter } from '../../access/visibility.queries.js';
import { findMilestoneParent, projectGroupIds, type MilestoneParent } from './find-milestone.js';
import type { MilestoneEntity } from './milestone.entity.js';
import { fuzzyMatch } from '../../kernel/sql-pattern.js';
import { withinTimeframe } from './milestone-filters.js';
import type { ListGroupMilestonesInput, ListMilestonesInput, ListProjectMilestonesInput } from './milestone.schema.js';
import { presentMilestones } from './present-milestones.js';

/** Groups of the hierarchy the caller may see: ancestors and/or descendants of `group` (itself always). */
function visibleGroupIds(ctx: Ctx, group: NamespaceRow, options: { ancestors: boolean; descendants: boolean }) {
  const today = isoDate(ctx.clock.now());
  return ctx.db
    .selectFrom('namespaces as g')
    .select('g.id')
    .where('g.kind', '=', 'group')
    .where((eb) => {
      const ors: Expression<SqlBool>[] = [eb('g.id', '=', group.id)];
      if (options.ancestors) ors.push(eb('g.id', 'in', traversalIds(group.traversal)));
      if (options.descendants) ors.push(eb('g.traversal', 'like', `${group.traversal}%`));
      return eb.and([eb.or(ors), eb.or([eb('g.id', '=', group.id), visibleGroupsFilter(eb, ctx.actor, today)])]);
    });
}

/** Projects of the group and its subgroups that the caller may see. */
function visibleProjectIdsUnder(ctx: Ctx, group: NamespaceRow) {
  const today = isoDate(ctx.clock.now());
  return ctx.db
    .selectFrom('projects as pr')
    .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
    .select('pr.id')
    .where('ns.traversal', 'like', `${group.traversal}%`)
    .where((eb) => visibleProjectsFilter(eb, ctx.actor, today));
}

async function milestonesQuery(ctx: Ctx, parent: MilestoneParent, input: ListMilestonesInput) {
  const withAncestors = input.include_ancestors || input.include_parent_milestones;
  let q = ctx.db.selectFrom('milestones as m').selectAll('m');
  if (parent.kind === 'group') {
    const descendants = 'include_descendants' in input && input.include_descendants;
    const groups = visibleGroupIds(ctx, parent.group, { ancestors: withAncestors, descendants });
    q = q.where((eb) => {
      const ors: Expression<SqlBool>[] = [eb('m.group_id', 'in', groups)];
      if (descendants) ors.push(eb('m.project_id', 'in', visibleProjectIdsUnder(ctx, parent.group)));
      return eb.or(ors);
    });
  } else {
    const groupIds = withAncestors ? await projectGroupIds(ctx, parent.project) : [];
    q = q.where((eb) => eb.or([eb('m.project_id', '=', parent.project.id), ...(groupIds.length ? [eb('m.group_id', 'in', groupIds)] : [])]));
  }
  if (input.iids?.length && !withAncestors) q = q.where('m.iid', 'in', input.iids);
  if (input.state !== 'all') q = q.where('m.state', '=', input.state);
  if (input.title !== undefined) q = q.where('m.title', '=', input.title);
  if (input.search !== undefined) {
    const title = fuzzyMatch('m.title', input.search);
    const description = fuzzyMatch('m.description', input.search);
    if (title && description) q = q.where((eb) => eb.or([title, description]));
  }
  if (input.search_title !== undefined) {
    const title = fuzzyMatch('m.title', input.search_title);
    if (title) q = q.where(title);
  }
  if (input.updated_before) q = q.where('m.updated_at', '<=', input.updated_before.toISOString());
  if (input.updated_after) q = q.where('m.updated_at', '>=', input.updated_after.toISOString());
  if (input.containing_date) q = q.where(withinTimeframe('m', input.containing_date, input.containing_date));
  if (input.start_date && input.end_date) q = q.where(withinTimeframe('m', input.start_date, input.end_date));
  // Milestone.sort_by_attribute('due_date_asc'): due date, undated last, ties newest first
  return q
    .orderBy(sql`case when m.due_date is null then 1 else 0 end`)
    .orderBy('m.due_date', 'asc')
    .orderBy('m.id', 'desc');
}

async function listMilestones(ctx: Ctx, parent: MilestoneParent, input: ListMilestonesInput): Promise<Page<MilestoneEntity>> {
  const q = await milestonesQuery(ctx, parent, input);
  return paginate(ctx.db, q, input, (rows) => presentMilestones(ctx, rows));
}

/** GET /groups/:id/milestones: anyone who can see the group. */
export async function listGroupMilestones(ctx: Ctx, input: ListGroupMilestonesInput): Promise<Page<MilestoneEntity>> {
  return listMilestones(ctx, await findMilestoneParent(ctx, 'groups', input.id, 'read_milestone'), input);
}

/** GET /projects/:id/milestones (`include_ancestors` adds the project's groups' milestones). */
export async function listProjectMilestones(ctx: Ctx, input: ListProjectMilestonesInput): Promise<Page<MilestoneEntity>> {
  return listMilestones(ctx, await findMilestoneParent(ctx, 'projects', input.id, 'read_milestone'), input);
}
