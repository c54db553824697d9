/** `forgelet serve`: the server on a data directory (SQLite by default) or PostgreSQL. */
import cluster, { type Worker } from 'node:cluster';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { StartOptions } from '@forgelet/server';
import type { Tier } from '@forgelet/core';
import { loadServeRuntime } from '../compiled-runtime.js';
import { CliError, configError, UsageError } from '../errors.js';
import { collectWhenIdle } from '../idle-gc.js';
import { writeJson, type CliIo } from '../io.js';
import {
  isPostgresUrl,
  parseChoice,
  parseCount,
  parseHttpUrl,
  parsePort,
  parsePositiveInteger,
  parseSeconds,
  pick,
  pickSwitch,
  resolveStorage,
  STORAGE_OPTIONS,
  type StorageFlags,
} from '../options.js';

export interface ServeFlags extends StorageFlags {
  port?: string;
  host?: string;
  externalUrl?: string;
  tier?: string;
  bodyLimit?: string;
  responseCache?: string;
  uploadLimit?: string;
  headerTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
  maxConnections?: string;
  scheduleTiming?: string;
  allowLocalEgress?: boolean;
  testMode?: boolean;
  allowFaults?: boolean;
  json?: boolean;
  workers?: string;
  blobUrl?: string;
  repositories?: string;
}

export const DEFAULT_PORT = 8080;
export const DEFAULT_HOST = '127.0.0.1';

/** Flags over environment over defaults; throws UsageError for a bad value. */
export function resolveServeOptions(flags: ServeFlags, env: NodeJS.ProcessEnv, tiers: readonly Tier[]): StartOptions & { port: number; host: string; dataDir: string } {
  const storage = resolveStorage(flags, env);
  const port = pick(flags.port, env, 'FORGELET_PORT');
  const external = pick(flags.externalUrl, env, 'FORGELET_EXTERNAL_URL');
  const tier = pick(flags.tier, env, 'FORGELET_TIER');
  const bodyLimit = pick(flags.bodyLimit, env, 'FORGELET_BODY_LIMIT');
  const responseCache = pick(flags.responseCache, env, 'FORGELET_RESPONSE_CACHE');
  const uploadLimit = pick(flags.uploadLimit, env, 'FORGELET_UPLOAD_LIMIT');
  const headerTimeout = pick(flags.headerTimeout, env, 'FORGELET_HEADER_TIMEOUT');
  const requestTimeout = pick(flags.requestTimeout, env, 'FORGELET_REQUEST_TIMEOUT');
  const keepAliveTimeout = pick(flags.keepAliveTimeout, env, 'FORGELET_KEEP_ALIVE_TIMEOUT');
  const maxConnections = pick(flags.maxConnections, env, 'FORGELET_MAX_CONNECTIONS');
  const scheduleTiming = pick(flags.scheduleTiming, env, 'FORGELET_SCHEDULE_TIMING');
  const blobUrl = pick(flags.blobUrl, env, 'FORGELET_BLOB_URL');
  if (blobUrl && /^postgres(ql)?:?$/i.test(blobUrl.value.trim()) && !isPostgresUrl(storage.databaseUrl ?? '')) {
    throw new UsageError(`${blobUrl.from === 'flag' ? '--blob-url' : blobUrl.from} postgres keeps the blobs in the database, which needs PostgreSQL (--database-url postgres://…); on SQLite they stay in the data directory`);
  }
  return {
    port: port ? parsePort(port.value, port.from) : DEFAULT_PORT,
    host: pick(flags.host, env, 'FORGELET_HOST')?.value ?? DEFAULT_HOST,
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl,
    blobUrl: blobUrl?.value,
    repositoriesDir: pick(flags.repositories, env, 'FORGELET_REPOSITORIES_DIR')?.value,
    rootToken: storage.rootToken,
    secretKeys: storage.secretKeys,
    externalUrl: external && parseHttpUrl(external.value, external.from, '--external-url'),
    tier: tier && parseChoice(tier.value, tier.from, '--tier', tiers),
    bodyLimitBytes: bodyLimit && parsePositiveInteger(bodyLimit.value, bodyLimit.from, '--body-limit'),
    responseCacheBytes: responseCache && parseCount(responseCache.value, responseCache.from, '--response-cache'),
    uploadLimitBytes: uploadLimit && parsePositiveInteger(uploadLimit.value, uploadLimit.from, '--upload-limit'),
    connections: {
      ...(headerTimeout && { headersTimeoutMs: parseSeconds(headerTimeout.value, headerTimeout.from, '--header-timeout', { zero: true }) }),
      ...(requestTimeout && { requestTimeoutMs: parseSeconds(requestTimeout.value, requestTimeout.from, '--request-timeout', { zero: true }) }),
      ...(keepAliveTimeout && { keepAliveTimeoutMs: parseSeconds(keepAliveTimeout.value, keepAliveTimeout.from, '--keep-alive-timeout') }),
      ...(maxConnections && { maxConnections: parseCount(maxConnections.value, maxConnections.from, '--max-connections') }),
    },
    scheduleTiming: scheduleTiming && parseChoice(scheduleTiming.value, scheduleTiming.from, '--schedule-timing', ['exact', 'gitlab'] as const),
    allowLocalEgress: pickSwitch(flags.allowLocalEgress, env, 'FORGELET_ALLOW_LOCAL_EGRESS'),
    testMode: pickSwitch(flags.testMode, env, 'FORGELET_TEST_MODE'),
    allowFaults: pickSwitch(flags.allowFaults, env, 'FORGELET_ALLOW_FAULTS'),
  };
}

