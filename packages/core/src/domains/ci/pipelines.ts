/** The pipeline endpoints (GitLab's lib/api/ci/pipelines.rb). */
import { WORKLOAD_SOURCES } from './workload.js';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { SecretBox } from '../../kernel/secrets.js';
import type { CiPipelineRow } from './ci.table.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { authorize, can } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { resolveRevision } from '../repository/index.js';
import type {
  CreatePipelineRequest,
  LatestPipelineInput,
  ListPipelineJobsInput,
  ListPipelinesInput,
  PipelineRefInput,
} from './ci.schema.js';
import { findCiProject, findPipeline } from './ci-access.js';
import { createPipeline } from './create-pipeline.js';
import { presentJobs, type JobEntity } from './job.entity.js';
import { retryJobsIn } from './job-actions.js';
import { presentPipeline, presentPipelineListItem, type PipelineEntity, type PipelineListEntity } from './pipeline.entity.js';
import { noteJob, pipelineChange } from './pipeline-hooks.js';
import { lockPipeline, processPipeline } from './process-pipeline.js';
import { CANCELABLE_STATUSES, compositeStatus } from './status.js';
import { applyPipelineScope } from './pipeline-scope.js';

/** GET /projects/:id/pipelines (Ci::PipelinesFinder), filtered, ordered and paginated in SQL. */
export async function listPipelines(ctx: Ctx, input: ListPipelinesInput): Promise<Page<PipelineListEntity>> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline', 'read_build');
  let q = ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id);
  // Child pipelines only when asked for by source.
  if (input.source !== 'parent_pipeline') q = q.where('source', '!=', 'parent_pipeline');
  q = applyPipelineScope(ctx.db, q, project.id, input.scope);
  if (input.status) q = q.where('status', '=', input.status);
  if (input.source) q = q.where('source', '=', input.source);
  if (input.ref !== undefined) q = q.where('ref', '=', input.ref);
  if (input.sha !== undefined) q = q.where('sha', '=', input.sha);
  if (input.name !== undefined) q = q.where('name', '=', input.name);
  if (input.yaml_errors !== undefined) q = q.where('yaml_errors', input.yaml_errors ? 'is not' : 'is', null);
  if (input.username !== undefined) {
    q = q.where('user_id', 'in', ctx.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', input.username.toLowerCase()));
  }
  if (input.updated_after) q = q.where('updated_at', '>', input.updated_after.toISOString());
  if (input.updated_before) q = q.where('updated_at', '<', input.updated_before.toISOString());
  if (input.created_after) q = q.where('created_at', '>', input.created_after.toISOString());
  if (input.created_before) q = q.where('created_at', '<', input.created_before.toISOString());
  q = q.orderBy(input.order_by, input.sort);
  if (input.order_by !== 'id') q = q.orderBy('id', input.sort);
  return paginate(ctx.db, q, input, (rows) => rows.map((r) => presentPipelineListItem(ctx, project, r)));
}

/**
 * The branch pipelines of `branch` at any of `shas`, newest first, paged (GitLab's
 * PipelinesForMergeRequestFinder: a merge request's pipelines are those of its source branch
 * at its recent diff heads; Forgelet makes no merge request pipelines). None when the caller
 * may not read the project's pipelines, or CI is off.
 */
export async function listBranchPipelinesAt(ctx: Ctx, project: ProjectRow, branch: string, shas: readonly string[], page: PageRequest & { status?: string }): Promise<Page<PipelineListEntity>> {
  const readable = project.jobs_enabled !== 0 && shas.length > 0 && (await can(ctx, 'read_pipeline', { kind: 'project', project }));
  let q = ctx.db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('ref', '=', branch)
    .where('tag', '=', 0)
    .where('source', '!=', 'parent_pipeline');
  q = readable ? q.where('sha', 'in', [...shas]) : q.where(sql<boolean>`1 = 0`);
  if (page.status) q = q.where('status', '=', page.status as CiPipelineRow['status']);
  return paginate(ctx.db, q.orderBy('id', 'desc'), page, (rows) => rows.map((r) => presentPipelineListItem(ctx, project, r)));
}

