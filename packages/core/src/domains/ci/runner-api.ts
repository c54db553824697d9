/**
 * The runner-facing protocol (GitLab's lib/api/ci/runner.rb, the jobs part): a runner asks for
 * a job with its token and claims one atomically; it then reports state, appends the log and
 * uploads artifacts with the job's token, valid only while the job runs.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { created, empty, json, text, type RouteRequest } from '../../kernel/route.js';
import { isProtectedBranch } from '../repository/index.js';
import type { CiJobRow, CiRunnerManagerRow, CiRunnerRow } from './ci.table.js';
import type { RequestJobInput, UpdateJobInput } from './ci.schema.js';
import { finishJob } from './job-actions.js';
import { parseDefinition } from './job.entity.js';
import { buildJobPayload, loadPayloadContext } from './job-payload.js';
import { noteJob, pipelineChange } from './pipeline-hooks.js';
import { lockPipeline, processPipeline } from './process-pipeline.js';
import { authenticateRunner, heartbeatRunnerManager } from './runner-managers.js';
import { groupTraversalsOf } from './runners.js';

export const JOB_TOKEN_PREFIX = 'glcbt-';
const BATCH = 50;
const TRACE_PATCH_LIMIT = 16 * 1024 * 1024;
const TRACE_UPDATE_INTERVAL = '60';


/** `failure_reason` values a runner may report (CommitStatus failure reasons). */
const FAILURE_REASONS = new Set([
  'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure', 'missing_dependency_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites', 'scheduler_failure',
  'data_integrity_failure', 'forward_deployment_failure', 'user_blocked', 'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected',
  'no_matching_runner', 'trace_size_exceeded', 'builds_disabled', 'environment_creation_failure', 'deployment_rejected',
  'failed_outdated_deployment_job', 'protected_environment_failure', 'insufficient_bridge_permissions', 'downstream_bridge_project_not_found',
  'invalid_bridge_trigger', 'bridge_pipeline_is_child_pipeline', 'downstream_pipeline_creation_failed', 'secrets_provider_not_found',
  'reached_max_descendant_pipelines_depth', 'ip_restriction_failure', 'reached_max_pipeline_hierarchy_size', 'reached_downstream_pipeline_trigger_rate_limit',
]);

function lastUpdateHeader(): Record<string, string> {
  return { 'X-GitLab-Last-Update': randomBytes(16).toString('hex') };
}

/** Does the runner serve this job? Scope (instance, group tree, project), tags, protected refs. */
function tagsMatch(runner: CiRunnerRow, jobTags: string[]): boolean {
  const runnerTags = new Set(JSON.parse(runner.tag_list) as string[]);
  if (jobTags.length === 0) return runner.run_untagged === 1;
  return jobTags.every((t) => runnerTags.has(t));
}

/** Pending jobs the runner may take, oldest first, a batch at a time. */
async function candidateJobs(ctx: Ctx, runner: CiRunnerRow, afterId: number, traversals: string[]) {
  let q = ctx.db
    .selectFrom('ci_jobs as j')
    .innerJoin('projects as p', 'p.id', 'j.project_id')
    .innerJoin('namespaces as ns', 'ns.id', 'p.namespace_id')
    .selectAll('j')
    .where('j.status', '=', 'pending')
    .where('j.runner_id', 'is', null)
    .where('j.id', '>', afterId)
    .where('p.jobs_enabled', '=', 1)
    .where('p.archived', '=', 0);
  if (runner.runner_type === 'project_type') {
    q = q.where('j.project_id', 'in', ctx.db.selectFrom('ci_runner_scopes').select('project_id').where('runner_id', '=', runner.id).where('project_id', 'is not', null).$narrowType<{ project_id: number }>());
  } else if (runner.runner_type === 'group_type') {
    if (!traversals.length) return [];
    q = q.where((eb) => eb.or(traversals.map((t) => eb('ns.traversal', 'like', `${t}%`))));
  }
  return q.orderBy('j.id').limit(BATCH).execute();
}

