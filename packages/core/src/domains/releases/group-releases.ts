/**
 * GET /groups/:id/releases (GitLab's Releases::GroupReleasesFinder): releases of the projects
 * of the group and its subgroups that the caller may see, by `released_at` then id, in one
 * paginated query.
 */
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { GUEST } from '../../access/levels.js';
import { ForbiddenError, UnauthorizedError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { accessLevel } from '../../access/policy.js';
import { findGroup } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { visibleProjectsFilter } from '../../access/visibility.queries.js';
import { presentBasicRelease, presentReleases, projectViewsFor, type BasicReleaseEntity, type ReleaseEntity } from './release.entity.js';
import type { ListGroupReleasesInput } from './release.schema.js';

/** GitLab's group `read_release`: Guests of the group (or an ancestor) and administrators. */
async function authorizeGroupReleases(ctx: Ctx, group: NamespaceRow): Promise<void> {
  if (ctx.actor.isAdmin) return;
  if ((await accessLevel(ctx, { kind: 'group', group })) >= GUEST) return;
  if (!ctx.actor.user) throw new UnauthorizedError();
  throw new ForbiddenError();
}

export async function listGroupReleases(ctx: Ctx, input: ListGroupReleasesInput): Promise<Page<ReleaseEntity | BasicReleaseEntity>> {
  const group = await findGroup(ctx, input.id);
  await authorizeGroupReleases(ctx, group);
  const today = isoDate(ctx.clock.now());
  const visibleProjects = ctx.db
    .selectFrom('projects as pr')
    .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
    .select('pr.id')
    .where('ns.traversal', 'like', `${group.traversal}%`)
    .where((eb) => visibleProjectsFilter(eb, ctx.actor, today));
  const q = ctx.db
    .selectFrom('releases')
    .selectAll()
    .where('project_id', 'in', visibleProjects)
    .orderBy('released_at', input.sort)
    .orderBy('id', input.sort);
  return paginate(ctx.db, q, input, async (rows): Promise<Array<ReleaseEntity | BasicReleaseEntity>> => {
    if (!input.simple) return presentReleases(ctx, rows);
    const views = await projectViewsFor(ctx, rows);
    return rows.map((row) => presentBasicRelease(ctx, views.get(row.project_id)!, row));
  });
}
