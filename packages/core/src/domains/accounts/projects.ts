/** Projects: `/projects`, `/projects/:id`, `/groups/:id/projects`. */
import { repositoryTransaction } from '../repository/index.js';
import { usersByIds } from '../../access/users.js';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { isoDate } from '../../kernel/clock.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import { GUEST, MAINTAINER, OWNER } from '../../access/levels.js';
import { paginate, paginationParams, type Deferred, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { accessLevel, authorize, can, memberLevels, namespaceOf, requireUser } from '../../access/policy.js';
import { projectRunnersToken } from './runners-token.js';
import { bool } from '../../storage/dialect.js';
import { cachedRead, preparedQuery } from '../../storage/prepared.js';
import { findGroup, findProject, selectNamespaceById, selectGroupByRef } from '../../access/lookup.js';
import { retireResourceTokens } from './tokens.js';
import { insertMember } from './member.queries.js';
import { runMemberChanged, runProjectChanged } from './account-hooks.js';
import { checkPath, rethrowPathTaken } from './paths.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { namespacesOfProjects, presentSimpleProjects, toProjectEntity, type ProjectEntity, type ProjectSimpleEntity } from './project.entity.js';
import { readmePathOf, readmePathsOf } from '../repository/index.js';
import { recordCommitIn } from '../repository/index.js';
import { MERGE_METHODS, type ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity } from '../../access/user.entity.js';
import { projectMembershipFilter, projectMembershipScope, visibleProjectsFilter } from '../../access/visibility.queries.js';

const VISIBILITY = ['private', 'internal', 'public'] as const;
const VISIBILITY_RANK: Record<string, number> = { private: 0, internal: 10, public: 20 };

const listFields = {
  search: p.search().optional(),
  visibility: p.enum(VISIBILITY).optional(),
  owned: p.boolean().optional(),
  membership: p.boolean().optional(),
  min_access_level: p.enum([10, 15, 20, 25, 30, 40, 50] as const).optional(),
  archived: p.boolean().optional(),
  simple: p.boolean().optional(),
  topic: p.string().optional(),
  order_by: p.enum(['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity']).default('created_at'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  statistics: p.boolean().optional(),
  with_custom_attributes: p.boolean().optional(),
  ...paginationParams,
};

export const ListProjectsInput = params(listFields);
export type ListProjectsInput = InferShape<typeof ListProjectsInput.shape>;
export const ListGroupProjectsInput = params({ id: p.string(), include_subgroups: p.boolean().optional(), ...listFields });
export type ListGroupProjectsInput = InferShape<typeof ListGroupProjectsInput.shape>;

const settingFields = {
  description: p.string().optional(),
  visibility: p.enum(VISIBILITY).optional(),
  default_branch: p.string().optional(),
  topics: p.array(p.string()).commaSeparated().optional(),
  tag_list: p.array(p.string()).commaSeparated().optional(),
  issues_enabled: p.boolean().optional(),
  merge_requests_enabled: p.boolean().optional(),
  jobs_enabled: p.boolean().optional(),
  wiki_enabled: p.boolean().optional(),
  snippets_enabled: p.boolean().optional(),
  approvals_before_merge: p.integer().min(0).optional().describe('Premium and up: approvals a merge request needs (deprecated by GitLab in 12.3 for approval rules).'),
  merge_method: p.enum(MERGE_METHODS).optional().describe('How merge requests merge: `merge` (a merge commit), `rebase_merge` (a merge commit; the source must contain the target first) or `ff` (fast-forward only).'),
};

export const CreateProjectInput = params(
  {
    name: p.string().max(255).optional(),
    path: p.string().max(255).optional(),
    namespace_id: p.string().optional(),
    initialize_with_readme: p.boolean().optional(),
    ...settingFields,
  },
  { atLeastOneOf: [['name', 'path']] },
);
export type CreateProjectInput = InferShape<typeof CreateProjectInput.shape>;

export const UpdateProjectInput = params({
  id: p.string(),
  name: p.string().max(255).nonBlank().optional(),
  path: p.string().max(255).nonBlank().optional(),
  archived: p.boolean().optional(),
  ...settingFields,
});
export type UpdateProjectInput = InferShape<typeof UpdateProjectInput.shape>;

/** GitLab's merge_request_approvers feature (Premium): `approvals_before_merge` is shown and set only with it. */
function approvalsLicensed(ctx: Ctx): boolean {
  return tierAtLeast(ctx.config.tier, 'premium');
}

/**
 * Builds entities for a page of projects with one query each for namespaces, READMEs, branches,
 * open-issue counters and owners (`simple`: the first two). Each is kept in the read cache, so a
 * page read again while those tables are unchanged costs its list query alone.
 */
export async function presentProjects(ctx: Ctx, rows: ProjectRow[], simple = false): Promise<(ProjectEntity | ProjectSimpleEntity)[]> {
  if (rows.length === 0) return [];
  if (simple) return presentSimpleProjects(ctx, rows);
  const ids = rows.map((r) => r.id);
  const [namespaceRows, readmes, withBranches, counters] = await Promise.all([
    namespacesOfProjects(ctx.db, rows),
    readmePathsOf(ctx.db, rows),
    projectsWithBranches(ctx, ids),
    cachedRead(ctx.db, ctx.db.selectFrom('project_counters').select(['project_id', 'open_issues_count']).where('project_id', 'in', ids).compile()),
  ]);
  const openIssues = new Map(counters.map((c) => [c.project_id, c.open_issues_count]));
  const namespaces = new Map(namespaceRows.map((n) => [n.id, n]));
  const readme = (r: ProjectRow) => readmes.get(r.id) ?? null;
  const owners = await usersByIds(ctx.db, [...namespaces.values()].filter((n) => n.kind === 'user' && n.owner_id).map((n) => n.owner_id!));
  return rows.map((r) => {
    const ns = namespaces.get(r.namespace_id)!;
    const owner = ns.owner_id ? owners.get(ns.owner_id) : undefined;
    return toProjectEntity(r, ns, ctx.urls, owner ? toUserBasicEntity(owner, ctx.urls) : undefined, !withBranches.has(r.id), readme(r), approvalsLicensed(ctx), openIssues.get(r.id) ?? 0);
  });
}

/** The single-project reads of `GET /projects/:id`, compiled once and served from the read cache. */
const selectHasBranch = preparedQuery(
  (db, projectId: number) => db.selectFrom('repository_refs').select('project_id').where('project_id', '=', projectId).where('kind', '=', 'branch').limit(1),
  { cache: true },
);
const selectOwnerById = preparedQuery((db: Kysely<Database>, id: number) => db.selectFrom('users').selectAll().where('id', '=', id), { cache: true });
const selectOpenIssues = preparedQuery(
  (db, projectId: number) => db.selectFrom('project_counters').select('open_issues_count').where('project_id', '=', projectId),
  { cache: true },
);

/** Which of the projects have a branch (the others are GitLab's `empty_repo`). */
async function projectsWithBranches(ctx: Ctx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await cachedRead(ctx.db, ctx.db.selectFrom('repository_refs').select('project_id').distinct().where('project_id', 'in', ids).where('kind', '=', 'branch').compile());
  return new Set(rows.map((r) => r.project_id));
}

/** `within`: the listed projects all sit under this group (GET /groups/:id/projects). */
async function listQuery(ctx: Ctx, input: ListProjectsInput, within?: NamespaceRow) {
  let q = ctx.db.selectFrom('projects as pr').innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id').selectAll('pr');
  const today = isoDate(ctx.clock.now());
  const user = ctx.actor.user;
  const scope = user && !ctx.actor.isAdmin ? await projectMembershipScope(ctx.db, user.id, today) : undefined;
  // A member of the group (or of an ancestor) sees every project under it: no filter per row.
  const memberOfWithin = within !== undefined && scope !== undefined && scope.traversals.some((t) => within.traversal.startsWith(t));
  if (!memberOfWithin) q = q.where((eb) => visibleProjectsFilter(eb, ctx.actor, today, scope));
  if (input.owned) q = user ? q.where('ns.kind', '=', 'user').where('ns.owner_id', '=', user.id) : q.where(sql<boolean>`1 = 0`);
  if (input.membership || input.min_access_level !== undefined) {
    if (!user) q = q.where(sql<boolean>`1 = 0`);
    else {
      const level = input.min_access_level ?? GUEST;
      const levelScope = level <= GUEST && scope ? scope : await projectMembershipScope(ctx.db, user.id, today, level);
      q = q.where((eb) => projectMembershipFilter(eb, user.id, today, level, levelScope));
    }
  }
  if (input.search) {
    const like = `%${input.search.toLowerCase()}%`;
    q = q.where((eb) => eb.or([eb(sql`lower(pr.name)`, 'like', like), eb(sql`lower(pr.path)`, 'like', like), eb(sql`lower(pr.description)`, 'like', like)]));
  }
  if (input.visibility) q = q.where('pr.visibility', '=', input.visibility);
  if (input.archived !== undefined) q = q.where('pr.archived', '=', bool(input.archived));
  if (input.topic) {
    for (const t of input.topic.split(',').map((s) => s.trim()).filter(Boolean)) {
      q = q.where('pr.topics', 'like', `%${JSON.stringify(t)}%`);
    }
  }
  return orderProjects(q, input);
}

/** A list of projects (`pr`) in the order asked for, the id breaking ties. */
function orderProjects<Q extends SelectQueryBuilder<any, any, any>>(q: Q, input: ListProjectsInput): Q {
  const order = input.order_by === 'similarity' ? 'created_at' : input.order_by;
  let ordered = q.orderBy(sql.ref(`pr.${order}`), input.sort);
  if (order !== 'id') ordered = ordered.orderBy('pr.id', input.sort);
  return ordered as Q;
}

/** Deep pages of projects: their ids, then their rows (kernel/pagination.ts `Deferred`). */
function deferredProjects(ctx: Ctx, input: ListProjectsInput): Deferred<ProjectRow> {
  return { key: 'pr.id', rows: (keys) => orderProjects(ctx.db.selectFrom('projects as pr').selectAll('pr').where('pr.id', 'in', keys), input) };
}

/** GET /projects */
export async function listProjects(ctx: Ctx, input: ListProjectsInput): Promise<Page<ProjectEntity | ProjectSimpleEntity>> {
  return paginate(ctx.db, await listQuery(ctx, input), input, (rows) => presentProjects(ctx, rows, input.simple), { deferred: deferredProjects(ctx, input) });
}

/** GET /groups/:id/projects */
export async function listGroupProjects(ctx: Ctx, input: ListGroupProjectsInput): Promise<Page<ProjectEntity | ProjectSimpleEntity>> {
  const group = await findGroup(ctx, input.id);
  let q = await listQuery(ctx, input, group);
  q = input.include_subgroups ? q.where('ns.traversal', 'like', `${group.traversal}%`) : q.where('pr.namespace_id', '=', group.id);
  return paginate(ctx.db, q, input, (rows) => presentProjects(ctx, rows, input.simple), { deferred: deferredProjects(ctx, input) });
}

/** GET /projects/:id, with the caller's `permissions`. */
export async function getProject(ctx: Ctx, ref: string): Promise<ProjectEntity> {
  const project = await findProject(ctx, ref);
  const ns = await namespaceOf(ctx, project.namespace_id);
  const owner = ns.kind === 'user' && ns.owner_id ? (await selectOwnerById(ctx.db, ns.owner_id))[0] : undefined;
  const emptyRepo = (await selectHasBranch(ctx.db, project.id)).length === 0;
  const readme = emptyRepo ? null : await readmePathOf(ctx.db, project);
  const openIssues = project.issues_enabled === 1 ? ((await selectOpenIssues(ctx.db, project.id))[0]?.open_issues_count ?? 0) : 0;
  const entity = toProjectEntity(project, ns, ctx.urls, owner ? toUserBasicEntity(owner, ctx.urls) : undefined, emptyRepo, readme, approvalsLicensed(ctx), openIssues);
  // The legacy runner registration token, shown to who administers the project (created on first use).
  if (ctx.actor.user && (await can(ctx, 'admin_project', { kind: 'project', project }))) entity.runners_token = await projectRunnersToken(ctx, project.id);
  if (ctx.actor.user) {
    const levels = await memberLevels(ctx, { kind: 'project', project });
    entity.permissions = {
      project_access: levels.direct ? { access_level: levels.direct, notification_level: 3 } : null,
      group_access: levels.group ? { access_level: levels.group, notification_level: 3 } : null,
    };
  }
  return entity;
}

function derivePath(name: string): string {
  return name.trim().toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '') || 'project';
}

function checkVisibility(visibility: string, ns: NamespaceRow) {
  if (ns.kind === 'group' && VISIBILITY_RANK[visibility]! > VISIBILITY_RANK[ns.visibility]!) {
    throw new BadRequestError({ visibility_level: [`${visibility} is not allowed in a ${ns.visibility} group.`] }, { raw: true });
  }
}

/** POST /projects: in the caller's namespace or a group where they may create projects. */
export async function createProject(ctx: Ctx, input: CreateProjectInput): Promise<ProjectEntity> {
  const user = requireUser(ctx);
  let ns: NamespaceRow;
  if (input.namespace_id !== undefined) {
    const group = await selectGroupByRef(ctx, input.namespace_id);
    if (group) {
      ns = await findGroup(ctx, group.id);
      await authorize(ctx, 'create_projects', { kind: 'group', group: ns });
    } else {
      const personal = await ctx.db
        .selectFrom('namespaces')
        .selectAll()
        .where('kind', '=', 'user')
        .where((eb) => (/^\d+$/.test(input.namespace_id!) ? eb('id', '=', Number(input.namespace_id)) : eb(sql`lower(full_path)`, '=', input.namespace_id!.toLowerCase())))
        .executeTakeFirst();
      if (!personal) throw new BadRequestError({ namespace: ['is not valid'] }, { raw: true });
      if (personal.owner_id !== user.id && !ctx.actor.isAdmin) throw new ForbiddenError();
      ns = personal;
    }
  } else {
    if (!user.namespace_id) throw new BadRequestError({ namespace: ['is not valid'] }, { raw: true });
    ns = await selectNamespaceById(ctx, user.namespace_id);
  }
  const name = input.name ?? input.path!;
  const path = input.path ?? derivePath(name);
  checkPath(path, 'project');
  const visibility = input.visibility ?? 'private';
  checkVisibility(visibility, ns);
  const taken = await ctx.db.selectFrom('projects').select('id').where('namespace_id', '=', ns.id).where(sql`lower(name)`, '=', name.toLowerCase()).executeTakeFirst();
  if (taken) throw new BadRequestError({ name: ['has already been taken'] }, { raw: true });
  const inheritedLevel = ns.kind === 'group' ? await accessLevel(ctx, { kind: 'group', group: ns }) : 0;
  const now = nowIso(ctx);
  const topics = input.topics ?? input.tag_list ?? [];
  const row = await rethrowPathTaken(() =>
    repositoryTransaction(ctx, async (trx) => {
      const project = await trx
        .insertInto('projects')
        .values({
          namespace_id: ns.id,
          name,
          path,
          path_with_namespace: `${ns.full_path}/${path}`,
          name_with_namespace: `${ns.full_name} / ${name}`,
          description: input.description ?? '',
          visibility,
          default_branch: input.default_branch ?? ns.default_branch ?? 'main',
          creator_id: user.id,
          archived: 0,
          topics: JSON.stringify(topics),
          issues_enabled: input.issues_enabled === false ? 0 : 1,
          merge_requests_enabled: input.merge_requests_enabled === false ? 0 : 1,
          jobs_enabled: input.jobs_enabled === false ? 0 : 1,
          wiki_enabled: input.wiki_enabled === false ? 0 : 1,
          snippets_enabled: input.snippets_enabled === false ? 0 : 1,
          ...(input.approvals_before_merge !== undefined && approvalsLicensed(ctx) && { approvals_before_merge: input.approvals_before_merge }),
          ...(input.merge_method !== undefined && { merge_method: input.merge_method }),
          created_at: now,
          updated_at: now,
          last_activity_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await runProjectChanged(trx, { action: 'create', by: ctx, project });
      const source = { kind: 'project' as const, project };
      // GitLab makes a group project's creator a Maintainer when they don't already inherit that.
      if (ns.kind === 'group' && inheritedLevel < MAINTAINER && !ctx.actor.isAdmin) {
        const member = await insertMember(trx, { source_kind: 'project', source_id: project.id, user_id: user.id, access_level: MAINTAINER, created_by_id: user.id }, now);
        await runMemberChanged(trx, { action: 'create', by: ctx, member, source });
      }
      // ...and the owner of a personal namespace an Owner member of its projects.
      if (ns.kind === 'user' && ns.owner_id) {
        const member = await insertMember(trx, { source_kind: 'project', source_id: project.id, user_id: ns.owner_id, access_level: OWNER, created_by_id: user.id }, now);
        await runMemberChanged(trx, { action: 'create', by: ctx, member, source });
      }
      // GitLab's `initialize_with_readme`: a first commit with README.md on the default branch.
      if (input.initialize_with_readme) {
        const readme = `# ${name}\n${project.description ? `\n${project.description}\n` : ''}`;
        await recordCommitIn(trx, ctx, project, { branch: project.default_branch, commit_message: 'Initial commit', actions: [{ action: 'create', file_path: 'README.md', content: readme }] });
      }
      return project;
    }),
  );
  const [entity] = (await presentProjects(ctx, [row])) as ProjectEntity[];
  return entity!;
}

/** PUT /projects/:id. A new path is recorded so the old one keeps resolving. */
export async function updateProject(ctx: Ctx, input: UpdateProjectInput): Promise<ProjectEntity> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  const ns = await selectNamespaceById(ctx, project.namespace_id);
  if (input.path !== undefined) checkPath(input.path, 'project');
  if (input.visibility) checkVisibility(input.visibility, ns);
  const now = nowIso(ctx);
  const name = input.name ?? project.name;
  const path = input.path ?? project.path;
  const topics = input.topics ?? input.tag_list;
  const row = await rethrowPathTaken(() =>
    ctx.db.transaction().execute(async (trx) => {
      if (path !== project.path) {
        await trx
          .insertInto('redirect_routes')
          .values({ path_lower: project.path_with_namespace.toLowerCase(), source_kind: 'project', source_id: project.id, created_at: now })
          .onConflict((oc) => oc.columns(['path_lower', 'source_kind']).doUpdateSet({ source_id: project.id }))
          .execute();
      }
      const updated = await trx
        .updateTable('projects')
        .set({
          name,
          path,
          path_with_namespace: `${ns.full_path}/${path}`,
          name_with_namespace: `${ns.full_name} / ${name}`,
          ...(input.description !== undefined && { description: input.description }),
          ...(input.visibility !== undefined && { visibility: input.visibility }),
          ...(input.default_branch !== undefined && { default_branch: input.default_branch }),
          ...(topics !== undefined && { topics: JSON.stringify(topics) }),
          ...(input.archived !== undefined && { archived: bool(input.archived) }),
          ...(input.issues_enabled !== undefined && { issues_enabled: bool(input.issues_enabled) }),
          ...(input.merge_requests_enabled !== undefined && { merge_requests_enabled: bool(input.merge_requests_enabled) }),
          ...(input.jobs_enabled !== undefined && { jobs_enabled: bool(input.jobs_enabled) }),
          ...(input.wiki_enabled !== undefined && { wiki_enabled: bool(input.wiki_enabled) }),
          ...(input.snippets_enabled !== undefined && { snippets_enabled: bool(input.snippets_enabled) }),
          ...(input.approvals_before_merge !== undefined && approvalsLicensed(ctx) && { approvals_before_merge: input.approvals_before_merge }),
          ...(input.merge_method !== undefined && { merge_method: input.merge_method }),
          updated_at: now,
        })
        .where('id', '=', project.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      // GitLab's UpdateService: a new path is a rename, anything else (even no change) an update.
      await runProjectChanged(trx, { action: updated.path !== project.path ? 'rename' : 'update', by: ctx, project: updated, before: project });
      return updated;
    }),
  );
  // git's HEAD follows the default branch (what a clone checks out), once the change is committed.
  if (row.default_branch !== project.default_branch && row.default_branch && (await ctx.git.exists(row.id))) {
    await ctx.git.run(row.id, ['symbolic-ref', 'HEAD', `refs/heads/${row.default_branch}`]);
  }
  const [entity] = (await presentProjects(ctx, [row])) as ProjectEntity[];
  return entity!;
}

/** DELETE /projects/:id */
export async function deleteProject(ctx: Ctx, ref: string): Promise<void> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'remove_project', { kind: 'project', project });
  await ctx.db.transaction().execute(async (trx) => {
    await runProjectChanged(trx, { action: 'destroy', by: ctx, project });
    await retireResourceTokens(trx, 'project', [project.id]);
    await trx.deleteFrom('members').where('source_kind', '=', 'project').where('source_id', '=', project.id).execute();
    await trx.deleteFrom('redirect_routes').where('source_kind', '=', 'project').where('source_id', '=', project.id).execute();
    await trx.deleteFrom('projects').where('id', '=', project.id).execute();
  });
  // Its git repository goes once the rows are gone (a failure leaves an unreferenced directory, never a project without one).
  await ctx.git.remove(project.id).catch(() => {});
}
