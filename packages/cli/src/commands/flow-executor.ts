/**
 * `forgelet flow-executor`: the reference executor of agent flows. It takes flow workloads
 * (CI jobs of pipelines with source `duo_workflow`) through the runner API, runs the agent
 * program with the goal on stdin and the job variables in its environment, saves every line the
 * program prints as an `ai` message checkpoint (the first checkpoint holds the human goal), and
 * finishes the flow when the program exits 0, or fails it (status event `drop`) otherwise. The
 * flow API is called with the flow's own token (`GITLAB_OAUTH_TOKEN`), limited to its privileges.
 * Every call goes through @forgelet/client, without its retries (as the runner).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ApiError, type JobPayload, type UpdateJobParams } from '@forgelet/client';
import type { Command } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { CliError, UsageError } from '../errors.js';
import { writeJson, type CliIo } from '../io.js';
import { parseHttpUrl, pick } from '../options.js';
import { DEFAULT_URL, remoteError } from '../remote.js';
import { RunnerConnection } from '../runner/connection.js';

interface FlowExecutorFlags {
  url?: string;
  token?: string;
  command?: string;
  once?: boolean;
  pollInterval?: string;
  json?: boolean;
}

export interface FlowOutcome {
  flow: number | null;
  job: number;
  status: 'finished' | 'failed' | 'skipped';
  exit_code: number | null;
  messages: number;
}

export function registerFlowExecutorCommand(program: Command, io: CliIo): void {
  program
    .command('flow-executor')
    .description('run agent flow workloads from a server: the agent program gets the goal on stdin, each printed line becomes an ai message')
    .option('--url <url>', `server URL (env FORGELET_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'the runner authentication token, glrt-… (env FORGELET_RUNNER_TOKEN)')
    .option('--command <program>', 'the agent program, run with sh -c (env FORGELET_FLOW_COMMAND)')
    .option('--once', 'run flows until none is pending, then exit')
    .option('--poll-interval <seconds>', 'seconds between job requests when idle', '3')
    .option('--json', 'print one JSON line per flow')
    .action((flags: FlowExecutorFlags) => flowExecutorCommand(flags, io));
}

/** The executor's connection: the runner's client, one per flow with the flow's token; no client retries. */
class FlowApi extends RunnerConnection {
  /** Runs a call; a server that cannot be reached is a CliError. */
  async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      throw err instanceof ApiError ? err : remoteError(this, err);
    }
  }

  /** Runs a call whose answer does not matter (a refusal is ignored; an unreachable server is not). */
  async tell(work: () => Promise<unknown>): Promise<void> {
    try {
      await this.call(work);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `POST /jobs/request`: a job, or null. */
async function requestJob(api: FlowApi, token: string): Promise<JobPayload | null> {
  try {
    return await api.call(() =>
      api.runnerClient.runnerJobs.request({
        token,
        info: { name: 'forgelet-flow-executor', version: pkg.version, executor: 'flow', platform: process.platform, architecture: process.arch, features: {} },
      }),
    );
  } catch (err) {
    if (ApiError.is(err, 401, 403)) throw new CliError(`the runner token was refused (${err.status}): check --token (a glrt- runner authentication token)`);
    if (err instanceof ApiError) throw new CliError(`POST /jobs/request answered ${err.status}: ${err.message.slice(0, 200)}`);
    throw err;
  }
}

async function finishJob(api: FlowApi, job: JobPayload, log: string, state: 'success' | 'failed', extra: Omit<UpdateJobParams, 'state'> = {}): Promise<void> {
  if (log) await api.tell(() => api.runnerClient.runnerJobs.appendTrace(job.id, job.token, log, 0));
  await api.tell(() => api.runnerClient.runnerJobs.update(job.id, job.token, { state, ...extra }));
}

const stamp = () => new Date().toISOString();

/** Runs one flow workload to its end. */
async function runFlow(api: FlowApi, job: JobPayload, command: string, abort: AbortSignal): Promise<FlowOutcome> {
  const vars = job.variables ?? [];
  const get = (key: string) => vars.find((v) => v.key === key)?.value;
  const flowId = Number(get('DUO_WORKFLOW_WORKFLOW_ID'));
  const flowToken = get('GITLAB_OAUTH_TOKEN');
  if (!Number.isInteger(flowId) || !flowToken) {
    await finishJob(api, job, 'forgelet flow-executor: not an agent flow workload (no DUO_WORKFLOW_WORKFLOW_ID)\n', 'failed', { failure_reason: 'runner_unsupported' });
    return { flow: null, job: job.id, status: 'skipped', exit_code: null, messages: 0 };
  }
  const goal = get('DUO_WORKFLOW_GOAL') ?? '';
  const flows = api.client({ token: flowToken }).agentFlows;
  let current;
  try {
    current = await api.call(() => flows.show(flowId));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    await finishJob(api, job, `forgelet flow-executor: flow ${flowId} is not readable (${err.status})\n`, 'failed', { failure_reason: 'api_failure' });
    return { flow: flowId, job: job.id, status: 'failed', exit_code: null, messages: 0 };
  }
  if (current.status === 'created') await api.tell(() => flows.updateStatus(flowId, 'start'));

  // The chat log grows by one entry per checkpoint; each checkpoint carries the whole log.
  const chatLog: Record<string, unknown>[] = [];
  let parent: string | undefined;
  let seq = 0;
  let chain: Promise<void> = Promise.resolve();
  const checkpoint = (entry: Record<string, unknown>) => {
    chatLog.push(entry);
    const log = [...chatLog];
    chain = chain.then(async () => {
      seq += 1;
      const threadTs = `${stamp()}#${String(seq).padStart(6, '0')}`;
      try {
        await api.call(() =>
          flows.createCheckpoint(flowId, {
            thread_ts: threadTs,
            ...(parent ? { parent_ts: parent } : {}),
            checkpoint: { v: 1, ts: stamp(), channel_values: { status: 'Execution', ui_chat_log: log } },
            metadata: { source: 'loop', step: seq, writes: null },
          }),
        );
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        throw new CliError(`saving a checkpoint of flow ${flowId} failed (${err.status}): ${err.message.slice(0, 200)}`);
      }
      parent = threadTs;
    });
  };
  checkpoint({ message_type: 'human', content: goal, status: 'success', timestamp: stamp(), correlation_id: null, tool_info: null });

  const workDir = await mkdtemp(path.join(tmpdir(), 'forgelet-flow-'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const v of vars) env[v.key] = v.value;
  let logText = `$ ${command}\n`;
  let messages = 0;
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd: workDir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const onAbort = () => child.kill('SIGTERM');
    abort.addEventListener('abort', onAbort, { once: true });
    child.stdin.on('error', () => {});
    child.stdin.end(goal);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      logText += `${line}\n`;
      if (line.trim() === '') return;
      messages += 1;
      checkpoint({ message_type: 'ai', content: line, status: 'success', timestamp: stamp(), correlation_id: null, tool_info: null });
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (logText += d));
    let closedOut = false;
    let exited: number | null = null;
    const settle = () => {
      if (closedOut && exited !== null) {
        abort.removeEventListener('abort', onAbort);
        resolve(exited);
      }
    };
    lines.on('close', () => {
      closedOut = true;
      settle();
    });
    child.on('error', (err) => {
      logText += `${err.message}\n`;
      exited = 127;
      closedOut = true;
      settle();
    });
    child.on('close', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      settle();
    });
  });
  await rm(workDir, { recursive: true, force: true });
  let checkpointError: Error | null = null;
  await chain.catch((err: Error) => {
    checkpointError = err;
  });
  const ok = exitCode === 0 && checkpointError === null;
  if (checkpointError) logText += `${(checkpointError as Error).message}\n`;
  await api.tell(() => flows.updateStatus(flowId, ok ? 'finish' : 'drop'));
  await finishJob(api, job, logText, ok ? 'success' : 'failed', ok ? {} : { failure_reason: 'script_failure', exit_code: exitCode });
  return { flow: flowId, job: job.id, status: ok ? 'finished' : 'failed', exit_code: exitCode, messages };
}

