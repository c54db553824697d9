/**
 * Samples for pipeline, job and deployment hook tests (GitLab's TestHooks::ProjectService):
 * the newest pipeline, job or deployment of the projects a hook covers, through the builders
 * the real events use, or GitLab's message asking for one.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { buildDeploymentPayload, buildJobPayload, buildPipelinePayload, pipelineFacts } from './payloads-ci.js';

type Sample = { data: Record<string, unknown>; trigger: string } | { error: string };

export async function ciTestPayload(ctx: Ctx, projects: ProjectRow[], trigger: 'pipeline_events' | 'job_events' | 'deployment_events'): Promise<Sample> {
  const ids = projects.length ? projects.map((p) => p.id) : [0];
  const projectOf = (id: number) => projects.find((p) => p.id === id)!;
  const now = nowIso(ctx);
  if (trigger === 'pipeline_events') {
    const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', 'in', ids).orderBy('id', 'desc').executeTakeFirst();
    if (!pipeline) return { error: 'Ensure the project has CI pipelines.' };
    const facts = await pipelineFacts(ctx.db, pipeline, projectOf(pipeline.project_id));
    return { data: await buildPipelinePayload(ctx.db, ctx.urls, ctx.secrets, facts, now), trigger: 'pipeline_hooks' };
  }
  if (trigger === 'job_events') {
    const job = await ctx.db.selectFrom('ci_jobs').selectAll().where('project_id', 'in', ids).orderBy('id', 'desc').executeTakeFirst();
    if (!job) return { error: 'Ensure the project has CI jobs.' };
    const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', job.pipeline_id).executeTakeFirstOrThrow();
    const facts = await pipelineFacts(ctx.db, pipeline, projectOf(job.project_id));
    return { data: await buildJobPayload(ctx.db, ctx.urls, facts, job, now), trigger: 'job_hooks' };
  }
  const deployment = await ctx.db.selectFrom('deployments').selectAll().where('project_id', 'in', ids).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirst();
  if (!deployment) return { error: 'Ensure the project has deployments.' };
  const environment = await ctx.db.selectFrom('environments').selectAll().where('id', '=', deployment.environment_id).executeTakeFirstOrThrow();
  const data = await buildDeploymentPayload(ctx.db, ctx.urls, { deployment, environment, project: projectOf(deployment.project_id), status: deployment.status, changedAt: now });
  return { data, trigger: 'deployment_hooks' };
}
