/**
 * One job, start to finish: fetch the ref's files with the job token, bring in earlier
 * jobs' artifacts, run `script` then `after_script`, upload artifacts, report the state.
 * The log streams to the server all along.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ApiError, type Forgelet, type JobPayload, type JobPayloadArtifacts, type JobPayloadStep, type UpdateJobParams } from '@forgelet/client';
import { extractZip, writeGzip, writeRaw, writeZip } from './archive.js';
import { fetchWithGit, gitStrategy } from './git-sources.js';
import { RUNNER_NAME, isNetworkFailure, type RunnerConnection } from './connection.js';
import { collectArtifacts } from './paths.js';
import { runScript, type Shell } from './shell.js';
import { JobTrace, TraceSender, type CancelReason } from './trace.js';
import { buildEnvironment, expand } from './variables.js';

/** What the runner reports for each finished job. */
export interface JobOutcome {
  job: number;
  name: string;
  stage: string;
  project_id: number | null;
  pipeline_id: number | null;
  status: 'success' | 'failed' | 'canceled';
  failure_reason: string | null;
  exit_code: number | null;
  duration: number;
}

export interface JobContext {
  connection: RunnerConnection;
  shell: Shell;
  /** CI_BUILDS_DIR: job directories are created below it. */
  buildsDir: string;
  version: string;
  systemId: string;
  /** Keep each job's directory after the job (default: removed). */
  keepBuilds: boolean;
  traceIntervalMs: number;
  /** Aborted on a forced shutdown: the running script is killed, the job reported failed. */
  abort?: AbortSignal;
  /** Seconds a step may run when the job sets no timeout. */
  defaultTimeout: number;
}

const AFTER_SCRIPT_TIMEOUT = 5 * 60;

class JobFailure extends Error {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/** Stops the job on the server's word (cancel) or the runner's (forced shutdown). */
class JobControl {
  readonly controller = new AbortController();
  reason: CancelReason | 'aborted' | null = null;

  stop(reason: CancelReason | 'aborted'): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller.abort();
  }
}

