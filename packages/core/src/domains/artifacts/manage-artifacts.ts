/**
 * Keeping and deleting artifacts (GitLab's keep, `Ci::JobArtifacts::DeleteService` and
 * `Ci::JobArtifacts::DeleteProjectArtifactsService`). Job logs are never touched.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { authorize } from '../../access/policy.js';
import { findCiProject, findJob } from '../ci/index.js';
import { presentJobs, type JobEntity } from '../ci/index.js';
import { availableArchive, pipelineUnlockedSql, TRACE } from './artifact-access.js';
import type { JobArtifactsInput, ProjectArtifactsInput } from './artifacts.schema.js';
import { destroyArtifacts, scheduleArtifactExpiry } from './expiry.js';

/** The job entity of the keep answer, with the (older) `download_url` of the archive the spec shows. */
export type KeptJobEntity = JobEntity & { download_url: string | null };

/**
 * POST …/jobs/:job_id/artifacts/keep (Developer): every artifact of the job stops expiring.
 * 404 when the job has no available archive.
 */
export async function keepJobArtifacts(ctx: Ctx, input: JobArtifactsInput): Promise<KeptJobEntity> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'keep_job_artifacts', { kind: 'project', project });
  if (!(await availableArchive(ctx, job))) throw new NotFoundError();
  await ctx.db.updateTable('ci_job_artifacts').set({ expire_at: null, locked: 1 }).where('job_id', '=', job.id).execute();
  const row = await ctx.db.selectFrom('ci_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
  const entity = (await presentJobs(ctx, project, [row]))[0]!;
  const { id, status, stage, name, ref, tag, coverage, allow_failure, ...rest } = entity;
  const downloadUrl = ctx.urls.web(`/${project.path_with_namespace}/-/jobs/${job.id}/artifacts/download`);
  return { id, status, stage, name, ref, tag, coverage, allow_failure, download_url: downloadUrl, ...rest };
}

/** DELETE …/jobs/:job_id/artifacts (Maintainer): the archive, metadata and reports go at once; the log stays. */
export async function deleteJobArtifacts(ctx: Ctx, input: JobArtifactsInput): Promise<void> {
  const project = await findCiProject(ctx, input.id, 'read_build');
  const job = await findJob(ctx, project, input.job_id);
  await authorize(ctx, 'destroy_artifacts', { kind: 'project', project });
  const rows = await ctx.db.selectFrom('ci_job_artifacts').select(['id', 'blob_key']).where('job_id', '=', job.id).where('file_type', '!=', TRACE).execute();
  await destroyArtifacts(ctx, rows);
}

/**
 * DELETE /projects/:id/artifacts (Maintainer): every deletable artifact of the project expires
 * now (kept ones too, as in GitLab); the worker removes them. The artifacts of the pipelines
 * holding the latest-artifacts lock of their ref are left alone.
 */
export async function deleteProjectArtifacts(ctx: Ctx, input: ProjectArtifactsInput): Promise<void> {
  const project = await findCiProject(ctx, input.id);
  await authorize(ctx, 'destroy_artifacts', { kind: 'project', project });
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('ci_job_artifacts as a')
      .set({ expire_at: now, locked: 0 })
      .where('a.project_id', '=', project.id)
      .where('a.file_type', '!=', TRACE)
      .where((eb) => eb.or([eb('a.expire_at', 'is', null), eb('a.expire_at', '>', now), eb('a.locked', '=', 1)]))
      .where(pipelineUnlockedSql())
      .execute();
    await scheduleArtifactExpiry(trx, ctx.queue, new Date(now), new Date(now));
  });
}
