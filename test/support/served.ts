/**
 * Forgelet as users run it: `bin/forgelet.js serve` (the built CLI, through its shebang, with
 * the V8 code cache an earlier start wrote) as a child process on port 0, over a fresh
 * database. The real-client suites and every outbound path (callbacks, migration sources)
 * are tested against it; in-process servers (support/server.ts) stay for unit and HTTP tests.
 *
 * scripts/test.mjs builds the CLI when its sources are newer than the build and starts it once
 * before any test file, so the code cache exists: every start here must report
 * `"runtime": "bundle, cached"`, else the test fails (a start from source or without the cache
 * is not what users run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tier } from '@forgelet/core';
import { type Dialect } from './databases.js';
import { createMigratedTestDatabase } from './pg-template.js';
import type { ApiResponse, CallOptions } from './server.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** The executable users start (`npx forgelet` runs this file through its shebang). */
export const FORGELET_BIN = join(REPO_ROOT, 'bin/forgelet.js');

export interface ServedOptions {
  /** Test-only endpoints under /api/v4/forgelet (clock, snapshots, seed…); default true. */
  testMode?: boolean;
  /** Outbound calls may reach loopback (callback receivers, a second Forgelet); default true. */
  allowLocalEgress?: boolean;
  tier?: Tier;
  /** Sets the server clock right after start (test mode): `now`, frozen unless `frozen: false`. */
  clock?: { now: string | Date; frozen?: boolean };
  /** More `forgelet serve` flags. */
  args?: string[];
  /** More environment (FORGELET_* of the test process are never passed on). */
  env?: Record<string, string>;
  /** Use this database instead of a fresh one (two processes on one database). */
  databaseUrl?: string;
  /** Use this data directory (kept on stop) instead of a fresh temporary one. */
  dataDir?: string;
  /** `--root-token` to pass (default: a new random one); null passes none (the server makes one only if it creates root). */
  rootToken?: string | null;
  /** Another node binary (e.g. Node 22) to run the bin with, with the flags of its shebang. */
  node?: string;
  /** Fail unless the runtime loaded from the code cache (default true; false for a start that writes it). */
  requireCachedRuntime?: boolean;
}

