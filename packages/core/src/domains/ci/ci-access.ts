/** Lookups every CI route shares: the project (visible, CI enabled, ability held), a pipeline, a job. */
import type { Ctx } from '../../access/context.js';
import { ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { authorize, type ProjectAbility } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CiJobRow, CiPipelineRow } from './ci.table.js';

/** The project of a CI route: 404 when invisible, 403 without the abilities or with CI/CD disabled. */
export async function findCiProject(ctx: Ctx, ref: string, ...abilities: ProjectAbility[]): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  for (const ability of abilities) await authorize(ctx, ability, { kind: 'project', project });
  if (project.jobs_enabled === 0) throw new ForbiddenError();
  return project;
}

/** A pipeline of the project; GitLab's `find` answers `404 Not found`. */
export async function findPipeline(ctx: Ctx, project: ProjectRow, id: number): Promise<CiPipelineRow> {
  const row = await ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

/** A job of the project; `404 Not found`. */
export async function findJob(ctx: Ctx, project: ProjectRow, id: number): Promise<CiJobRow> {
  const row = await ctx.db.selectFrom('ci_jobs').selectAll().where('project_id', '=', project.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}