/** POST /jobs/request: 201 with a job the runner now owns, or 204 when there is none. */
export async function requestJob(ctx: Ctx, input: RequestJobInput, ip: string) {
  const { runner, manager } = await authenticateRunner(ctx, input.token, { ip, systemId: input.system_id, info: input.info });
  if (runner.paused === 1) return empty(204, lastUpdateHeader());
  const traversals = runner.runner_type === 'group_type' ? await groupTraversalsOf(ctx.db, runner.id) : [];
  let afterId = 0;
  for (;;) {
    const batch = await candidateJobs(ctx, runner, afterId, traversals);
    if (!batch.length) break;
    afterId = batch[batch.length - 1]!.id;
    for (const job of batch) {
      if (!tagsMatch(runner, parseDefinition(job).tags)) continue;
      if (runner.access_level === 'ref_protected' && (job.tag === 1 || !(await isProtectedBranch(ctx.db, job.project_id, job.ref)))) continue;
      const claimed = await claimJob(ctx, runner, manager, job);
      if (claimed) {
        const payload = await buildJobPayload(ctx, await loadPayloadContext(ctx, claimed.job, claimed.token, runner));
        return created(payload);
      }
    }
    if (batch.length < BATCH) break;
  }
  return empty(204, lastUpdateHeader());
}

/**
 * Takes the job for the runner: a conditional UPDATE on `status = 'pending'`, so two runners
 * never get the same job; the pipeline's status follows in the same transaction.
 */
async function claimJob(ctx: Ctx, runner: CiRunnerRow, manager: CiRunnerManagerRow, job: CiJobRow): Promise<{ job: CiJobRow; token: string } | null> {
  const token = randomToken(JOB_TOKEN_PREFIX, 24);
  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, job.pipeline_id);
    const done = await trx
      .updateTable('ci_jobs')
      .set({ status: 'running', runner_id: runner.id, runner_manager_id: manager.id, token_digest: digestToken(token), started_at: now, updated_at: now })
      .where('id', '=', job.id)
      .where('status', '=', 'pending')
      .where('runner_id', 'is', null)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) !== 1) return null;
    const change = pipelineChange(ctx);
    noteJob(change, job.id, 'pending');
    await processPipeline(trx, job.pipeline_id, now, change);
    const row = await trx.selectFrom('ci_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    return { job: row, token };
  });
}

function jobForbidden(job: CiJobRow, reason: string): ForbiddenError {
  const err = new ForbiddenError(reason);
  err.headers['Job-Status'] = job.status;
  return err;
}

/**
 * GitLab's `authenticate_job!`: the job exists, the token is its own, and (by default) it runs.
 * Only the runner's own reports (`heartbeat` from the address they came from) count as a
 * contact: uploads run inside the job's environment, whose address is not the runner's.
 */