export async function getPipeline(ctx: Ctx, input: PipelineRefInput): Promise<PipelineEntity> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  return presentPipeline(ctx, project, await findPipeline(ctx, project, input.pipeline_id));
}

/** GET /projects/:id/pipelines/latest: the newest pipeline for the ref's current commit; 403 when none. */
export async function getLatestPipeline(ctx: Ctx, input: LatestPipelineInput): Promise<PipelineEntity> {
  const project = await findProject(ctx, input.id);
  const ref = input.ref ?? project.default_branch;
  const resolved = await resolveRevision(ctx.db, project.id, ref);
  const row = resolved
    ? await ctx.db
        .selectFrom('ci_pipelines')
        .selectAll()
        .where('project_id', '=', project.id)
        .where('ref', '=', ref)
        .where('sha', '=', resolved.commit.sha)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst()
    : undefined;
  if (!row || project.jobs_enabled === 0 || !(await can(ctx, 'read_pipeline', { kind: 'project', project }))) throw new ForbiddenError();
  return presentPipeline(ctx, project, row);
}

/** POST /projects/:id/pipeline (source `api`). */
export async function createPipelineFromApi(ctx: Ctx, input: CreatePipelineRequest): Promise<PipelineEntity> {
  const project = await findCiProject(ctx, input.id, 'create_pipeline');
  if (input.inputs !== undefined && (input.inputs === null || typeof input.inputs !== 'object' || Array.isArray(input.inputs))) {
    throw new ValidationError([{ field: 'inputs', message: 'is invalid' }]);
  }
  const row = await createPipeline(ctx, project, {
    ref: input.ref,
    source: 'api',
    variables: input.variables,
    inputs: input.inputs as Record<string, unknown> | undefined,
  });
  return presentPipeline(ctx, project, row);
}

/** POST …/pipelines/:id/cancel: every cancelable job is canceled; 200 whatever the state. */
export async function cancelPipeline(ctx: Ctx, input: PipelineRefInput): Promise<PipelineEntity> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  await authorize(ctx, 'cancel_pipeline', { kind: 'project', project });
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, pipeline.id);
    const cancelable = await trx
      .selectFrom('ci_jobs')
      .select(['id', 'status'])
      .where('pipeline_id', '=', pipeline.id)
      .where('retried', '=', 0)
      .where('status', 'in', CANCELABLE_STATUSES)
      .execute();
    const change = pipelineChange(ctx);
    if (cancelable.length) {
      await trx
        .updateTable('ci_jobs')
        .set({ status: 'canceled', finished_at: now, updated_at: now })
        .where('id', 'in', cancelable.map((j) => j.id))
        .where('status', 'in', CANCELABLE_STATUSES)
        .execute();
      for (const j of cancelable) noteJob(change, j.id, j.status);
    }
    return processPipeline(trx, pipeline.id, now, change);
  });
  return presentPipeline(ctx, project, row);
}

/** POST …/pipelines/:id/retry: failed and canceled jobs run again (201). */
export async function retryPipeline(ctx: Ctx, input: PipelineRefInput): Promise<PipelineEntity> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  await authorize(ctx, 'update_pipeline', { kind: 'project', project });
  const failed = await ctx.db
    .selectFrom('ci_jobs')
    .selectAll()
    .where('pipeline_id', '=', pipeline.id)
    .where('retried', '=', 0)
    .where('status', 'in', ['failed', 'canceled'])
    .orderBy('id')
    .execute();
  const row = await retryJobsIn(ctx, pipeline, failed);
  return presentPipeline(ctx, project, row);
}

/** DELETE …/pipelines/:id (Owner): the pipeline, its jobs, logs and artifacts. */
export async function deletePipeline(ctx: Ctx, input: PipelineRefInput): Promise<void> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  await authorize(ctx, 'destroy_pipeline', { kind: 'project', project });
  const blobs = await ctx.db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_jobs', 'ci_jobs.id', 'ci_job_artifacts.job_id')
    .select('ci_job_artifacts.blob_key')
    .where('ci_jobs.pipeline_id', '=', pipeline.id)
    .execute();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('ci_pipelines').where('id', '=', pipeline.id).execute();
  });
  await Promise.all(blobs.map((b) => ctx.blobs.delete(b.blob_key)));
}

