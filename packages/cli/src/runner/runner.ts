/**
 * The runner loop: verify the token, then ask for jobs and run them one at a time, until
 * none is pending (`once`) or until asked to stop.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { ApiError, type JobPayload, type RunnerInfoInput } from '@forgelet/client';
import { RUNNER_NAME, RunnerAuthError, RunnerConnection, RunnerProtocolError } from './connection.js';
import { runJob, type JobOutcome } from './job.js';
import { detectShell } from './shell.js';

export interface RunnerOptions {
  url: string;
  token: string;
  version: string;
  /** Run jobs until none is pending, then return. */
  once: boolean;
  /** Where job directories go (default: a temporary directory, removed at the end). */
  workDir?: string;
  pollIntervalMs: number;
  keepBuilds?: boolean;
  traceIntervalMs?: number;
  /** Seconds a job may run when the server sets no timeout. */
  defaultTimeout?: number;
  /** Stop asking for jobs; the current one finishes. */
  stop?: AbortSignal;
  /** Kill the current job too (reported failed). */
  abort?: AbortSignal;
  onJob?(outcome: JobOutcome): void;
  /** Notices for people (stderr). */
  onMessage?(text: string): void;
}

/** What the runner says about itself with each job request (gitlab-runner's `VersionInfo`). */
export interface RunnerInfo extends RunnerInfoInput {
  name: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  executor: string;
  shell: string;
  features: Record<string, boolean>;
}

export function runnerInfo(version: string, shell: string): RunnerInfo {
  return {
    name: RUNNER_NAME,
    version,
    revision: 'forgelet',
    platform: process.platform,
    architecture: process.arch === 'x64' ? 'amd64' : process.arch,
    executor: 'shell',
    shell,
    features: {
      variables: true,
      image: false,
      services: false,
      artifacts: true,
      cache: false,
      shared: false,
      upload_multiple_artifacts: true,
      upload_raw_artifacts: true,
      session: false,
      terminal: false,
      refspecs: false,
      masking: true,
      proxy: false,
      raw_variables: true,
      artifacts_exclude: true,
      multi_build_steps: true,
      trace_reset: true,
      trace_checksum: true,
      trace_size: true,
      cancelable: true,
      return_exit_code: true,
    },
  };
}

/** gitlab-runner's `s_` + 12 hex system id, stable for this host and user. */
export function systemId(): string {
  let user = '';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry
  }
  return `s_${createHash('sha256').update(`${hostname()}\0${user}`).digest('hex').slice(0, 12)}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The token was refused: a RunnerAuthError; other failures pass through. */
function refused(err: unknown, hint = ''): unknown {
  if (!ApiError.is(err, 401, 403)) return err;
  return new RunnerAuthError(err.status, `the runner token was refused (${err.status} ${err.message})${hint}`);
}

/** `POST /runners/verify`: resolves when the token is valid. */
async function verify(connection: RunnerConnection, token: string, id: string): Promise<void> {
  try {
    await connection.runnerClient.runners.verify(token, id);
  } catch (err) {
    throw refused(err, ': check --token (a glrt- runner authentication token)');
  }
}

/** `POST /jobs/request`: a job (checked to have an id and a token), or null when none is pending. */
async function requestJob(connection: RunnerConnection, token: string, info: RunnerInfo, id: string, lastUpdate: string | undefined, signal?: AbortSignal) {
  let answer;
  try {
    answer = await connection.runnerClient.runnerJobs.poll({ token, system_id: id, info, ...(lastUpdate ? { last_update: lastUpdate } : {}) }, { signal });
  } catch (err) {
    throw refused(err);
  }
  const job: JobPayload | null = answer.job;
  if (job !== null && (typeof job !== 'object' || typeof job.id !== 'number' || typeof job.token !== 'string')) {
    throw new RunnerProtocolError(`POST /jobs/request returned a job without id or token: ${JSON.stringify(job).slice(0, 200)}`);
  }
  return { job, lastUpdate: answer.lastUpdate ?? lastUpdate };
}

/** Runs jobs; resolves with their outcomes. Rejects on a refused token or, with `once`, a connection error. */
export async function runRunner(options: RunnerOptions): Promise<JobOutcome[]> {
  const userAgent = `${RUNNER_NAME} ${options.version} (${process.platform}/${process.arch}; node ${process.version})`;
  const connection = new RunnerConnection(options.url, userAgent);
  const id = systemId();
  await verify(connection, options.token, id);

  const shell = await detectShell();
  const info = runnerInfo(options.version, shell.name);
  const temporary = options.workDir === undefined;
  const buildsDir = temporary ? await mkdtemp(path.join(tmpdir(), 'forgelet-runner-')) : path.resolve(options.workDir!);
  if (!temporary) await mkdir(buildsDir, { recursive: true });

  const outcomes: JobOutcome[] = [];
  let lastUpdate: string | undefined;
  let failures = 0;
  try {
    while (!options.stop?.aborted) {
      let job;
      try {
        // `--once` asks without last_update: one authoritative look at the queue each time
        const reply = await requestJob(connection, options.token, info, id, options.once ? undefined : lastUpdate, options.stop);
        lastUpdate = reply.lastUpdate;
        job = reply.job;
        failures = 0;
      } catch (err) {
        if ((err as Error).name === 'AbortError' && options.stop?.aborted) break;
        if (err instanceof RunnerAuthError || options.once) throw err;
        failures++;
        const wait = Math.min(options.pollIntervalMs * 2 ** Math.min(failures, 5), 60_000);
        options.onMessage?.(`WARNING: ${connection.describe(err)}; retrying in ${Math.round(wait / 100) / 10}s`);
        await sleep(wait, options.stop);
        continue;
      }
      if (!job) {
        if (options.once) break;
        await sleep(options.pollIntervalMs, options.stop);
        continue;
      }
      let outcome: JobOutcome;
      try {
        outcome = await runJob(
          {
            connection,
            shell,
            buildsDir,
            version: options.version,
            systemId: id,
            keepBuilds: options.keepBuilds ?? false,
            traceIntervalMs: options.traceIntervalMs ?? 1000,
            abort: options.abort,
            defaultTimeout: options.defaultTimeout ?? 3600,
          },
          job,
        );
      } catch (err) {
        if (options.once) throw err;
        options.onMessage?.(`WARNING: job ${job.id}: ${connection.describe(err)}`);
        continue;
      }
      outcomes.push(outcome);
      options.onJob?.(outcome);
    }
  } finally {
    if (temporary) await rm(buildsDir, { recursive: true, force: true }).catch(() => undefined);
  }
  return outcomes;
}
