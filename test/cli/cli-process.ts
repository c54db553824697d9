/**
 * Runs the `forgelet` CLI as a child process: the built CLI (bin/forgelet.js), what users run
 * and what scripts/test.mjs builds first when a source file of a package is newer; or, passing
 * SOURCE_CLI, the sources under tsx (no build needed, but each start compiles: ~10× the CPU).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SOURCE_CLI = ['--conditions=source', '--import', 'tsx', join(ROOT, 'packages/cli/src/main.ts')];
export const BIN_CLI = [join(ROOT, 'bin/forgelet.js')];
export const DIST = join(ROOT, 'packages/cli/dist');

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * Why tests of the built CLI cannot run (no build, or one older than packages/cli/src), or false.
 * scripts/test.mjs builds first, so this happens only when a file is run another way; on CI
 * (CI set) it is a failure, never a skip.
 */
export function distSkipReason(): string | false {
  const reason = distProblem();
  if (reason && process.env.CI) throw new Error(`${reason} (CI is set: the built CLI must be tested)`);
  return reason;
}

function distProblem(): string | false {
  if (!existsSync(join(DIST, 'main.js'))) return 'packages/cli/dist is absent: run `npm run build` first';
  const built = statSync(join(DIST, 'main.js')).mtimeMs;
  // (core and server are bundled too, but change all day; a stale copy of them is fine here)
  return built < newestSource(join(ROOT, 'packages/cli/src')) ? 'packages/cli/dist is older than packages/cli/src: run `npm run build` first' : false;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The test's environment without FORGELET_* variables, plus `env`. */
export function cliEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FORGELET_')));
  // Saved logins of the machine's user (`forgelet login`) must not leak into tests.
  return { ...clean, XDG_CONFIG_HOME: NO_SAVED_LOGINS, ...env };
}

/** An empty, per-process config directory: no `forgelet/config.json` in it. */
const NO_SAVED_LOGINS = join(tmpdir(), `forgelet-cli-test-config-${process.pid}`);

function spawnCli(args: string[], env: Record<string, string | undefined>, cli: string[]): ChildProcess {
  return spawn(process.execPath, [...cli, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
}

function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a command to completion. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, cli = BIN_CLI): Promise<CliResult> {
  return collect(spawnCli(args, env, cli));
}

export interface ServeProcess {
  /** The URL from the listening line (or the --json line). */
  url: string;
  /** The first stdout line once ready, parsed when --json was given. */
  ready: string;
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Resolves once stdout matches (the access log is written after the response). */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
}

/**
 * Runs the built `bin/forgelet.js` as users do (`npx forgelet …`): executed through its shebang,
 * with that line's node flags. scripts/test.mjs builds it first.
 */
export function runBin(args: string[], env: Record<string, string | undefined> = {}, options: { cwd?: string } = {}): Promise<CliResult> {
  return collect(spawn(join(ROOT, 'bin/forgelet.js'), args, { cwd: options.cwd ?? ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Starts `forgelet serve …` and resolves once it prints its URL. */
export async function startServe(args: string[], env: Record<string, string | undefined> = {}, cli = BIN_CLI): Promise<ServeProcess> {
  const child = spawnCli(['serve', ...args], env, cli);
  const done = collect(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: string) => (stdout += d));
  child.stderr!.on('data', (d: string) => (stderr += d));
  const ready = await new Promise<{ line: string; url: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve not ready after 30 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 30_000);
    const check = () => {
      for (const line of stdout.split('\n').slice(0, -1)) {
        const url = line.startsWith('{') ? (JSON.parse(line) as { url: string }).url : /^Forgelet listening on (\S+)$/.exec(line)?.[1];
        if (url) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          return resolve({ line, url });
        }
      }
    };
    child.stdout!.on('data', check);
    void done.then((r) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${r.code ?? r.signal}) before listening\nstdout: ${r.stdout}\nstderr: ${r.stderr}`));
    });
  });
  return {
    url: ready.url,
    ready: ready.line,
    child,
    output: () => ({ stdout, stderr }),
    async waitForStdout(pattern, timeoutMs = 5000) {
      for (const deadline = Date.now() + timeoutMs; !pattern.test(stdout); ) {
        if (Date.now() > deadline) throw new Error(`stdout never matched ${pattern}:\n${stdout}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return done;
    },
  };
}

/** A temporary directory removed by `remove()`. */
export function tempDir(prefix = 'forgelet-cli-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** GET/POST/DELETE `/api/v4<path>` with a token; the body parsed when JSON. */
export async function api(url: string, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text };
}