export interface PipelineVariableEntity {
  variable_type: string;
  key: string;
  value: string;
  raw: boolean;
}

/** GET …/pipelines/:id/variables: Developers, or whoever started the pipeline. */
export async function listPipelineVariables(ctx: Ctx, input: PipelineRefInput): Promise<PipelineVariableEntity[]> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  const own = ctx.actor.user !== null && pipeline.user_id === ctx.actor.user.id;
  if (!own) await authorize(ctx, 'update_pipeline', { kind: 'project', project });
  return (await pipelineVariablesOf(ctx.db, ctx.secrets, pipeline)).map((v) => ({ ...v, raw: false }));
}

/**
 * The variables a pipeline was created with, decrypted, in order (GitLab's `pipeline.variables`,
 * also in pipeline events). A workload's variables are its credentials: they reach its job,
 * never an API answer or a hook.
 */
export async function pipelineVariablesOf(db: Kysely<Database>, secrets: SecretBox, pipeline: Pick<CiPipelineRow, 'id' | 'source'>): Promise<{ variable_type: string; key: string; value: string }[]> {
  if (WORKLOAD_SOURCES.has(pipeline.source)) return [];
  const rows = await db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
  return rows.map((r) => ({ variable_type: r.variable_type, key: r.key, value: secrets.decrypt(r.value_encrypted) }));
}

/** GET …/pipelines/:id/jobs (job tokens allowed). */
export async function listPipelineJobs(ctx: Ctx, input: ListPipelineJobsInput): Promise<Page<JobEntity>> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  let q = ctx.db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipeline.id);
  if (!input.include_retried) q = q.where('retried', '=', 0);
  if (input.scope?.length) q = q.where('status', 'in', input.scope);
  q = q.orderBy('id', 'desc');
  return paginate(ctx.db, q, input, (rows) => presentJobs(ctx, project, rows));
}


/** A pipeline by its project-scoped iid (GraphQL's `project.pipeline(iid:)`), under GET …/pipelines/:id's policy. */
export async function getPipelineByIid(ctx: Ctx, input: { id: string; iid: number }): Promise<PipelineEntity> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const row = await ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).where('iid', '=', input.iid).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return presentPipeline(ctx, project, row);
}

/** A stage of a pipeline: its name, position and the composite status of its current (not retried) jobs. */
export interface PipelineStageEntity {
  pipeline_id: number;
  name: string;
  position: number;
  status: string;
}

/** The stages of a pipeline by position (GraphQL's `Pipeline.stages`), one page of the grouped jobs. */
export async function listPipelineStages(ctx: Ctx, input: { id: string; pipeline_id: number } & PageRequest): Promise<Page<PipelineStageEntity>> {
  const project = await findCiProject(ctx, input.id, 'read_pipeline');
  const pipeline = await findPipeline(ctx, project, input.pipeline_id);
  const q = ctx.db
    .selectFrom('ci_jobs')
    .select(['stage', (eb) => eb.fn.min<number>('stage_idx').as('position')])
    .where('pipeline_id', '=', pipeline.id)
    .where('retried', '=', 0)
    .groupBy('stage')
    .orderBy('position')
    .orderBy('stage');
  return paginate(ctx.db, q, input, async (rows) => {
    if (!rows.length) return [];
    const jobs = await ctx.db
      .selectFrom('ci_jobs')
      .select(['stage', 'status', 'allow_failure'])
      .where('pipeline_id', '=', pipeline.id)
      .where('retried', '=', 0)
      .where('stage', 'in', rows.map((r) => r.stage))
      .execute();
    return rows.map((r) => ({
      pipeline_id: pipeline.id,
      name: r.stage,
      position: Number(r.position),
      status: compositeStatus(jobs.filter((j) => j.stage === r.stage)) ?? 'created',
    }));
  });
}

/** The project of a pipeline or job (GraphQL names them by Global ID alone); the use cases then apply the project's policy. */
export async function projectIdOfCiRecord(ctx: Ctx, table: 'ci_pipelines' | 'ci_jobs', id: number): Promise<number | null> {
  const row = await ctx.db.selectFrom(table).select('project_id').where('id', '=', id).executeTakeFirst();
  return row?.project_id ?? null;
}
