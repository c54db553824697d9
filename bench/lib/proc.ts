/** Child processes for the benchmark: spawn, line protocol, free ports, memory, shutdown. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = resolve(BENCH_DIR, '..');

/** Every child spawned by the bench, killed on exit if still alive. */
const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null && c.pid) c.kill('SIGKILL');
});

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * How `forgelet` starts node: the environment assignments and node flags of bin/forgelet.js's
 * shebang (`#!/usr/bin/env -S [NAME=value …] node [flag …]`). Every Forgelet process the bench
 * starts uses both.
 */
export function launcher(): { env: Record<string, string>; flags: string[] } {
  const words = readFileSync(resolve(ROOT, 'bin/forgelet.js'), 'utf8').split('\n', 1)[0]!.replace(/^#!\S*env -S\s*/, '').split(/\s+/).filter(Boolean);
  const node = words.indexOf('node');
  const env = Object.fromEntries(words.slice(0, Math.max(0, node)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { env, flags: words.slice(node + 1) };
}

/**
 * node arguments that run a TypeScript file under tsx, importing Forgelet's packages from
 * their sources (the `source` export condition) or, with `built`, from their dist (what is
 * shipped: the packages then carry none of tsx's additions, such as a `__name` call for every
 * closure created, and source maps are turned off again, as in `forgelet serve`; see
 * lib/no-source-maps.mjs).
 */
export function tsxArgs(file: string, extraNodeArgs: string[] = [], options: { built?: boolean } = {}): string[] {
  const afterTsx = options.built ? ['--import', pathToFileURL(resolve(BENCH_DIR, 'lib', 'no-source-maps.mjs')).href] : [];
  return [...(options.built ? [] : ['--conditions=source']), '--import', 'tsx', ...afterTsx, ...extraNodeArgs, file];
}

export interface LineChild {
  child: ChildProcess;
  /** Resolves with the first stdout line starting with `prefix` (the rest, trimmed). */
  waitLine(prefix: string, timeoutMs?: number): Promise<string>;
  send(line: string): void;
  /** Everything written to stderr so far (last 8 KB), for error reports. */
  stderr(): string;
}

/** Spawns a child whose stdout is read line by line (and always drained). */
export function spawnLines(cmd: string, args: string[], options: SpawnOptions = {}): LineChild {
  const child = track(spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'], ...options }));
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (s: string) => void }[] = [];
  let buf = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.findIndex((x) => line.startsWith(x.prefix));
      if (w >= 0) {
        const waiter = waiters.splice(w, 1)[0]!;
        waiter.resolve(line.slice(waiter.prefix.length));
      } else if (lines.length < 1000) lines.push(line);
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    err = (err + d).slice(-8192);
  });
  return {
    child,
    waitLine(prefix, timeoutMs = 120_000) {
      const i = lines.findIndex((l) => l.startsWith(prefix));
      if (i >= 0) return Promise.resolve(lines.splice(i, 1)[0]!.slice(prefix.length).trim());
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => reject(new Error(`timeout waiting for "${prefix}" from ${args.join(' ')}\n${err}`)), timeoutMs);
        const onExit = (code: number | null, sig: string | null) => {
          clearTimeout(timer);
          reject(new Error(`child exited (${sig ?? code}) before "${prefix}": ${args.join(' ')}\n${err}`));
        };
        child.once('exit', onExit);
        waiters.push({
          prefix,
          resolve: (s) => {
            clearTimeout(timer);
            child.off('exit', onExit);
            resolveLine(s.trim());
          },
        });
      });
    },
    send(line) {
      child.stdin!.write(`${line}\n`);
    },
    stderr: () => err,
  };
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolvePort(port));
    });
  });
}

export interface Mem {
  rssMb: number;
  hwmMb: number;
}

/** VmRSS and VmHWM (peak) of a process, from /proc/<pid>/status. */
export function memoryOf(pid: number): Mem | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc/<pid>/stat. */
export function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 on.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
/** USER_HZ: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** Sends a signal and waits for exit; SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** One request with a fresh connection; resolves with status and body, rejects on connection errors. */
function requestOnce(url: string, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolveRequest, reject) => {
    const req = http.request(url, { method, agent: false, headers, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolveRequest({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** One GET with a fresh connection. */
export function getOnce(url: string, headers: Record<string, string> = {}, timeoutMs = 2000): Promise<{ status: number; body: string }> {
  return requestOnce(url, 'GET', headers, undefined, timeoutMs);
}

/** One POST of a JSON body with a fresh connection. */
export function postOnce(url: string, headers: Record<string, string>, json: unknown, timeoutMs = 5000): Promise<{ status: number; body: string }> {
  const text = JSON.stringify(json);
  return requestOnce(url, 'POST', { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }, text, timeoutMs);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * `forgelet serve` as users start it (the built bin, with its shebang's environment and flags),
 * on a free port, once it answers `/-/readiness`.
 */
export async function startServeBin(dataDir: string, rootToken: string, extraArgs: string[] = []): Promise<{ child: ChildProcess; origin: string }> {
  const port = await freePort();
  const { env, flags } = launcher();
  const args = [...flags, join(ROOT, 'bin', 'forgelet.js'), 'serve', '--port', String(port), '--data', dataDir, '--root-token', rootToken, ...extraArgs];
  const child = track(spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4096)));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`forgelet serve exited (${child.exitCode}): ${stderr}`);
    if (performance.now() > deadline) throw new Error(`forgelet serve did not answer within 60 s: ${stderr}`);
    const r = await getOnce(`${origin}/-/readiness`).catch(() => null);
    if (r?.status === 200) return { child, origin };
    await sleep(20);
  }
}