export function registerServeCommand(program: Command, io: CliIo): void {
  const cmd = program
    .command('serve')
    .description('start the server; creates the data directory and the root user on first start')
    .option('-p, --port <port>', `port, 0 for any free one (env FORGELET_PORT, default ${DEFAULT_PORT})`)
    .option('--host <host>', `interface to listen on (env FORGELET_HOST, default ${DEFAULT_HOST})`);
  for (const [flags, description] of STORAGE_OPTIONS) cmd.option(flags, description);
  cmd
    .option('--blob-url <url>', 'where files go: file:///<dir>, postgres (the database, PostgreSQL only) or s3://<bucket>[/<prefix>]?endpoint=<url>&region=<r>&force_path_style=true, credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (env FORGELET_BLOB_URL, default <data>/blobs)')
    .option('--repositories <dir>', "projects' bare git repositories; several processes or machines share one path (env FORGELET_REPOSITORIES_DIR, default <data>/repositories)")
    .option('--external-url <url>', 'URL clients use, in links and clone URLs (env FORGELET_EXTERNAL_URL, default: the listening URL)')
    .option('--tier <tier>', 'licensed tier: free, premium or ultimate (env FORGELET_TIER, default ultimate)')
    .option('--body-limit <bytes>', 'largest JSON or form body (env FORGELET_BODY_LIMIT, default 10485760)')
    .option('--response-cache <bytes>', 'memory for answers repeated to identical GETs of projects while the database is unchanged, 0 for none (env FORGELET_RESPONSE_CACHE, default 8388608)')
    .option('--upload-limit <bytes>', 'largest uploaded file; NuGet packages are at most 500 MiB whatever this says (env FORGELET_UPLOAD_LIMIT, default 5 GiB)')
    .option('--header-timeout <seconds>', 'time a client has to send the headers of a request, 0 for none (env FORGELET_HEADER_TIMEOUT, default 30)')
    .option('--request-timeout <seconds>', 'time a client has to send a whole request, body included, 0 for none (env FORGELET_REQUEST_TIMEOUT, default 300)')
    .option('--keep-alive-timeout <seconds>', 'idle time before a kept-alive connection is closed (env FORGELET_KEEP_ALIVE_TIMEOUT, default 5)')
    .option('--max-connections <n>', 'open connections at most; more are closed at once, 0 for no cap (env FORGELET_MAX_CONNECTIONS, default 1024)')
    .option('--schedule-timing <mode>', 'pipeline schedules run at the cron instant (exact) or on GitLab\'s 10-minute worker ticks (gitlab) (env FORGELET_SCHEDULE_TIMING, default exact)')
    .option('--allow-local-egress', 'allow webhooks and imports to reach loopback and private networks (env FORGELET_ALLOW_LOCAL_EGRESS=1)')
    .option('--test-mode', 'enable test-only endpoints (env FORGELET_TEST_MODE=1)')
    .option('--allow-faults', 'enable fault injection (/api/v4/forgelet/faults) without the rest of test mode (env FORGELET_ALLOW_FAULTS=1)')
    .option('--workers <n>', 'server processes sharing the port, PostgreSQL only (env FORGELET_WORKERS, default 1)')
    .option('--json', 'print one JSON line {"url","root_token","data_dir","blobs","runtime"} once ready')
    .addHelpText('after', '\nFORGELET_SECRET_KEY (32 bytes, base64; <new>,<old> during a rotation) replaces <data>/secret.key. SIGINT or SIGTERM stops gracefully.')
    .action((flags: ServeFlags) => serve(flags, io));
}

