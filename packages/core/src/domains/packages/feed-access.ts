/**
 * Who may use a package feed, and over which projects. The feed does not follow the usual
 * API answers: an anonymous caller that may not read gets 401 with the Basic challenge
 * (NuGet clients send credentials only after one), a user gets 404/403 as the policy says.
 * Group feeds read only packages of the projects in the group the caller may read packages of.
 */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import type { Ctx } from '../../access/context.js';
import { NotFoundError, UnauthorizedError, type DomainError } from '../../kernel/errors.js';
import { authorize, can, canRead, type ProjectAbility } from '../../access/policy.js';
import { selectGroupByRef, selectProjectByRef } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { projectMembershipFilter } from '../../access/visibility.queries.js';
import type { Database } from '../../storage/database.js';

export const PACKAGES_REALM = 'Basic realm="GitLab Packages Registry"';

/** Adds the Basic challenge NuGet clients wait for before they send credentials. */
export function challenge<E extends DomainError>(err: E): E {
  err.headers['WWW-Authenticate'] = PACKAGES_REALM;
  return err;
}

/** A project by id or path, whatever the caller may see (public feed documents only need it to exist). */
export async function existingProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await selectProjectByRef(ctx, ref);
  if (!project) throw new NotFoundError('Project');
  return project;
}

export async function existingGroup(ctx: Ctx, ref: string): Promise<NamespaceRow> {
  const group = await selectGroupByRef(ctx, ref);
  if (!group) throw new NotFoundError('Group');
  return group;
}

/**
 * The project of a feed route, with the ability checked: anonymous callers that may not get
 * 401 + challenge (even for projects that don't exist); users 404 when they can't see the
 * project and 403 when they lack the ability.
 */
export async function feedProject(ctx: Ctx, ref: string, ability: ProjectAbility): Promise<ProjectRow> {
  const project = await selectProjectByRef(ctx, ref);
  if (!ctx.actor.user) {
    if (!project || !(await can(ctx, ability, { kind: 'project', project }))) throw challenge(new UnauthorizedError());
    return project;
  }
  if (!project) throw new NotFoundError('Project');
  await authorize(ctx, ability, { kind: 'project', project });
  return project;
}

/** The group of a group feed route: authentication required (401 + challenge), then the group must be readable. */
export async function feedGroup(ctx: Ctx, ref: string): Promise<NamespaceRow> {
  if (!ctx.actor.user && !ctx.actor.deployToken) throw challenge(new UnauthorizedError());
  const group = await selectGroupByRef(ctx, ref);
  if (!group || !(await canRead(ctx, { kind: 'group', group }))) throw new NotFoundError('Group');
  return group;
}

export type FeedScope = { kind: 'project'; project: ProjectRow } | { kind: 'group'; group: NamespaceRow };

type PackagesEB = ExpressionBuilder<Database, 'packages'>;

/**
 * `packages.project_id` restricted to the scope: the project itself, or the projects under the
 * group (any depth) whose packages the actor may read (public and internal ones it sees,
 * private ones where it is Reporter or above). Decided in SQL.
 */
export function scopeFilter(ctx: Ctx, scope: FeedScope): (eb: PackagesEB) => Expression<SqlBool> {
  if (scope.kind === 'project') return (eb) => eb('packages.project_id', '=', scope.project.id);
  const actor = ctx.actor;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const prefix = `${scope.group.traversal}%`;
  return (eb) =>
    eb(
      'packages.project_id',
      'in',
      eb
        .selectFrom('projects as pr')
        .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
        .select('pr.id')
        .where('ns.traversal', 'like', prefix)
        .where((w) => {
          if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
          // a group deploy token reads the packages of its group's projects (a project token: its project)
          if (actor.deployToken) {
            if (!actor.deployToken.scopes.includes('read_package_registry')) return sql<SqlBool>`1 = 0`;
            if (actor.deployToken.projectId !== null) return w('pr.id', '=', actor.deployToken.projectId);
            return w('ns.traversal', 'like', `${actor.deployToken.groupTraversal}%`);
          }
          if (!actor.user) return w('pr.visibility', '=', 'public');
          const open = actor.user.external ? ['public'] : ['public', 'internal'];
          const pw = w as unknown as Parameters<typeof projectMembershipFilter>[0];
          return w.or([w('pr.visibility', 'in', open), projectMembershipFilter(pw, actor.user.id, today, REPORTER) as Expression<SqlBool>]);
        }),
    );
}
