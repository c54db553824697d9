/**
 * The runner loop: verify the token, then ask for jobs and run them one at a time, until
 * none is pending (`once`) or until asked to stop.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import type { Dispatcher } from 'undici';
import { RUNNER_NAME, RunnerApi, RunnerAuthError, type RunnerInfo } from './api.js';
import { runJob } from './job.js';
import { detectShell } from './shell.js';
import type { JobOutcome } from './types.js';

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
  dispatcher?: Dispatcher;
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

/** Runs jobs; resolves with their outcomes. Rejects on a refused token or, with `once`, a connection error. */
export async function runRunner(options: RunnerOptions): Promise<JobOutcome[]> {
  const userAgent = `${RUNNER_NAME} ${options.version} (${process.platform}/${process.arch}; node ${process.version})`;
  const api = new RunnerApi(options.url, options.token, userAgent, options.dispatcher);
  const id = systemId();
  await api.verify(id);

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
        const reply = await api.requestJob(info, id, options.once ? undefined : lastUpdate, options.stop);
        lastUpdate = reply.lastUpdate;
        job = reply.job;
        failures = 0;
      } catch (err) {
        if ((err as Error).name === 'AbortError' && options.stop?.aborted) break;
        if (err instanceof RunnerAuthError || options.once) throw err;
        failures++;
        const wait = Math.min(options.pollIntervalMs * 2 ** Math.min(failures, 5), 60_000);
        options.onMessage?.(`WARNING: ${(err as Error).message}; retrying in ${Math.round(wait / 100) / 10}s`);
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
            api,
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
        options.onMessage?.(`WARNING: job ${job.id}: ${(err as Error).message}`);
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
