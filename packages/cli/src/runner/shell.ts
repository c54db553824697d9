/**
 * The shell executor: a job's script lines as one bash (or sh) script, gitlab-runner style
 * (`$ <line>` echoed before each line, `set -eo pipefail` so the first failing line ends
 * it), run in its own process group so a timeout or cancellation kills everything it started.
 */
import { spawn } from 'node:child_process';
import { access, writeFile } from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';

export interface Shell {
  name: 'bash' | 'sh';
  path: string;
}

/** bash if it is on PATH, else sh. */
export async function detectShell(env: NodeJS.ProcessEnv = process.env): Promise<Shell> {
  const dirs = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(path.delimiter).filter(Boolean);
  for (const name of ['bash', 'sh'] as const) {
    for (const dir of dirs) {
      const candidate = path.join(dir, name);
      try {
        await access(candidate, constants.X_OK);
        return { name, path: candidate };
      } catch {
        // next
      }
    }
  }
  return { name: 'sh', path: '/bin/sh' };
}

/** A string as one single-quoted shell word. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** What gitlab-runner prints for a line: the line, or its first line for a multi-line command. */
export function displayLine(line: string): string {
  const lines = line.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  return lines.length > 1 ? `${lines[0]} # collapsed multi-line command` : lines[0]!;
}

/** The script file's text. */
export function buildScript(lines: string[], shell: Shell['name']): string {
  const out = [
    shell === 'bash' ? 'set -eo pipefail' : 'set -e\n(set -o pipefail) 2>/dev/null && set -o pipefail',
    'set +o noclobber',
    'exec 2>&1',
  ];
  for (const line of lines) {
    if (line.trim() === '') continue;
    out.push(`printf '\\033[32;1m%s\\033[0;m\\n' ${shellQuote(`$ ${displayLine(line)}`)}`);
    out.push(line.replace(/\r\n/g, '\n'));
  }
  return `${out.join('\n')}\n`;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  canceled: boolean;
}

export interface RunOptions {
  shell: Shell;
  lines: string[];
  /** Where the script file is written (not the project directory). */
  scriptFile: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  onOutput(stream: 'stdout' | 'stderr', chunk: Buffer): void;
  /** Aborting kills the script (cancellation). */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs?: number;
}

/** Signals the script's process group (the script was started detached, as its leader). */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone
  }
}

export async function runScript(options: RunOptions): Promise<RunResult> {
  await writeFile(options.scriptFile, buildScript(options.lines, options.shell.name), { mode: 0o700 });
  const args = options.shell.name === 'bash' ? ['--noprofile', '--norc', options.scriptFile] : [options.scriptFile];
  const child = spawn(options.shell.path, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true, // its own process group, killed as a whole
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let timedOut = false;
  let canceled = false;
  let killTimer: NodeJS.Timeout | null = null;
  const stop = () => {
    killGroup(child.pid, 'SIGTERM');
    killTimer ??= setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 5000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const onAbort = () => {
    canceled = true;
    stop();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  child.stdout!.on('data', (chunk: Buffer) => options.onOutput('stdout', chunk));
  child.stderr!.on('data', (chunk: Buffer) => options.onOutput('stderr', chunk));

  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const first = await Promise.race([exited, spawnError]);
  try {
    if (first instanceof Error) {
      options.onOutput('stderr', Buffer.from(`${first.message}\n`));
      return { exitCode: 127, signal: null, timedOut, canceled };
    }
    // Output may still be buffered in the pipes, or held by a background process that
    // inherited them: wait for the pipes a little, then end the whole group.
    let wait: NodeJS.Timeout | undefined;
    const late = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => (wait = setTimeout(() => r(true), 2000)))]);
    clearTimeout(wait);
    if (late) {
      killGroup(child.pid, 'SIGKILL');
      child.stdout!.destroy();
      child.stderr!.destroy();
    } else {
      // a background process that closed its output may still run
      killGroup(child.pid, 'SIGKILL');
    }
    return { exitCode: first.code, signal: first.signal, timedOut, canceled };
  } finally {
    clearTimeout(timer);
    if (killTimer) clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