export async function authenticateJob(
  ctx: Ctx,
  id: number,
  token: string | undefined,
  options: { notRunning?: string; heartbeatFrom?: string } = {},
): Promise<CiJobRow> {
  const job = await ctx.db.selectFrom('ci_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!job || !token || job.token_digest === null || job.token_digest !== digestToken(token)) throw new ForbiddenError();
  if (job.erased_at !== null) throw new ForbiddenError('Job has been erased!');
  if (job.status !== 'running') throw jobForbidden(job, options.notRunning ?? 'Job is not running');
  if (options.heartbeatFrom !== undefined) {
    if (job.runner_id !== null) await ctx.db.updateTable('ci_runners').set({ contacted_at: nowIso(ctx) }).where('id', '=', job.runner_id).execute();
    if (job.runner_manager_id !== null) await heartbeatRunnerManager(ctx, job.runner_manager_id, { ip: options.heartbeatFrom }, { updateContactedAt: true });
  }
  return job;
}

export function jobTokenOf(input: { token?: string }, headers: Record<string, string | undefined>): string | undefined {
  return input.token || headers['job-token'] || undefined;
}

/** PUT /jobs/:id: the runner reports the job running, succeeded or failed. */
export async function updateJob(ctx: Ctx, input: UpdateJobInput, req: Pick<RouteRequest, 'headers' | 'ip'>) {
  const job = await authenticateJob(ctx, input.id, jobTokenOf(input, req.headers), { heartbeatFrom: req.ip });
  const reply = <Status extends 200 | 400>(status: Status) => text(String(status), 'text/plain', status, { 'X-GitLab-Trace-Update-Interval': TRACE_UPDATE_INTERVAL });
  const now = nowIso(ctx);
  switch (input.state) {
    case undefined:
    case 'running':
      return reply(200);
    case 'success':
      await finishJob(ctx, job, { status: 'success' }, now);
      return reply(200);
    case 'failed': {
      const reason = input.failure_reason && FAILURE_REASONS.has(input.failure_reason) ? input.failure_reason : 'unknown_failure';
      await finishJob(ctx, job, { status: 'failed', failureReason: reason }, now);
      return reply(200);
    }
    default:
      return reply(400);
  }
}

/** The log's length in bytes: the end of its last chunk. */
async function traceSize(ctx: Pick<Ctx, 'db'>, jobId: number): Promise<number> {
  const last = await ctx.db
    .selectFrom('ci_job_trace_chunks')
    .select(['byte_offset', 'data'])
    .where('job_id', '=', jobId)
    .orderBy('byte_offset', 'desc')
    .limit(1)
    .executeTakeFirst();
  return last ? last.byte_offset + Buffer.from(last.data, 'base64').length : 0;
}

async function readBody(body: AsyncIterable<Uint8Array> | undefined, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body ?? []) {
    size += c.length;
    if (size > limit) throw new BadRequestError('Trace patch is too large');
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks);
}

/** The job token written into its own log is masked (same length, as GitLab masks secrets). */
function maskToken(data: Buffer, token: string): Buffer {
  const needle = Buffer.from(token);
  let at = data.indexOf(needle);
  if (at < 0) return data;
  const out = Buffer.from(data);
  while (at >= 0) {
    out.fill('x'.charCodeAt(0), at, at + needle.length);
    at = out.indexOf(needle, at + needle.length);
  }
  return out;
}

/**
 * PATCH /jobs/:id/trace: appends the body at the `Content-Range` start, which must be the log's
 * current length (else 416 with the length in `Range`); 202 with `Range: 0-<length>`.
 */
export async function patchTrace(ctx: Ctx, input: { id: number; token?: string }, req: Pick<RouteRequest, 'headers' | 'ip' | 'body'>) {
  const { headers, body } = req;
  const token = jobTokenOf(input, headers);
  const job = await authenticateJob(ctx, input.id, token, { heartbeatFrom: req.ip });
  const range = headers['content-range'];
  if (range === undefined) throw new BadRequestError('400 Missing header Content-Range', { raw: true });
  const m = /^(?:bytes\s+)?(\d+)-(\d+)?/.exec(range.trim());
  const data = await readBody(body, TRACE_PATCH_LIMIT);
  const start = m ? Number(m[1]) : NaN;
  const size = await ctx.db.transaction().execute(async (trx) => {
    const current = await traceSize({ db: trx }, job.id);
    if (!Number.isSafeInteger(start) || start !== current) return { ok: false as const, size: current };
    if (data.length) {
      const inserted = await trx
        .insertInto('ci_job_trace_chunks')
        .values({ job_id: job.id, byte_offset: start, data: maskToken(data, token!).toString('base64') })
        .onConflict((oc) => oc.columns(['job_id', 'byte_offset']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { ok: false as const, size: await traceSize({ db: trx }, job.id) };
    }
    return { ok: true as const, size: current + data.length };
  });
  if (!size.ok) {
    return json(416, { message: '416 Range Not Satisfiable' }, { Range: `0-${size.size}` });
  }
  return empty(202, { 'Job-Status': job.status, Range: `0-${size.size}`, 'X-GitLab-Trace-Update-Interval': TRACE_UPDATE_INTERVAL });
}