/**
 * The built web console (packages/server/dist/console, made by `npm run build`) beside this
 * package: from dist/ (the built CLI) or src/commands/ (run from source). Null when not built.
 */
function consoleDir(): string | null {
  for (const rel of ['../../server/dist/console', '../../../server/dist/console']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}/index.html`)) return dir;
  }
  return null;
}

/** What a worker process tells the primary once it listens. */
interface WorkerReady {
  forgelet: 'ready';
  url: string;
  rootToken: string | null;
  rootCreated: boolean;
  dataDir: string | null;
  blobs: string;
  runtime: string;
}

/**
 * `--workers N` (or FORGELET_WORKERS): how many server processes; more than one needs
 * PostgreSQL. SQLite takes one writer at a time: several processes on one file work (the tests
 * run two) but a write burst would make them wait on each other's lock, so it is refused.
 */
function resolveWorkers(flags: ServeFlags, env: NodeJS.ProcessEnv): number {
  const workers = pick(flags.workers, env, 'FORGELET_WORKERS');
  const n = workers ? parsePositiveInteger(workers.value, workers.from, '--workers') : 1;
  if (n > 1 && !isPostgresUrl(resolveStorage(flags, env).databaseUrl ?? '')) {
    throw new CliError(`--workers ${n} needs PostgreSQL (--database-url postgres://…): on SQLite one process serves the data directory`);
  }
  // The test-mode clock, faults and snapshot state live in the serving process: with several,
  // a clock set through one worker would leave the others' clocks where they were.
  const testMode = pickSwitch(flags.testMode, env, 'FORGELET_TEST_MODE');
  if (n > 1 && testMode) {
    throw new CliError(`--workers ${n} cannot run with --test-mode: its clock and test state live in one process (use --workers 1)`);
  }
  return n;
}

async function serve(flags: ServeFlags, io: CliIo): Promise<void> {
  const workers = cluster.isPrimary ? resolveWorkers(flags, io.env) : 1;
  if (workers > 1) return servePrimary(workers, flags, io);
  // Installed first: a signal during startup stops the server as soon as it is up.
  const signals = catchStopSignals(io);
  try {
    // Loaded here, not at the top, so the other commands and --help stay fast; with a code cache
    // (compiled-runtime.ts), so that the server answers sooner.
    const loaded = await loadServeRuntime();
    const { startForgelet, consoleLogger, TIERS } = loaded.runtime;
    const options = resolveServeOptions(flags, io.env, TIERS);
    const running = await startForgelet({ ...options, consoleDir: consoleDir(), logger: consoleLogger, workers: true }).catch((err: unknown) => {
      throw listenError(err, options.host, options.port) ?? blobUrlError(err, flags, io.env) ?? configError(err) ?? err;
    });
    setImmediate(() => loaded.saveCache());
    // With --expose-gc (the launcher's shebang): one collection when the server falls idle after work.
    const gc = (globalThis as { gc?: () => void }).gc;
    const idleGc = typeof gc === 'function' ? collectWhenIdle(running.server.http, gc) : null;
    if (cluster.isWorker) {
      const ready: WorkerReady = { forgelet: 'ready', url: running.url, rootToken: running.rootToken ?? null, rootCreated: Boolean(running.rootCreated), dataDir: running.dataDir, blobs: running.forge.deps.blobs.description, runtime: loaded.how };
      process.send?.(ready);
    } else if (flags.json) {
      // runtime: how server and core were loaded ('bundle, cached' once a start has written the code cache)
      writeJson(io.stdout, { url: running.url, root_token: running.rootToken, data_dir: running.dataDir, blobs: running.forge.deps.blobs.description, runtime: loaded.how });
    } else {
      if (running.rootCreated && running.rootToken && running.rootToken !== options.rootToken) {
        io.stdout.write(`Root user created. Root token (shown only now): ${running.rootToken}\n`);
      }
      if (options.externalUrl) io.stdout.write(`External URL: ${options.externalUrl}\n`);
      io.stdout.write(`Forgelet listening on ${running.url}\n`);
    }
    const signal = await signals.first;
    signals.exitOnNext();
    io.stderr.write(`${signal}: stopping (finishing requests in flight)\n`);
    idleGc?.stop();
    await running.stop();
  } finally {
    signals.release();
  }
}