export async function runJob(ctx: JobContext, job: JobPayload): Promise<JobOutcome> {
  const started = Date.now();
  const name = job.job_info?.name ?? `job ${job.id}`;
  const stage = job.job_info?.stage ?? 'test';
  const projectId = job.job_info?.project_id ?? null;
  const variables = Array.isArray(job.variables) ? job.variables : [];
  const trace = new JobTrace([job.token, ...variables.filter((v) => v?.masked && v.value).map((v) => v.value)]);
  const control = new JobControl();
  const onForcedStop = () => control.stop('aborted');
  if (ctx.abort?.aborted) onForcedStop();
  else ctx.abort?.addEventListener('abort', onForcedStop, { once: true });
  // every call of the job carries its token
  const api = ctx.connection.client(job.token);
  const sender = new TraceSender(api, job.id, job.token, trace, (reason) => control.stop(reason), ctx.traceIntervalMs);
  sender.start();

  const jobDir = path.join(ctx.buildsDir, `job-${job.id}`);
  const tmpDir = path.join(ctx.buildsDir, `job-${job.id}.tmp`);
  let status: JobOutcome['status'] = 'success';
  let failureReason: string | null = null;
  let exitCode: number | null = null;

  trace.line(`Running with ${RUNNER_NAME} ${ctx.version}`);
  trace.line(`  on ${hostname()} system ID: ${ctx.systemId}`);
  trace.line(`Preparing the "shell" executor`, 'cyan');
  trace.line(`Using Shell (${ctx.shell.name}) executor...`);
  if (job.image?.name) trace.line(`WARNING: the shell executor ignores image "${job.image.name}"`, 'yellow');
  trace.line(`Running on ${hostname()}...`);

  try {
    await rm(jobDir, { recursive: true, force: true });
    await rm(tmpDir, { recursive: true, force: true });
    await mkdir(jobDir, { recursive: true });
    await mkdir(tmpDir, { recursive: true, mode: 0o700 });

    const tracked = await fetchSources(job, jobDir, trace, control.controller.signal);
    if (control.reason) throw new JobFailure('canceled', 'canceled');
    await downloadDependencies(ctx, api, job, jobDir, trace);
    if (control.reason) throw new JobFailure('canceled', 'canceled');

    const defaults: Record<string, string> = {
      CI: 'true',
      GITLAB_CI: 'true',
      CI_JOB_ID: String(job.id),
      CI_JOB_NAME: name,
      CI_JOB_STAGE: stage,
      CI_JOB_TOKEN: job.token,
    };
    if (projectId !== null) defaults.CI_PROJECT_ID = String(projectId);
    if (job.job_info?.pipeline_id !== undefined) defaults.CI_PIPELINE_ID = String(job.job_info.pipeline_id);
    if (job.git_info?.sha) defaults.CI_COMMIT_SHA = job.git_info.sha;
    if (job.git_info?.ref) defaults.CI_COMMIT_REF_NAME = job.git_info.ref;
    const extra = {
      CI_PROJECT_DIR: jobDir,
      CI_BUILDS_DIR: ctx.buildsDir,
      CI_SERVER: 'yes',
      CI_RUNNER_VERSION: ctx.version,
      CI_RUNNER_EXECUTABLE_ARCH: `${process.platform}/${process.arch}`,
    };
    const environment = await buildEnvironment(variables, defaults, extra, tmpDir);
    const lookup = (key: string) => environment.variables.get(key);

    const steps = Array.isArray(job.steps) ? job.steps : [];
    const script = steps.find((s) => s.name === 'script');
    const afterScript = steps.find((s) => s.name === 'after_script');
    for (const s of steps) {
      if (s.name !== 'script' && s.name !== 'after_script') trace.line(`WARNING: step "${s.name}" is not supported by forgelet-runner; skipped`, 'yellow');
    }

    if (script) {
      trace.line(`Executing "step_script" stage of the job script`, 'cyan');
      const result = await runStep(ctx, script, job, jobDir, tmpDir, environment.env, trace, control.controller.signal, 'step_script');
      if (control.reason) throw new JobFailure('canceled', 'canceled');
      if (result.timedOut) {
        status = 'failed';
        failureReason = 'job_execution_timeout';
        trace.line(`ERROR: Job failed: execution took longer than ${formatDuration(stepTimeout(ctx, script, job) * 1000)} seconds`, 'red');
      } else if (result.exitCode !== 0) {
        status = 'failed';
        failureReason = 'script_failure';
        exitCode = result.exitCode ?? 1;
        if (result.exitCode === null) trace.line(`ERROR: Job failed: killed by signal ${result.signal}`, 'red');
      }
    }

    if (afterScript && afterScript.script?.length) {
      trace.line('Running after_script', 'cyan');
      trace.line('Running after script...');
      const env = { ...environment.env, CI_JOB_STATUS: status };
      const result = await runStep(ctx, afterScript, job, jobDir, tmpDir, env, trace, control.controller.signal, 'after_script');
      if (control.reason) throw new JobFailure('canceled', 'canceled');
      if (result.timedOut) trace.line('WARNING: after_script timed out, but job will continue unaffected', 'yellow');
      else if (result.exitCode !== 0) trace.line(`WARNING: after_script failed, but job will continue unaffected: exit code ${result.exitCode ?? 1}`, 'yellow');
    }

    const specs = Array.isArray(job.artifacts) ? job.artifacts : [];
    const wanted = specs.filter((a) => artifactWanted(a, status));
    if (wanted.length > 0) {
      trace.line(status === 'success' ? 'Uploading artifacts for successful job' : 'Uploading artifacts for failed job', 'cyan');
      for (const spec of wanted) {
        const ok = await uploadArtifact(ctx, api, job, spec, jobDir, tmpDir, tracked, lookup, trace);
        if (!ok && status === 'success') {
          status = 'failed';
          failureReason = 'unknown_failure';
        }
        if (control.reason) throw new JobFailure('canceled', 'canceled');
      }
    }
  } catch (err) {
    if (control.reason || (err instanceof JobFailure && err.reason === 'canceled')) {
      status = control.reason === 'aborted' ? 'failed' : 'canceled';
      failureReason = control.reason === 'aborted' ? 'runner_system_failure' : null;
    } else {
      status = 'failed';
      failureReason = err instanceof JobFailure ? err.reason : 'runner_system_failure';
      exitCode = null;
      trace.line(`ERROR: ${(err as Error).message}`, 'red');
    }
  }

  trace.line('Cleaning up project directory and file based variables', 'cyan');
  await rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
  if (!ctx.keepBuilds) await rm(jobDir, { recursive: true, force: true }).catch(() => undefined);
  ctx.abort?.removeEventListener('abort', onForcedStop);

  if (status === 'success') trace.line('Job succeeded', 'green');
  else if (status === 'canceled') trace.line('ERROR: Job failed: canceled', 'red');
  else if (control.reason === 'aborted') trace.line('ERROR: Job failed (system failure): aborted: the runner is shutting down', 'red');
  else if (failureReason === 'script_failure') trace.line(`ERROR: Job failed: exit code ${exitCode}`, 'red');
  else if (failureReason !== 'job_execution_timeout') trace.line(`ERROR: Job failed: ${failureReason}`, 'red');

  await sender.finish();
  if (status !== 'canceled') {
    await reportState(api, job, {
      state: status,
      ...(failureReason ? { failure_reason: failureReason } : {}),
      ...(exitCode !== null ? { exit_code: exitCode } : {}),
      checksum: trace.checksum(),
      output: { checksum: trace.checksum(), bytesize: trace.size },
    });
  }
  return {
    job: job.id,
    name,
    stage,
    project_id: projectId,
    pipeline_id: job.job_info?.pipeline_id ?? null,
    status,
    failure_reason: failureReason,
    exit_code: exitCode,
    duration: Math.round((Date.now() - started) / 100) / 10,
  };
}

