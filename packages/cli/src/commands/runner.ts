/**
 * `forgelet runner`: a CI runner (shell executor) speaking GitLab's runner protocol to a
 * Forgelet (or GitLab) server. The work happens in ../runner/.
 */
import { ApiError } from '@forgelet/client';
import type { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { parseHttpUrl, pick } from '../options.js';
import { DEFAULT_URL, remoteError } from '../remote.js';
import type { JobOutcome } from '../runner/job.js';

interface RunnerFlags {
  url?: string;
  token?: string;
  once?: boolean;
  workDir?: string;
  pollInterval?: string;
  keepBuilds?: boolean;
  json?: boolean;
}

export function registerRunnerCommand(program: Command, io: CliIo): void {
  program
    .command('runner')
    .description('run CI jobs from a server (shell executor, GitLab runner protocol)')
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'the runner authentication token, glrt-… (env FORGELET_RUNNER_TOKEN)')
    .option('--once', 'run jobs until none is pending, then exit')
    .option('--work-dir <dir>', 'where job directories are created (default: a temporary directory)')
    .option('--poll-interval <seconds>', 'seconds between job requests when idle', '3')
    .option('--keep-builds', "keep each job's directory after the job")
    .option('--json', 'print one JSON line per job')
    .action((flags: RunnerFlags) => runnerCommand(flags, io));
}

/** `job 12 build (stage build) success in 1.2s` */
export function describeOutcome(o: JobOutcome): string {
  let status: string = o.status;
  if (o.status === 'failed') {
    const detail = o.failure_reason === 'script_failure' && o.exit_code !== null ? `exit code ${o.exit_code}` : (o.failure_reason ?? 'unknown');
    status = `failed (${detail})`;
  }
  return `job ${o.job} ${o.name} (stage ${o.stage}) ${status} in ${o.duration.toFixed(1)}s`;
}

async function runnerCommand(flags: RunnerFlags, io: CliIo): Promise<void> {
  const urlPick = pick(flags.url, io.env, 'FORGELET_URL');
  const url = parseHttpUrl(urlPick?.value ?? DEFAULT_URL, urlPick?.from ?? 'flag', '--url');
  const token = pick(flags.token, io.env, 'FORGELET_RUNNER_TOKEN')?.value;
  if (!token) throw new UsageError('a runner token is needed: pass --token or set FORGELET_RUNNER_TOKEN (create a runner with POST /user/runners)');
  const interval = Number(flags.pollInterval ?? '3');
  if (!/^\d+(\.\d+)?$/.test(flags.pollInterval ?? '3') || !(interval > 0) || interval > 3600) {
    throw new UsageError(`--poll-interval must be a number of seconds above 0 and at most 3600, got "${flags.pollInterval}"`);
  }
  if (flags.workDir !== undefined && flags.workDir.trim() === '') throw new UsageError('--work-dir must not be empty');
  // loaded here, so other commands (serve must start fast) never load the runner, yazl or yauzl
  const [{ runRunner }, { RunnerAuthError, RunnerProtocolError, describeFailure }] = await Promise.all([import('../runner/runner.js'), import('../runner/connection.js')]);

  // First SIGINT/SIGTERM: stop asking for jobs and let the current one finish.
  // Second: kill the current job too (it is reported failed).
  const stop = new AbortController();
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      io.stderr.write(`${signal}: stopping after the current job (send it again to abort the job)\n`);
      stop.abort();
    } else if (!abort.signal.aborted) {
      io.stderr.write(`${signal}: aborting the current job\n`);
      abort.abort();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (!flags.once) io.stderr.write(`forgelet-runner ${pkg.version}: waiting for jobs from ${url} (Ctrl-C to stop)\n`);
  try {
    await runRunner({
      url,
      token,
      version: pkg.version,
      once: flags.once ?? false,
      workDir: flags.workDir,
      pollIntervalMs: interval * 1000,
      keepBuilds: flags.keepBuilds ?? false,
      stop: stop.signal,
      abort: abort.signal,
      onJob: (outcome) => (flags.json ? writeJson(io.stdout, outcome) : void io.stdout.write(`${describeOutcome(outcome)}\n`)),
      onMessage: (text) => void io.stderr.write(`${text}\n`),
    });
  } catch (err) {
    if (err instanceof RunnerAuthError || err instanceof RunnerProtocolError) throw new CliError(err.message);
    if (err instanceof ApiError) throw new CliError(describeFailure(url, err));
    throw remoteError({ url }, err);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