/** The environment assignments and node flags of bin/forgelet.js's shebang (`#!/usr/bin/env -S [NAME=value …] node --flag …`). */
function shebang(): { env: Record<string, string>; flags: string[] } {
  const words = readFileSync(FORGELET_BIN, 'utf8').split('\n', 1)[0]!.replace(/^#!\/usr\/bin\/env -S\s*/, '').split(/\s+/).filter(Boolean);
  const node = words.indexOf('node');
  return { env: Object.fromEntries(words.slice(0, node).map((w) => w.split('=', 2) as [string, string])), flags: words.slice(node + 1) };
}

export interface AdvanceResult {
  now: string;
  frozen: boolean;
  jobs_run: number;
}

export interface ServedForgelet {
  dialect: Dialect;
  url: string;
  /** The root token given, or the one the server printed ('' when it printed none). */
  rootToken: string;
  dataDir: string;
  databaseUrl: string;
  /** How the process loaded server and core (always 'bundle, cached' here). */
  runtime: string;
  /** Where the process keeps blobs, as its ready line says (`serve --json`'s `blobs`). */
  blobs: string;
  child: ChildProcess;
  /** Calls `/api/v4<path>` (or an absolute URL) as root unless another token (or null) is given. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** Creates a user and a personal access token for them (`api` scope unless given). */
  createUser(username: string, options?: { admin?: boolean; scopes?: string[] }): Promise<{ id: number; username: string; token: string }>;
  /** The test-mode clock over HTTP. */
  clock: {
    now(): Promise<Date>;
    set(now: string | Date, options?: { frozen?: boolean }): Promise<void>;
    /** Moves the clock forward, running every job that comes due on the way (`POST /forgelet/clock/advance`). */
    advance(seconds: number): Promise<AdvanceResult>;
  };
  /** Runs the queue jobs due now (an advance of 0 s); the number run. */
  runDue(): Promise<number>;
  /** Lines the server printed on stdout (the access log: one line per request). */
  stdoutLines(): string[];
  stderr(): string;
  /** Stops the process (SIGTERM, graceful) and drops its database and data directory. */
  stop(): Promise<void>;
}

/**
 * Polls `fn` every 100 ms until it answers something truthy, for what the served process does
 * in the background (its queue worker delivers callbacks, runs imports); fails after `timeoutMs`.
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The test's environment without FORGELET_* variables. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FORGELET_'))), ...extra };
}

export async function startServed(dialect: Dialect, options: ServedOptions = {}): Promise<ServedForgelet> {
  if (!existsSync(join(REPO_ROOT, 'packages/cli/dist/serve/serve-runtime.cjs'))) {
    throw new Error('packages/cli/dist is not built: run the tests through `npm test` or `node scripts/test.mjs`, which build it');
  }
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'forgelet-served-'));
  const database = options.databaseUrl
    ? { url: options.databaseUrl, drop: async () => {} }
    : dialect === 'postgres'
      ? await createMigratedTestDatabase()
      : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
  const givenToken = options.rootToken === undefined ? `glpat-${randomBytes(10).toString('hex')}` : options.rootToken;
  const args = ['serve', '--json', '--port', '0', '--data', dataDir, '--database-url', database.url];
  if (givenToken !== null) args.push('--root-token', givenToken);
  if (options.testMode ?? true) args.push('--test-mode');
  if (options.allowLocalEgress ?? true) args.push('--allow-local-egress');
  if (options.tier) args.push('--tier', options.tier);
  args.push(...(options.args ?? []));

  // Spawned as an executable, so the shebang's environment and node flags apply as for
  // `npx forgelet serve` (or with another node binary and the same ones).
  const launch = shebang();
  const [command, argv, env] = options.node
    ? [options.node, [...launch.flags, FORGELET_BIN, ...args], { ...cleanEnv(options.env), ...launch.env }]
    : [FORGELET_BIN, args, cleanEnv(options.env)];
  const child = spawn(command, argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.on('exit', (code, signal) => res({ code, signal })));

  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database.drop().catch(() => {});
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  let ready: { url: string; root_token: string | null; runtime: string; blobs: string };
  try {
    ready = await new Promise((resolveReady, reject) => {
      const timer = setTimeout(() => reject(new Error(`forgelet serve not ready after 30 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 30_000);
      const check = () => {
        const nl = stdout.indexOf('\n');
        if (nl < 0) return;
        clearTimeout(timer);
        child.stdout!.off('data', check);
        try {
          resolveReady(JSON.parse(stdout.slice(0, nl)));
        } catch {
          reject(new Error(`forgelet serve printed no JSON ready line: ${stdout.slice(0, nl)}`));
        }
      };
      child.stdout!.on('data', check);
      void exited.then((r) => {
        clearTimeout(timer);
        reject(new Error(`forgelet serve exited (${r.code ?? r.signal}) before it was ready\nstdout: ${stdout}\nstderr: ${stderr}`));
      });
    });
    if ((options.requireCachedRuntime ?? true) && ready.runtime !== 'bundle, cached') {
      throw new Error(
        `forgelet serve loaded its runtime as "${ready.runtime}", not from the bundle with its code cache as users run it: ` +
          'run the tests through `npm test` or `node scripts/test.mjs`, which build the CLI and start it once first',
      );
    }
  } catch (err) {
    await cleanup();
    throw err;
  }

  const url = ready.url;
  const rootToken = givenToken ?? ready.root_token ?? '';
  const api = async <T>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? rootToken : opts.token;
    if (token) headers['PRIVATE-TOKEN'] = token;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(path.startsWith('http') ? path : `${url}/api/v4${path}`, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  const must = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await api<T>(method, path, body === undefined ? {} : { body });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body;
  };
  const served: ServedForgelet = {
    dialect,
    url,
    rootToken,
    dataDir,
    databaseUrl: database.url,
    runtime: ready.runtime,
    blobs: ready.blobs,
    child,
    api,
    async createUser(username, opts = {}) {
      const user = await must<any>('POST', '/users', { username, name: username, email: `${username}@example.com`, admin: opts.admin ?? false });
      const pat = await must<any>('POST', `/users/${user.id}/personal_access_tokens`, { name: 'test', scopes: opts.scopes ?? ['api'] });
      return { id: user.id, username, token: pat.token };
    },
    clock: {
      async now() {
        return new Date((await must<{ now: string }>('GET', '/forgelet/clock')).now);
      },
      async set(now, o = {}) {
        await must('PUT', '/forgelet/clock', { now: new Date(now).toISOString(), frozen: o.frozen ?? true });
      },
      advance: (seconds) => must<AdvanceResult>('POST', '/forgelet/clock/advance', { seconds }),
    },
    async runDue() {
      return (await must<AdvanceResult>('POST', '/forgelet/clock/advance', { seconds: 0 })).jobs_run;
    },
    stdoutLines: () => stdout.split('\n').slice(1, -1),
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await cleanup();
    },
  };
  if (options.clock) await served.clock.set(options.clock.now, { frozen: options.clock.frozen ?? true });
  return served;
}