export interface FlowExecutorOptions {
  url: string;
  token: string;
  command: string;
  once: boolean;
  pollIntervalMs: number;
  stop: AbortSignal;
  abort: AbortSignal;
  onFlow?: (outcome: FlowOutcome) => void;
}

/** Takes and runs flow workloads; with `once`, until none is pending. */
export async function runFlowExecutor(options: FlowExecutorOptions): Promise<FlowOutcome[]> {
  const api = new FlowApi(options.url.replace(/\/+$/, ''), `forgelet-flow-executor ${pkg.version} (${process.platform}/${process.arch}; node ${process.version})`);
  const outcomes: FlowOutcome[] = [];
  while (!options.stop.aborted) {
    const job = await requestJob(api, options.token);
    if (!job) {
      if (options.once) break;
      await sleep(options.pollIntervalMs, options.stop);
      continue;
    }
    const outcome = await runFlow(api, job, options.command, options.abort);
    outcomes.push(outcome);
    options.onFlow?.(outcome);
  }
  return outcomes;
}

export function describeFlowOutcome(o: FlowOutcome): string {
  if (o.status === 'skipped') return `job ${o.job} skipped: not an agent flow workload`;
  const tail = o.status === 'failed' && o.exit_code !== null ? ` (exit code ${o.exit_code})` : '';
  return `flow ${o.flow} (job ${o.job}) ${o.status}${tail}, ${o.messages} message${o.messages === 1 ? '' : 's'}`;
}

async function flowExecutorCommand(flags: FlowExecutorFlags, io: CliIo): Promise<void> {
  const urlPick = pick(flags.url, io.env, 'FORGELET_URL');
  const url = parseHttpUrl(urlPick?.value ?? DEFAULT_URL, urlPick?.from ?? 'flag', '--url');
  const token = pick(flags.token, io.env, 'FORGELET_RUNNER_TOKEN')?.value;
  if (!token) throw new UsageError('a runner token is needed: pass --token or set FORGELET_RUNNER_TOKEN (create a runner with POST /user/runners)');
  const command = pick(flags.command, io.env, 'FORGELET_FLOW_COMMAND')?.value;
  if (!command || command.trim() === '') throw new UsageError('an agent program is needed: pass --command "<program>" or set FORGELET_FLOW_COMMAND');
  const interval = Number(flags.pollInterval ?? '3');
  if (!/^\d+(\.\d+)?$/.test(flags.pollInterval ?? '3') || !(interval > 0) || interval > 3600) {
    throw new UsageError(`--poll-interval must be a number of seconds above 0 and at most 3600, got "${flags.pollInterval}"`);
  }
  const stop = new AbortController();
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      io.stderr.write(`${signal}: stopping after the current flow (send it again to abort it)\n`);
      stop.abort();
    } else abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (!flags.once) io.stderr.write(`forgelet flow-executor ${pkg.version}: waiting for agent flows from ${url} (Ctrl-C to stop)\n`);
  try {
    await runFlowExecutor({
      url,
      token,
      command,
      once: flags.once ?? false,
      pollIntervalMs: interval * 1000,
      stop: stop.signal,
      abort: abort.signal,
      onFlow: (o) => (flags.json ? writeJson(io.stdout, o) : void io.stdout.write(`${describeFlowOutcome(o)}\n`)),
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
