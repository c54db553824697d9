/** The job endpoints (GitLab's lib/api/ci/jobs.rb) and the archive download of lib/api/ci/job_artifacts.rb. */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CiJobArtifactRow, CiJobRow } from './ci.table.js';
import type { CancelJobInput, JobRefInput, ListProjectJobsInput, PlayJobInput } from './ci.schema.js';
import { findCiProject, findJob } from './ci-access.js';
import { canWriteRef } from './create-pipeline.js';
import { cancelJobRow, playJobRow, retryJob as retryJobRow } from './job-actions.js';
import { presentJobs, type JobEntity } from './job.entity.js';
import { CANCELABLE_STATUSES } from './status.js';
import { maskedValuesForProject, maskLog } from '../ci-variables/index.js';

async function presentJob(ctx: Ctx, project: ProjectRow, row: CiJobRow): Promise<JobEntity> {
  return (await presentJobs(ctx, project, [row]))[0]!;
}

async function reload(ctx: Ctx, id: number): Promise<CiJobRow> {
  return ctx.db.selectFrom('ci_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** Jobs on a protected branch are changed only by who may push or merge to it. */
async function authorizeUpdate(ctx: Ctx, project: ProjectRow, job: CiJobRow): Promise<void> {
  await authorize(ctx, 'update_build', { kind: 'project', project });
  if (!(await canWriteRef(ctx, project, { kind: job.tag === 1 ? 'tag' : 'branch', name: job.ref }))) throw new ForbiddenError();
}

/** GET /projects/:id/jobs: newest first, without counting (GitLab skips the count here). */
export async function listProjectJobs(ctx: Ctx, input: ListProjectJobsInput): Promise<Page<JobEntity>> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  let q = ctx.db.selectFrom('ci_jobs').selectAll().where('project_id', '=', project.id);
  if (input.scope?.length) q = q.where('status', 'in', input.scope);
  return paginate(ctx.db, q.orderBy('id', 'desc'), input, (rows) => presentJobs(ctx, project, rows), { count: false });
}

export async function getJob(ctx: Ctx, input: JobRefInput): Promise<JobEntity> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  return presentJob(ctx, project, await findJob(ctx, project, input.job_id));
}

/** POST …/jobs/:id/cancel (201, the job whatever happened). */
export async function cancelJob(ctx: Ctx, input: CancelJobInput): Promise<JobEntity> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorizeUpdate(ctx, project, job);
  if (input.force) await authorize(ctx, 'admin_project', { kind: 'project', project });
  await cancelJobRow(ctx, job, input.force ? [...CANCELABLE_STATUSES, 'canceling'] : CANCELABLE_STATUSES);
  return presentJob(ctx, project, await reload(ctx, job.id));
}

/** POST …/jobs/:id/retry (201, the new job); finished jobs only. */
export async function retryJob(ctx: Ctx, input: JobRefInput): Promise<JobEntity> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorizeUpdate(ctx, project, job);
  if (job.retried === 1 || !['success', 'failed', 'canceled'].includes(job.status)) throw new ForbiddenError('Job is not retryable');
  const id = await retryJobRow(ctx, job);
  return presentJob(ctx, project, await reload(ctx, id));
}

/** POST …/jobs/:id/play (200): a manual job starts. */
export async function playJob(ctx: Ctx, input: PlayJobInput): Promise<JobEntity> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorizeUpdate(ctx, project, job);
  if (job.status !== 'manual' || !(await playJobRow(ctx, job))) throw new BadRequestError('Unplayable Job');
  return presentJob(ctx, project, await reload(ctx, job.id));
}

/** The whole log of a job (its chunks in order). */
export async function readTrace(db: Kysely<Database>, jobId: number): Promise<Buffer> {
  const chunks = await db.selectFrom('ci_job_trace_chunks').select('data').where('job_id', '=', jobId).orderBy('byte_offset').execute();
  return Buffer.concat(chunks.map((c) => Buffer.from(c.data, 'base64')));
}

/** GET …/jobs/:id/trace as text/plain. */
export async function getJobTrace(ctx: Ctx, input: JobRefInput): Promise<{ body: string; filename: string }> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'read_build_trace', { kind: 'project', project });
  const log = (await readTrace(ctx.db, job.id)).toString('utf8');
  // Masked CI/CD variables show as `[MASKED]`, as the runner writes them, even from a runner that did not mask.
  const namespace = await ctx.db.selectFrom('namespaces').select(['kind', 'traversal']).where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const masked = await maskedValuesForProject(ctx, { projectId: project.id, namespace });
  return { body: maskLog(log, masked), filename: `${job.id}.log` };
}

/** GET /job: the job of the CI job token that authenticated the request. */
export async function currentJob(ctx: Ctx): Promise<JobEntity> {
  const job = ctx.actor.job;
  if (ctx.actor.kind !== 'job' || !job) throw new NotFoundError('Job');
  const row = await reload(ctx, job.id);
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', row.project_id).executeTakeFirstOrThrow();
  return presentJob(ctx, project, row);
}

/** The unexpired archive of a job, if any. */
export async function archiveOf(ctx: Pick<Ctx, 'db' | 'clock'>, jobId: number): Promise<CiJobArtifactRow | undefined> {
  const now = ctx.clock.now().toISOString();
  return ctx.db
    .selectFrom('ci_job_artifacts')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('file_type', '=', 'archive')
    .where((eb) => eb.or([eb('expire_at', 'is', null), eb('expire_at', '>', now)]))
    .executeTakeFirst();
}
