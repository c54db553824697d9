/**
 * GitLab's generic package API: `GET /projects/:id/packages`, `GET /groups/:id/packages`,
 * `GET|DELETE /projects/:id/packages/:package_id`, `GET …/:package_id/package_files`.
 * Standard API authentication; lists paginate in SQL.
 */
import { sql } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can } from '../../access/policy.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { projectMembershipFilter } from '../../access/visibility.queries.js';
import { destroyPackage } from './feed.js';
import { presentPackage, presentPackageFile, presentPackageVersion, type PackageDetailsEntity, type PackageEntity, type PackageFileEntity } from './package.entity.js';
import type { ListGroupPackagesInput, ListPackagesInput, PackageRefInput, PackageFilesInput } from './packages.schema.js';

const HIDDEN_BY_DEFAULT = ['pending_destruction', 'processing'];
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function orderColumn(orderBy: ListPackagesInput['order_by']): 'packages.created_at' | 'packages.name' | 'packages.version' | 'packages.package_type' {
  switch (orderBy) {
    case 'name':
      return 'packages.name';
    case 'version':
      return 'packages.version';
    case 'type':
      return 'packages.package_type';
    default:
      return 'packages.created_at';
  }
}

function filtered(ctx: Ctx, input: ListPackagesInput) {
  let q = ctx.db
    .selectFrom('packages')
    .innerJoin('projects', 'projects.id', 'packages.project_id')
    .selectAll('packages')
    .select(['projects.path_with_namespace as project_full_path']);
  if (input.package_type) q = q.where('packages.package_type', '=', input.package_type);
  if (input.package_name) q = q.where(sql<boolean>`packages.lower_name like ${`%${likeEscape(input.package_name.toLowerCase())}%`} escape '\\'`);
  if (input.package_version) q = q.where('packages.version', '=', input.package_version);
  q = input.status ? q.where('packages.status', '=', input.status) : q.where('packages.status', 'not in', HIDDEN_BY_DEFAULT);
  const dir = input.sort === 'desc' ? 'desc' : 'asc';
  return q.orderBy(orderColumn(input.order_by), dir).orderBy('packages.id', dir);
}

export async function listProjectPackages(ctx: Ctx, input: ListPackagesInput): Promise<Page<PackageEntity>> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_package', { kind: 'project', project });
  const canDestroy = await can(ctx, 'destroy_package', { kind: 'project', project });
  const q = filtered(ctx, input).where('packages.project_id', '=', project.id);
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => presentPackage(ctx.urls, r, project, { canDestroy })));
}

export async function listGroupPackages(ctx: Ctx, input: ListGroupPackagesInput): Promise<Page<PackageEntity>> {
  const group = await findGroup(ctx, input.id);
  const actor = ctx.actor;
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const q = filtered(ctx, input).where('packages.project_id', 'in', (eb) =>
    eb
      .selectFrom('projects as pr')
      .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
      .select('pr.id')
      .where((w) => (input.exclude_subgroups ? w('ns.id', '=', group.id) : w('ns.traversal', 'like', `${group.traversal}%`)))
      .where((w) => {
        if (actor.isAdmin) return sql<boolean>`1 = 1`;
        if (!actor.user) return w('pr.visibility', '=', 'public');
        const open = actor.user.external ? ['public'] : ['public', 'internal'];
        const pw = w as unknown as Parameters<typeof projectMembershipFilter>[0];
        return w.or([w('pr.visibility', 'in', open), projectMembershipFilter(pw, actor.user.id, today, REPORTER)]);
      }),
  );
  return paginate(ctx.db, q, input, async (rows) => {
    const projects = rows.length
      ? await ctx.db.selectFrom('projects').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.project_id))]).execute()
      : [];
    const byId = new Map(projects.map((p) => [p.id, p]));
    const out: PackageEntity[] = [];
    for (const r of rows) {
      const project = byId.get(r.project_id)!;
      const canDestroy = await can(ctx, 'destroy_package', { kind: 'project', project });
      out.push(presentPackage(ctx.urls, r, project, { canDestroy, group: true }));
    }
    return out;
  });
}

async function findPackage(ctx: Ctx, project: ProjectRow, packageId: number) {
  const row = await ctx.db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('id', '=', packageId)
    .where('status', '!=', 'pending_destruction')
    .executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

/**
 * One package with `versions`: the other versions of its name in the project, as GitLab's
 * entity shows them outside lists (hidden as the list hides them by default; in version order).
 */
export async function getProjectPackage(ctx: Ctx, input: PackageRefInput): Promise<PackageDetailsEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_package', { kind: 'project', project });
  const row = await findPackage(ctx, project, input.package_id);
  const others = await ctx.db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('package_type', '=', row.package_type)
    .where('lower_name', '=', row.lower_name)
    .where('id', '!=', row.id)
    .where('status', 'not in', HIDDEN_BY_DEFAULT)
    .orderBy('version_sort')
    .orderBy('id')
    .execute();
  const entity = presentPackage(ctx.urls, row, project, { canDestroy: await can(ctx, 'destroy_package', { kind: 'project', project }) });
  return { ...entity, versions: others.map(presentPackageVersion) };
}

export async function deleteProjectPackage(ctx: Ctx, input: PackageRefInput): Promise<void> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'destroy_package', { kind: 'project', project });
  const row = await findPackage(ctx, project, input.package_id);
  await destroyPackage(ctx, row.id);
}

export async function listPackageFiles(ctx: Ctx, input: PackageFilesInput): Promise<Page<PackageFileEntity>> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_package', { kind: 'project', project });
  const row = await findPackage(ctx, project, input.package_id);
  const dir = input.sort === 'desc' ? 'desc' : 'asc';
  const column = input.order_by === 'file_name' ? 'file_name' : input.order_by === 'created_at' ? 'created_at' : 'id';
  const q = ctx.db.selectFrom('package_files').selectAll().where('package_id', '=', row.id).orderBy(column, dir).orderBy('id', dir);
  return paginate(ctx.db, q, input, (rows) => rows.map(presentPackageFile));
}
