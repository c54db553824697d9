/**
 * CI job token scope: which projects' job tokens may act on a project (its inbound allowlist
 * of projects and groups), managed here; the check every job-token request goes through is
 * access/job-token-scope.ts.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { paginate, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { authorize, canRead } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentSimpleProjects, type ProjectSimpleEntity } from '../accounts/index.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { inboundEnforced, settingsOf } from '../../access/job-token-scope.js';
import { applicationSetting } from '../../access/application-settings.js';

export const ProjectRefInput = params({ id: p.string() });
export const PatchScopeInput = params({ id: p.string(), enabled: p.boolean() });
export const AllowlistInput = params({ id: p.string(), ...paginationParams });
export const AddProjectInput = params({ id: p.string(), target_project_id: p.integer() });
export const RemoveProjectInput = params({ id: p.string(), target_project_id: p.integer() });
export const AddGroupInput = params({ id: p.string(), target_group_id: p.integer() });
export const RemoveGroupInput = params({ id: p.string(), target_group_id: p.integer() });

export interface JobTokenScopeEntity {
  inbound_enabled: boolean;
  outbound_enabled: boolean;
}

async function managedProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  return project;
}

export async function getJobTokenScope(ctx: Ctx, input: InferShape<typeof ProjectRefInput.shape>): Promise<JobTokenScopeEntity> {
  const project = await managedProject(ctx, input.id);
  const settings = await settingsOf(ctx.db, project.id);
  return { inbound_enabled: await inboundEnforced(ctx.db, project.id), outbound_enabled: settings.outbound };
}

export async function patchJobTokenScope(ctx: Ctx, input: InferShape<typeof PatchScopeInput.shape>): Promise<void> {
  const project = await managedProject(ctx, input.id);
  if (!input.enabled && (await applicationSetting(ctx.db, 'enforce_ci_inbound_job_token_scope_enabled'))) {
    throw new BadRequestError('Inbound job token scope cannot be disabled because this instance enforces the CI/CD job token allowlist (enforce_ci_inbound_job_token_scope_enabled)');
  }
  const now = nowIso(ctx);
  const value = input.enabled ? 1 : 0;
  await ctx.db
    .insertInto('ci_job_token_settings')
    .values({ project_id: project.id, inbound_enabled: value, updated_at: now })
    .onConflict((oc) => oc.column('project_id').doUpdateSet({ inbound_enabled: value, updated_at: now }))
    .execute();
}

/** The projects allowed in: the project itself, then the allowlisted ones, by id. */
export async function listProjectAllowlist(ctx: Ctx, input: InferShape<typeof AllowlistInput.shape>): Promise<Page<ProjectSimpleEntity>> {
  const project = await managedProject(ctx, input.id);
  const query = ctx.db
    .selectFrom('projects')
    .selectAll('projects')
    .where((eb) =>
      eb.or([
        eb('projects.id', '=', project.id),
        eb('projects.id', 'in', eb.selectFrom('ci_job_token_project_links').select('target_project_id').where('source_project_id', '=', project.id)),
      ]),
    )
    .orderBy('projects.id');
  return paginate(ctx.db, query, input, (rows) => presentSimpleProjects(ctx, rows));
}

export async function listGroupAllowlist(ctx: Ctx, input: InferShape<typeof AllowlistInput.shape>): Promise<Page<{ id: number; web_url: string; name: string }>> {
  const project = await managedProject(ctx, input.id);
  const query = ctx.db
    .selectFrom('ci_job_token_group_links')
    .innerJoin('namespaces', 'namespaces.id', 'ci_job_token_group_links.target_group_id')
    .select(['namespaces.id', 'namespaces.name', 'namespaces.full_path'])
    .where('ci_job_token_group_links.source_project_id', '=', project.id)
    .orderBy('ci_job_token_group_links.id');
  return paginate(ctx.db, query, input, (rows) => rows.map((g) => ({ id: g.id, web_url: ctx.urls.web(`/groups/${g.full_path}`), name: g.name })));
}

const NO_TARGET = "The target_project that you are attempting to access does not exist or you don't have permission to perform this action";

export async function addProjectToAllowlist(ctx: Ctx, input: InferShape<typeof AddProjectInput.shape>) {
  const project = await managedProject(ctx, input.id);
  const target = await ctx.db.selectFrom('projects').selectAll().where('id', '=', input.target_project_id).executeTakeFirst();
  if (!target || !(await canRead(ctx, { kind: 'project', project: target }))) throw new NotFoundError(null, { exact: NO_TARGET });
  try {
    await ctx.db
      .insertInto('ci_job_token_project_links')
      .values({ source_project_id: project.id, target_project_id: target.id, added_by_id: ctx.actor.user?.id ?? null, created_at: nowIso(ctx) })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError('Target project is already in the job token scope', { raw: true });
    throw err;
  }
  return { source_project_id: project.id, target_project_id: target.id };
}

export async function removeProjectFromAllowlist(ctx: Ctx, input: InferShape<typeof RemoveProjectInput.shape>): Promise<void> {
  const project = await managedProject(ctx, input.id);
  const removed = await ctx.db
    .deleteFrom('ci_job_token_project_links')
    .where('source_project_id', '=', project.id)
    .where('target_project_id', '=', input.target_project_id)
    .executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) throw new NotFoundError(null, { exact: 'Target project is not in the job token scope' });
}

export async function addGroupToAllowlist(ctx: Ctx, input: InferShape<typeof AddGroupInput.shape>) {
  const project = await managedProject(ctx, input.id);
  const group = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', input.target_group_id).where('kind', '=', 'group').executeTakeFirst();
  if (!group || !(await canRead(ctx, { kind: 'group', group }))) {
    throw new NotFoundError(null, { exact: "The target_group that you are attempting to access does not exist or you don't have permission to perform this action" });
  }
  try {
    await ctx.db
      .insertInto('ci_job_token_group_links')
      .values({ source_project_id: project.id, target_group_id: group.id, added_by_id: ctx.actor.user?.id ?? null, created_at: nowIso(ctx) })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new BadRequestError('This group is already in the job token scope', { raw: true });
    throw err;
  }
  return { source_project_id: project.id, target_group_id: group.id };
}

export async function removeGroupFromAllowlist(ctx: Ctx, input: InferShape<typeof RemoveGroupInput.shape>): Promise<void> {
  const project = await managedProject(ctx, input.id);
  const removed = await ctx.db
    .deleteFrom('ci_job_token_group_links')
    .where('source_project_id', '=', project.id)
    .where('target_group_id', '=', input.target_group_id)
    .executeTakeFirst();
  if (Number(removed.numDeletedRows) === 0) throw new NotFoundError(null, { exact: 'Target group is not in the job token scope' });
}