/**
 * The primary of `--workers N`: forks N workers (node:cluster, sharing the listening port),
 * prints what `serve` prints once all listen, restarts a worker that dies, and on SIGINT or
 * SIGTERM stops them all, each finishing its requests in flight. Background work (schedules,
 * deliveries, imports, expiry) runs once across the workers: they take it by database leases.
 */
async function servePrimary(n: number, flags: ServeFlags, io: CliIo): Promise<void> {
  const signals = catchStopSignals(io);
  let stopping = false;
  const exited = new Set<Worker>();
  const fork = () => cluster.fork();
  const readies: WorkerReady[] = [];
  let allReady!: () => void;
  let failed!: (err: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((allReady = resolve), (failed = reject)));
  cluster.on('message', (_worker, message: WorkerReady) => {
    if (message?.forgelet !== 'ready') return;
    readies.push(message);
    if (readies.length === n) allReady();
  });
  cluster.on('exit', (worker, code, signal) => {
    exited.add(worker);
    if (stopping) return;
    if (readies.length < n) {
      failed(new CliError(`a worker exited while starting (${signal ?? `exit code ${code}`}); see its error above`));
      return;
    }
    io.stderr.write(`worker ${worker.process.pid} exited (${signal ?? `exit code ${code}`}): starting another\n`);
    fork();
  });
  const stopAll = async () => {
    stopping = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w) && !exited.has(w!));
    await Promise.all(
      alive.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', () => resolve());
            w.process.kill('SIGTERM');
          }),
      ),
    );
  };
  try {
    for (let i = 0; i < n; i++) fork();
    const first = await Promise.race([ready.then(() => null), signals.first]);
    if (first === null) {
      const url = readies[0]!.url;
      const created = readies.find((r) => r.rootCreated);
      const rootToken = (created ?? readies.find((r) => r.rootToken))?.rootToken ?? null;
      if (flags.json) {
        writeJson(io.stdout, { url, root_token: rootToken, data_dir: readies[0]!.dataDir, blobs: readies[0]!.blobs, runtime: readies[0]!.runtime, workers: n });
      } else {
        if (created?.rootToken) io.stdout.write(`Root user created. Root token (shown only now): ${created.rootToken}\n`);
        io.stdout.write(`Forgelet listening on ${url} (${n} workers)\n`);
      }
    }
    const signal = first ?? (await signals.first);
    signals.exitOnNext();
    io.stderr.write(`${signal}: stopping ${n} workers (finishing requests in flight)\n`);
  } catch (err) {
    await stopAll();
    throw err;
  } finally {
    signals.release();
  }
  await stopAll();
}

function catchStopSignals(io: CliIo) {
  let resolveFirst!: (signal: NodeJS.Signals) => void;
  const first = new Promise<NodeJS.Signals>((resolve) => (resolveFirst = resolve));
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => resolveFirst(signal);
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    first,
    /** A second signal while stopping exits at once. */
    exitOnNext() {
      onSignal = (signal) => {
        io.stderr.write(`${signal} again: exiting without waiting\n`);
        process.exit(1);
      };
    },
    release() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

function listenError(err: unknown, host: string, port: number): CliError | null {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'EADDRINUSE') return new CliError(`cannot listen on ${host}:${port}: the address is already in use`);
  if (code === 'EACCES') return new CliError(`cannot listen on ${host}:${port}: permission denied`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new CliError(`cannot listen on ${host}:${port}: no such local address`);
  return null;
}

/** A blob URL the server refused (blob-url.ts), as a usage error naming where it came from. */
function blobUrlError(err: unknown, flags: ServeFlags, env: NodeJS.ProcessEnv): CliError | null {
  if ((err as Error | null)?.name !== 'BlobStoreConfigError') return null;
  const from = pick(flags.blobUrl, env, 'FORGELET_BLOB_URL')?.from;
  return new UsageError(`${from === 'FORGELET_BLOB_URL' ? 'FORGELET_BLOB_URL' : '--blob-url'}: ${(err as Error).message}`);
}
