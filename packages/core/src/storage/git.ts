/**
 * Projects' git repositories: one bare repository per project under a root directory that
 * every process of an installation shares (the data directory's `repositories/`, or a
 * configured path on a shared disk). Git itself does the work: Debian's `git` binary, the
 * reference implementation (object format, packs, smart HTTP's upload-pack/receive-pack,
 * merge-tree, patch-id, archive and blame all behave exactly as the `git` client expects).
 *
 * A repository is named by the project's id (`<root>/<id>.git`), which never changes when the
 * project is renamed or transferred.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { access, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';

export interface GitRunOptions {
  /** Bytes for the command's standard input (a stream is piped). */
  input?: Buffer | string | Readable;
  /** Extra environment (GIT_AUTHOR_DATE, GIT_INDEX_FILE, ...). */
  env?: Record<string, string>;
  /** Exit codes that are answers rather than failures (e.g. 1 for `merge-base --is-ancestor`). */
  okCodes?: number[];
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** A git command that exited with a code not in `okCodes`. */
export class GitCommandError extends Error {
  override name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed (${code ?? 'signal'}): ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
}

/** An environment for git that ignores the machine's and the user's configuration. */
function gitEnv(extra?: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    ...extra,
  };
}

/** One ref move for `updateRefs`. */
export interface RefMove {
  ref: string;
  new: string | null;
  old?: string | null;
}

export class GitRepositories {
  /** Absolute root directory holding `<project id>.git`. */
  readonly root: string;
  private readonly temporary: boolean;
  /** Repositories known to exist (saves a stat per write). */
  private readonly known = new Set<number>();

  /** `root` omitted: a temporary directory, removed by `close()` (in-memory forges). */
  constructor(root?: string) {
    this.temporary = root === undefined;
    this.root = root === undefined ? mkdtempSync(join(tmpdir(), 'forgelet-repos-')) : resolve(root);
  }

  /** The project's bare repository directory (it may not exist yet: see `ensure`). */
  dir(projectId: number): string {
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new Error(`not a project id: ${projectId}`);
    return join(this.root, `${projectId}.git`);
  }

  async exists(projectId: number): Promise<boolean> {
    return access(join(this.dir(projectId), 'HEAD')).then(
      () => true,
      () => false,
    );
  }

  /** Creates the project's bare repository when missing (safe to call concurrently); returns its directory. */
  async ensure(projectId: number, defaultBranch = 'main'): Promise<string> {
    const dir = this.dir(projectId);
    if (this.known.has(projectId)) return dir;
    if (await this.exists(projectId)) {
      this.known.add(projectId);
      return dir;
    }
    await mkdir(this.root, { recursive: true });
    // `git init` on an existing repository only reinitializes, so a race between processes is harmless.
    await runGit(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, dir]);
    await runGit(['config', 'receive.advertisePushOptions', 'true'], { cwd: dir });
    this.known.add(projectId);
    return dir;
  }

  /** Runs `git <args>` in the project's repository, collecting its output. */
  run(projectId: number, args: string[], options: GitRunOptions = {}): Promise<GitResult> {
    return runGit(args, { ...options, cwd: this.dir(projectId) });
  }

  /** Starts `git <args>` in the project's repository with its streams open (smart HTTP, archives). */
  spawn(projectId: number, args: string[], options: { env?: Record<string, string> } = {}): ChildProcess {
    return spawnGit(args, { cwd: this.dir(projectId), env: options.env });
  }

  /** Deletes the project's repository (project deletion). */
  async remove(projectId: number): Promise<void> {
    this.known.delete(projectId);
    await rm(this.dir(projectId), { recursive: true, force: true });
  }

  /** Forgets which repositories exist (after the root's contents were replaced: a snapshot restore). */
  forget(): void {
    this.known.clear();
  }

  /**
   * Moves refs in one atomic `git update-ref --stdin` transaction: `old` a sha checks the ref's
   * current value (compare-and-swap), null requires the ref to be absent, undefined checks
   * nothing; `new` null deletes the ref.
   */
  async updateRefs(projectId: number, updates: readonly RefMove[]): Promise<void> {
    if (!updates.length) return;
    const lines = updates.map((u) => {
      if (u.new === null) return u.old ? `delete ${u.ref} ${u.old}` : `delete ${u.ref}`;
      if (u.old === null) return `create ${u.ref} ${u.new}`;
      return u.old === undefined ? `update ${u.ref} ${u.new}` : `update ${u.ref} ${u.new} ${u.old}`;
    });
    await this.run(projectId, ['update-ref', '--stdin'], { input: lines.join('\n') + '\n' });
  }

  /** Removes a temporary root (nothing for a configured one). */
  async close(): Promise<void> {
    if (this.temporary) {
      await rm(this.root, { recursive: true, force: true });
      await rm(`${this.root}.snapshots`, { recursive: true, force: true });
    }
  }
}

export function spawnGit(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): ChildProcess {
  const spawnOptions: SpawnOptions = { cwd: options.cwd, env: gitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] };
  return spawn('git', args, spawnOptions);
}

/**
 * A child process's standard output as a stream to answer with, taken over at once. Node
 * resumes an output stream nobody reads yet when its process exits (child_process
 * `flushStdio`), dropping what was in it: a small blob or archive whose process ended before
 * the answer was piped (a database round trip later) came out empty, short of its
 * Content-Length, and the client waited for bytes that never came. Here the output is piped
 * into a PassThrough as soon as the process starts (backpressure still holds the process);
 * it ends when the process exits 0, and breaks (the server drops the connection) when it
 * fails, rather than ending as if complete. Destroying the stream stops the process.
 */
export function processOutput(
  child: ChildProcess,
  describe: string,
  options: { /** Written first. */ prefix?: string; /** Awaited once the process has exited, before the stream ends or breaks. */ done?: () => Promise<void> } = {},
): Readable {
  const out = new PassThrough();
  if (options.prefix) out.write(options.prefix);
  const stderr: Buffer[] = [];
  child.stderr?.on('data', (c: Buffer) => {
    if (stderr.length < 16) stderr.push(c);
  });
  child.stdout!.pipe(out, { end: false });
  let finished = false;
  const finish = (err?: Error) => {
    if (finished) return;
    finished = true;
    const end = () => (err ? out.destroy(err) : out.end());
    if (options.done) void options.done().catch(() => {}).then(end);
    else end();
  };
  child.on('error', (err) => finish(err));
  child.on('close', (code, signal) => {
    if (code === 0) finish();
    else finish(new Error(`${describe} exited ${code ?? signal}: ${Buffer.concat(stderr).toString('utf8').trim().slice(0, 500)}`));
  });
  out.on('close', () => {
    if (!finished) child.kill();
  });
  return out;
}

/** Runs git to completion; rejects with GitCommandError on an exit code not in `okCodes` (default [0]). */
export function runGit(args: string[], options: GitRunOptions & { cwd?: string } = {}): Promise<GitResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawnGit(args, { cwd: options.cwd, env: options.env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const okCodes = options.okCodes ?? [0];
      if (code === null || !okCodes.includes(code)) reject(new GitCommandError(args, code, stderr));
      else resolveRun({ stdout: Buffer.concat(out), stderr, code });
    });
    const stdin = child.stdin!;
    stdin.on('error', () => {}); // git may exit before reading all input; its exit code tells
    const input = options.input;
    if (input === undefined) stdin.end();
    else if (typeof input === 'string' || Buffer.isBuffer(input)) stdin.end(input);
    else input.pipe(stdin);
  });
}