function stepTimeout(ctx: JobContext, step: JobPayloadStep, job: JobPayload): number {
  const t = Number(step.timeout ?? job.runner_info?.timeout ?? ctx.defaultTimeout);
  return Number.isFinite(t) && t > 0 ? t : ctx.defaultTimeout;
}

async function runStep(
  ctx: JobContext,
  step: JobPayloadStep,
  job: JobPayload,
  jobDir: string,
  tmpDir: string,
  env: NodeJS.ProcessEnv,
  trace: JobTrace,
  signal: AbortSignal,
  label: string,
) {
  const lines = (Array.isArray(step.script) ? step.script : []).map(String);
  const timeout = step.name === 'after_script' ? Math.min(AFTER_SCRIPT_TIMEOUT, stepTimeout(ctx, step, job)) : stepTimeout(ctx, step, job);
  const result = await runScript({
    shell: ctx.shell,
    lines,
    scriptFile: path.join(tmpDir, `${label}.sh`),
    cwd: jobDir,
    env,
    timeoutMs: timeout * 1000,
    onOutput: (stream, chunk) => trace.output(stream, chunk),
    signal,
  });
  trace.settle();
  return result;
}

function artifactWanted(spec: JobPayloadArtifacts, status: JobOutcome['status']): boolean {
  const when = spec.when ?? 'on_success';
  if (when === 'always') return true;
  if (when === 'on_failure') return status === 'failed';
  return status === 'success';
}

/**
 * The job's sources in `dir`, fetched with git as GitLab's runner does (git-sources.ts); returns
 * the tracked files' paths (for `artifacts:untracked`).
 */
async function fetchSources(job: JobPayload, dir: string, trace: JobTrace, signal: AbortSignal): Promise<Set<string>> {
  trace.line('Getting source from the repository', 'cyan');
  if (gitStrategy(job) === 'none') {
    trace.line('Skipping Git repository setup');
    return new Set();
  }
  if (!job.git_info?.repo_url || !job.git_info.sha) {
    trace.line('WARNING: the job names no repository or revision; starting from an empty directory', 'yellow');
    return new Set();
  }
  try {
    return await fetchWithGit(job, dir, trace, signal);
  } catch (err) {
    if (signal.aborted) throw new JobFailure('canceled', 'canceled');
    throw new JobFailure(`getting the sources failed: ${(err as Error).message}`, 'runner_system_failure');
  }
}

/** Artifacts of the jobs this one depends on, extracted into the project directory. */
async function downloadDependencies(ctx: JobContext, api: Forgelet, job: JobPayload, dir: string, trace: JobTrace): Promise<void> {
  const deps = (Array.isArray(job.dependencies) ? job.dependencies : []).filter((d) => d?.artifacts_file);
  if (deps.length === 0) return;
  trace.line('Downloading artifacts', 'cyan');
  for (const dep of deps) {
    trace.line(`Downloading artifacts for ${dep.name} (${dep.id})...`);
    const file = path.join(path.dirname(dir), `job-${job.id}.tmp`, `dependency-${dep.id}.zip`);
    try {
      const archive = await api.runnerJobs.downloadArtifacts(dep.id, dep.token ?? job.token);
      await pipeline(archive.body, createWriteStream(file, { mode: 0o600 }));
    } catch (err) {
      if (err instanceof ApiError) {
        throw new JobFailure(`downloading artifacts of ${dep.name} (${dep.id}) failed: ${err.status} ${err.message}`, 'missing_dependency_failure');
      }
      throw new JobFailure(`downloading artifacts of ${dep.name} (${dep.id}) failed: ${ctx.connection.describe(err)}`, 'runner_system_failure');
    }
    try {
      const result = await extractZip(file, dir);
      trace.line(`Downloading artifacts from coordinator... ok        id=${dep.id} responseStatus=200 OK files=${result.files}`);
      for (const skipped of result.skipped) trace.line(`WARNING: ${skipped}: outside the project directory; not extracted`, 'yellow');
    } catch (err) {
      throw new JobFailure(`extracting artifacts of ${dep.name} (${dep.id}) failed: ${(err as Error).message}`, 'runner_system_failure');
    } finally {
      await rm(file, { force: true });
    }
  }
}

