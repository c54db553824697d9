/**
 * Running the real NuGet clients under mono: Debian's `nuget` (NuGet.exe 2.8.7, v2 only) and
 * npm `nuget-exe` 5.8 (v3). Each run gets a fresh HOME and HTTP cache so nothing is served
 * from a previous run. NuGet 2.8.7 formats `list` output to the console width and loops
 * forever when there is no terminal, so commands run inside `script` on a pseudo-terminal
 * with a width set.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until, type ServedForgelet } from '../support/served.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const NUGET_58 = join(ROOT, 'node_modules', 'nuget-exe', 'nuget-5.8.0.exe');

/** Null when Debian's `nuget` (2.8.7) runs, else why not. */
export function probeNuget287(): string | null {
  const s = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (s.error) return `script (util-linux) is missing: ${s.error.message}`;
  const w = spawnSync('sh', ['-c', 'command -v nuget'], { encoding: 'utf8' });
  if (w.status !== 0) return 'nuget is not installed (apt-get install -y nuget mono-runtime)';
  // `nuget help` wraps to the console width: run it on a pseudo-terminal, as every command here.
  const r = spawnSync('script', ['-qec', 'stty cols 200 rows 50; nuget help', '/dev/null'], { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 20 });
  if (r.error) return `nuget cannot run: ${r.error.message}`;
  if (!/NuGet Version: 2\.8\./.test(r.stdout)) return `unexpected nuget: ${r.stdout.split('\n')[0]}`;
  return null;
}

/** Null when `mono node_modules/nuget-exe/nuget-5.8.0.exe` runs, else why not. */
export function probeNuget58(): string | null {
  const r = spawnSync('mono', [NUGET_58, 'help'], { encoding: 'utf8', timeout: 60_000 });
  if (r.error) return `mono cannot run: ${r.error.message}`;
  if (!/NuGet Version: 5\.8\./.test(r.stdout)) return `nuget-exe 5.8 is missing (npm install): ${(r.stdout + r.stderr).split('\n')[0]}`;
  return null;
}

/**
 * Waits until the served process's access log (its stdout) has a line containing `fragment`,
 * e.g. ` PUT /api/v4/projects/1/packages/nuget/ 201 `: a line is written once its response is
 * sent, so it may trail the client by a moment. Fails with the log (and `context`, e.g. the
 * client's output) after `timeoutMs` (default 5 s).
 */
export async function accessLogged(f: ServedForgelet, fragment: string, options: { timeoutMs?: number; context?: string } = {}): Promise<void> {
  const found = async () => f.stdoutLines().some((l) => l.includes(fragment));
  await until(`an access log line with "${fragment}"`, found, options.timeoutMs ?? 5000).catch((err: Error) => {
    throw new Error(`${err.message}:\n${f.stdoutLines().join('\n')}\n${options.context ?? ''}`);
  });
}

export interface NugetRun {
  code: number | null;
  /** stdout and stderr, terminal escapes and carriage returns removed. */
  output: string;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const clean = (s: string) => s.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '').replace(/\x1b[=>]/g, '').replace(/\r/g, '');

/**
 * A fresh HOME (NuGet's caches and config live under it), with the user-level NuGet.Config
 * already there: NuGet writes it on first use, and two commands started together race on it
 * (one reads the other's half-written file: "Root element is missing").
 */
export function nugetHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'forgelet-nuget-'));
  mkdirSync(join(home, '.config', 'NuGet'), { recursive: true });
  writeFileSync(join(home, '.config', 'NuGet', 'NuGet.Config'), '<?xml version="1.0" encoding="utf-8"?>\n<configuration />\n');
  return home;
}

/** Runs a command with args in `cwd` on a 200-column pseudo-terminal. */
export function runNuget(command: string[], options: { cwd: string; home: string; timeoutMs?: number }): Promise<NugetRun> {
  const line = `stty cols 200 rows 50; ${command.map(shellQuote).join(' ')}`;
  return new Promise((resolveRun) => {
    const child = spawn('script', ['-qec', line, '/dev/null'], {
      cwd: options.cwd,
      env: {
        ...process.env,
        HOME: options.home,
        NUGET_HTTP_CACHE_PATH: join(options.home, 'http-cache'),
        NUGET_PACKAGES: join(options.home, 'packages'),
        MONO_ENV_OPTIONS: '',
        TERM: 'xterm',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    child.stderr.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-200_000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output: clean(out) });
    });
  });
}
