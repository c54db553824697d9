/**
 * The runner's side of job artifacts (GitLab's `lib/api/ci/runner.rb`): a running job uploads
 * its archive (checked and indexed as it is stored) and other artifacts, and a job downloads
 * the archives of the jobs it depends on. The job's token authenticates, as ci checks it.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { digestToken } from '../../kernel/ids.js';
import type { UploadedFile } from '../../kernel/params.js';
import { text } from '../../kernel/route.js';
import { archiveOf, authenticateJob, expiryFrom, jobTokenOf, parseDefinition, type CiJobRow } from '../ci/index.js';
import { checkZipArchive, insertArchiveIndex } from './archive-index.js';
import type { RunnerDownloadArtifactInput, UploadArtifactInput } from './artifacts.schema.js';
import { streamArchive, type ArtifactDownload } from './read-artifacts.js';
import { ZipRejectedError } from './zip.js';

const DEFAULT_ARTIFACTS_EXPIRE_IN = '30 days';

/** GitLab's `Ci::JobArtifact.file_types` the upload accepts. */
export const ARTIFACT_TYPES = [
  'archive', 'metadata', 'trace', 'junit', 'sast', 'dependency_scanning', 'container_scanning', 'dast', 'codequality', 'license_scanning',
  'performance', 'metrics', 'metrics_referee', 'network_referee', 'lsif', 'dotenv', 'cobertura', 'terraform', 'accessibility', 'cluster_applications',
  'secret_detection', 'requirements', 'coverage_fuzzing', 'browser_performance', 'load_performance', 'api_fuzzing', 'cluster_image_scanning', 'cyclonedx',
  'requirements_v2', 'annotations', 'repository_xray', 'jacoco',
];

function artifactKey(job: CiJobRow, type: string): string {
  return `artifacts/${job.project_id}/${job.id}/${type}-${randomBytes(8).toString('hex')}`;
}

/** Stores one uploaded file as an artifact of the job (the archive with its zip index). */
async function storeArtifact(
  ctx: Ctx,
  job: CiJobRow,
  file: UploadedFile,
  meta: { type: string; format: string; fileName: string; expireAt: string | null },
): Promise<void> {
  const existing = await ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).where('file_type', '=', meta.type).executeTakeFirst();
  if (existing) {
    if (existing.sha256 === file.sha256) return;
    throw new BadRequestError('another artifact of the same type already exists', { raw: true });
  }
  if (meta.type === 'archive' && meta.format === 'zip') {
    try {
      await checkZipArchive(ctx.blobs, file.blobKey, file.size);
    } catch (err) {
      if (err instanceof ZipRejectedError) throw new BadRequestError(err.message);
      throw err;
    }
  }
  const key = artifactKey(job, meta.type);
  await ctx.blobs.move(file.blobKey, key);
  try {
    await insertArtifact(ctx, job, file, meta, key);
  } catch (err) {
    await ctx.blobs.delete(key);
    // A concurrent upload of the same type won the unique index: answer as if it came first.
    const winner = await ctx.db.selectFrom('ci_job_artifacts').select('sha256').where('job_id', '=', job.id).where('file_type', '=', meta.type).executeTakeFirst();
    if (winner?.sha256 === file.sha256) return;
    if (winner) throw new BadRequestError('another artifact of the same type already exists', { raw: true });
    throw err;
  }
}

async function insertArtifact(
  ctx: Ctx,
  job: CiJobRow,
  file: UploadedFile,
  meta: { type: string; format: string; fileName: string; expireAt: string | null },
  key: string,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto('ci_job_artifacts')
      .values({
        project_id: job.project_id,
        job_id: job.id,
        file_type: meta.type,
        file_format: meta.format,
        file_name: meta.fileName,
        blob_key: key,
        size: file.size,
        sha256: file.sha256,
        expire_at: meta.expireAt,
        created_at: nowIso(ctx),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (meta.type === 'archive' && meta.format === 'zip') await insertArchiveIndex(trx, row.id, ctx.blobs, key, file.size);
  });
}

/** POST /jobs/:id/artifacts (multipart `file`, streamed to the blob store by the server): 201. */
export async function uploadArtifacts(ctx: Ctx, input: UploadArtifactInput, headers: Record<string, string | undefined>) {
  const job = await authenticateJob(ctx, input.id, jobTokenOf(input, headers), { notRunning: 'Job is not processing on runner' });
  if (!ARTIFACT_TYPES.includes(input.artifact_type)) throw new ValidationError([{ field: 'artifact_type', message: 'does not have a valid value' }]);
  const expireIn = input.expire_in ?? parseDefinition(job).artifacts?.expire_in ?? DEFAULT_ARTIFACTS_EXPIRE_IN;
  const expireAt = expiryFrom(ctx.clock.now(), expireIn);
  if (expireAt === undefined) throw new ValidationError([{ field: 'expire_in', message: 'is invalid' }]);
  const fileName = input.file.filename || (input.artifact_type === 'archive' ? 'artifacts.zip' : `${input.artifact_type}.${input.artifact_format}`);
  await storeArtifact(ctx, job, input.file, { type: input.artifact_type, format: input.artifact_format, fileName, expireAt });
  if (input.metadata && input.artifact_type === 'archive') {
    await storeArtifact(ctx, job, input.metadata, { type: 'metadata', format: 'gzip', fileName: input.metadata.filename || 'metadata.gz', expireAt });
  }
  return text('201', 'text/plain', 201);
}

/**
 * GET /jobs/:id/artifacts for runners: with the token of a running job of the same project
 * (a dependent job downloading what it needs), or the job's own token.
 */
export async function runnerDownloadArtifacts(ctx: Ctx, input: RunnerDownloadArtifactInput, headers: Record<string, string | undefined>): Promise<ArtifactDownload> {
  const token = jobTokenOf(input, headers);
  const job = await ctx.db.selectFrom('ci_jobs').selectAll().where('id', '=', input.id).executeTakeFirst();
  if (!job || !token) throw new ForbiddenError();
  const digest = digestToken(token);
  if (job.token_digest !== digest) {
    const holder = await ctx.db.selectFrom('ci_jobs').select(['id', 'project_id', 'status']).where('token_digest', '=', digest).executeTakeFirst();
    if (!holder || holder.status !== 'running' || holder.project_id !== job.project_id) throw new ForbiddenError();
  }
  const artifact = await archiveOf(ctx, job.id);
  if (!artifact) throw new NotFoundError();
  return streamArchive(ctx, artifact);
}