/** Collects, archives and uploads one `artifacts` entry; false when the upload failed. */
async function uploadArtifact(
  ctx: JobContext,
  api: Forgelet,
  job: JobPayload,
  spec: JobPayloadArtifacts,
  dir: string,
  tmpDir: string,
  tracked: ReadonlySet<string>,
  lookup: (key: string) => string | undefined,
  trace: JobTrace,
): Promise<boolean> {
  const type = spec.artifact_type || 'archive';
  const format = spec.artifact_format || (type === 'archive' ? 'zip' : 'gzip');
  const paths = (spec.paths ?? []).map((p) => expand(String(p), lookup));
  const exclude = (spec.exclude ?? []).map((p) => expand(String(p), lookup));
  trace.line(`Uploading artifacts...`);
  const { entries, messages } = await collectArtifacts(dir, { paths, exclude, untracked: spec.untracked ?? false, tracked });
  for (const m of messages) trace.line(m, m.startsWith('WARNING') ? 'yellow' : undefined);
  if (entries.length === 0) {
    trace.line('ERROR: No files to upload', 'yellow');
    return true;
  }
  const baseName = spec.name ? expand(spec.name, lookup).replace(/[/\\]/g, '_') || 'artifacts' : type === 'archive' ? 'artifacts' : type;
  const file = path.join(tmpDir, `artifact-${type}.${format}`);
  let size: number;
  let filename: string;
  try {
    if (format === 'zip') {
      size = await writeZip(entries, file);
      filename = baseName.endsWith('.zip') ? baseName : `${baseName}.zip`;
    } else if (format === 'gzip') {
      size = await writeGzip(entries, file);
      filename = `${baseName}.gz`;
    } else if (format === 'raw') {
      size = await writeRaw(entries, file);
      filename = path.basename(entries.find((e) => e.kind === 'file')!.rel);
    } else {
      trace.line(`ERROR: unsupported artifact format "${format}"`, 'red');
      return false;
    }
  } catch (err) {
    trace.line(`ERROR: archiving artifacts failed: ${(err as Error).message}`, 'red');
    return false;
  }
  const label = `Uploading artifacts as "${type}" to coordinator...`;
  const params = { artifact_type: type, artifact_format: format, expire_in: spec.expire_in ?? undefined, filename };
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await api.runnerJobs.uploadArtifacts(job.id, job.token, { path: file }, params);
        trace.line(`${label} 201 Created  id=${job.id} responseStatus=201 Created size=${size}`);
        return true;
      } catch (err) {
        const status = err instanceof ApiError ? err.status : null;
        const reason = status !== null ? `${status} ${(err as ApiError).message}` : ctx.connection.describe(err);
        if (attempt < 2 && (isNetworkFailure(err) || (status !== null && status >= 500))) {
          trace.line(`WARNING: ${label} ${reason}; retrying`, 'yellow');
          await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
          continue;
        }
        trace.line(`ERROR: ${label} ${reason}${status !== null ? `  id=${job.id}` : ''}`, 'red');
        return false;
      }
    }
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * `PUT /jobs/:id` with the final state: retried on network and server errors, repeated
 * while the server answers 202 (it still waits for log bytes); 403/404 (the job is no
 * longer running there) end it quietly.
 */
async function reportState(api: Forgelet, job: JobPayload, body: UpdateJobParams): Promise<void> {
  let failures = 0;
  for (let accepted = 0; ; ) {
    try {
      const reply = await api.runnerJobs.update(job.id, job.token, body);
      if (reply.status === 202 && accepted < 10) {
        accepted++;
        await new Promise((r) => setTimeout(r, Math.min((reply.updateInterval ?? 1) * 1000, 2000)));
        continue;
      }
      return;
    } catch (err) {
      if (ApiError.is(err, 403, 404)) return;
      if (err instanceof ApiError && err.status < 500) throw err;
      if (!(err instanceof ApiError || isNetworkFailure(err)) || ++failures > 5) throw err;
      await new Promise((r) => setTimeout(r, 500 * 2 ** (failures - 1)));
    }
  }
}
