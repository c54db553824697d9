/**
 * Diffs between two commits of a project's git repository, as GitLab's API presents them
 * (`API::Entities::Diff`): one entry per changed file, the patch text starting at its first
 * `@@` hunk (git's `diff --git`/`index`/`---`/`+++` header lines are dropped, as Gitaly does).
 *
 * Limits are `Gitlab::Git::DiffCollection`'s: the collection stops (`overflow`) at `max_files`
 * files, `max_lines` patch lines or `max_bytes` patch bytes in all; one file's patch of
 * `max_patch_bytes` (200 KiB) or more is `too_large` with an empty `diff`; when not `expanded`,
 * files past the safe limits (100 files, 5,000 lines, 500 KiB) and patches of a tenth of
 * `max_patch_bytes` or more are `collapsed` with an empty `diff`.
 *
 * Two git commands: `diff-tree --raw -z` for the file list (modes, renames, paths without
 * quoting), then `diff-tree -p` streamed: a too-large patch is never held whole, and the
 * process is stopped as soon as the collection overflows.
 */
import type { GitRepositories } from '../../storage/git.js';

/** Git's empty tree: the "parent" of a root commit. */
export const EMPTY_TREE_SHA = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** One file of a diff, GitLab's field order. */
export interface DiffEntity {
  diff: string;
  collapsed: boolean;
  too_large: boolean;
  new_path: string;
  old_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  /** GitLab fills it only where it computed `gitlab-generated` attributes (merge request diffs); null here. */
  generated_file: boolean | null;
}

export interface DiffLimits {
  maxFiles: number;
  maxLines: number;
  maxBytes: number;
  safeMaxFiles: number;
  safeMaxLines: number;
  safeMaxBytes: number;
  maxPatchBytes: number;
}

/** GitLab's defaults: `diff_max_files` 1000, `diff_max_lines` 50000, `diff_max_patch_bytes` 200 KiB. */
export const DEFAULT_MAX_FILES = 1000;
export const DEFAULT_MAX_LINES = 50_000;
export const DEFAULT_MAX_PATCH_BYTES = 200 * 1024;
const SAFE_MAX_FILES = 100;
const SAFE_MAX_LINES = 5000;

/** `DiffCollection.limits(options)`. */
export function diffLimits(options: { maxFiles?: number; maxLines?: number; maxPatchBytes?: number } = {}): DiffLimits {
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const safeMaxFiles = Math.min(maxFiles, SAFE_MAX_FILES);
  return {
    maxFiles,
    maxLines,
    maxBytes: maxFiles * 5 * 1024,
    safeMaxFiles,
    safeMaxLines: Math.min(maxLines, SAFE_MAX_LINES),
    safeMaxBytes: safeMaxFiles * 5 * 1024,
    maxPatchBytes: options.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES,
  };
}

export interface DiffRequest {
  /** The old side: a commit or tree sha; null for a root commit (the empty tree). */
  from: string | null;
  /** The new side: a commit or tree sha. */
  to: string;
  /** Limit to these paths (literal pathspecs). */
  paths?: readonly string[];
  /** false: collapse files past the safe limits (GitLab's merge request diffs); default true (API commit diff, compare). */
  expanded?: boolean;
  /** false: no collection limits at all (`limits: false`); default `diffLimits()`. */
  limits?: DiffLimits | false;
  /** Rename detection (`-M`, git's 50 %); default true. */
  renames?: boolean;
}

export interface DiffCollection {
  diffs: DiffEntity[];
  /** The collection stopped at a limit (GitLab's `overflow?`, the compare's `compare_timeout`). */
  overflow: boolean;
}

/** One `diff-tree --raw -z` record. */
export interface RawDiffEntry {
  aMode: string;
  bMode: string;
  aSha: string;
  bSha: string;
  /** A, C, D, M, R, T, U, X (with the score stripped). */
  status: string;
  oldPath: string;
  newPath: string;
}

const SHA_RE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function checkSha(value: string, name: string): string {
  if (!SHA_RE.test(value)) throw new Error(`diff ${name} must be a full object id, got ${JSON.stringify(value)}`);
  return value;
}

/** Parses `git diff-tree -r -z --raw` output (records `:am bm as bs S\0path\0[path\0]`). */
export function parseRawDiff(out: Buffer | string): RawDiffEntry[] {
  const parts = (typeof out === 'string' ? out : out.toString('utf8')).split('\0');
  const entries: RawDiffEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i]!;
    if (!head.startsWith(':')) continue;
    const [aMode, bMode, aSha, bSha, statusScore] = head.slice(1).split(' ');
    const status = (statusScore ?? 'M').charAt(0);
    const oldPath = parts[++i] ?? '';
    const newPath = status === 'R' || status === 'C' ? (parts[++i] ?? '') : oldPath;
    entries.push({ aMode: aMode!, bMode: bMode!, aSha: aSha!, bSha: bSha!, status, oldPath, newPath });
  }
  return entries;
}

/** `100644` → `100644`, `000000` → `0` (GitLab prints modes as octal integers). */
function gitlabMode(mode: string): string {
  return Number.parseInt(mode, 8).toString(8);
}

function treeArgs(request: DiffRequest): string[] {
  const from = request.from === null ? EMPTY_TREE_SHA : checkSha(request.from, 'from');
  const to = checkSha(request.to, 'to');
  const args = ['-r', '--no-ext-diff', '--no-textconv', '--no-color', '--ignore-submodules=none'];
  if (request.renames !== false) args.push('-M');
  args.push(from, to, '--');
  if (request.paths?.length) args.push(...request.paths.map((p) => `:(literal)${p}`));
  return args;
}

/** The files that differ, without patches (cheap even for huge changes). */
export async function rawDiff(git: GitRepositories, projectId: number, request: DiffRequest): Promise<RawDiffEntry[]> {
  const args = treeArgs(request);
  const out = await git.run(projectId, ['diff-tree', '--raw', '-z', ...args]);
  return parseRawDiff(out.stdout);
}

/** The patch text GitLab keeps of one file: from the first hunk (or binary notice) on. */
interface PatchAccumulator {
  chunks: Buffer[];
  bytes: number;
  lines: number;
  inBody: boolean;
  /** Bytes stopped being kept (the patch is too large anyway). */
  dropped: boolean;
}

const DIFF_HEADER = Buffer.from('diff --git ');

/**
 * Streams `git diff-tree -p`, handing each file's patch body to `onPatch` in order; `onPatch`
 * returns false to stop git early. Bodies over `keepBytes` are reported with `body: null`.
 */
async function streamPatches(
  git: GitRepositories,
  projectId: number,
  request: DiffRequest,
  keepBytes: number,
  onPatch: (patch: { body: Buffer | null; bytes: number; lines: number }) => boolean,
): Promise<void> {
  const child = git.spawn(projectId, ['diff-tree', '-p', '--src-prefix=a/', '--dst-prefix=b/', ...treeArgs(request)]);
  child.stdin!.end();
  let current: PatchAccumulator | null = null;
  let stopped = false;
  let pending = Buffer.alloc(0);
  const stderr: Buffer[] = [];
  child.stderr!.on('data', (c: Buffer) => stderr.push(c));

  const finish = (): boolean => {
    if (!current) return true;
    const acc = current;
    current = null;
    return onPatch({ body: acc.dropped ? null : Buffer.concat(acc.chunks), bytes: acc.bytes, lines: acc.lines });
  };
  const line = (l: Buffer): void => {
    if (stopped) return;
    if (l.subarray(0, DIFF_HEADER.length).equals(DIFF_HEADER)) {
      if (!finish()) return stop();
      current = { chunks: [], bytes: 0, lines: 0, inBody: false, dropped: false };
      return;
    }
    const acc = current;
    if (!acc) return;
    if (!acc.inBody) {
      const starts = (s: string) => l.subarray(0, s.length).toString('latin1') === s;
      if (starts('@@') || starts('Binary files ')) acc.inBody = true;
      else return;
    }
    acc.bytes += l.length;
    acc.lines += 1;
    if (acc.dropped) return;
    if (acc.bytes > keepBytes) {
      acc.dropped = true;
      acc.chunks = [];
      return;
    }
    acc.chunks.push(l);
  };
  const stop = (): void => {
    stopped = true;
    child.kill('SIGTERM');
  };

  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (stopped) return;
      let buf = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1 && !stopped; nl = buf.indexOf(10, start)) {
        line(buf.subarray(start, nl + 1));
        start = nl + 1;
      }
      pending = stopped ? Buffer.alloc(0) : Buffer.from(buf.subarray(start));
      buf = pending;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (!stopped) {
        if (pending.length) line(pending);
        finish();
      }
      if (stopped || code === 0) resolve();
      else reject(new Error(`git diff-tree failed (${code}): ${Buffer.concat(stderr).toString('utf8').trim()}`));
    });
  });
}

/** GitLab's `json_safe_diff`: a patch that is not text becomes the binary notice. */
function patchText(body: Buffer, oldPath: string, newPath: string): string {
  if (body.includes(0)) return `Binary files ${oldPath} and ${newPath} differ\n`;
  return body.toString('utf8');
}

/**
 * The diff between two commits (or trees) under GitLab's collection limits. The caller has
 * resolved and validated both sides: they are full shas.
 */
export async function diffCommits(git: GitRepositories, projectId: number, request: DiffRequest): Promise<DiffCollection> {
  const entries = await rawDiff(git, projectId, request);
  const limits = request.limits === false ? null : (request.limits ?? diffLimits());
  const expanded = request.expanded !== false || limits === null || entries.length === 1;
  const maxPatchBytes = limits?.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES;
  const diffs: DiffEntity[] = [];
  let overflow = false;
  let lineCount = 0;
  let byteCount = 0;
  if (!entries.length) return { diffs, overflow };

  let index = 0;
  await streamPatches(git, projectId, request, maxPatchBytes, (patch) => {
    const entry = entries[index];
    if (!entry) return false;
    if (limits && index >= limits.maxFiles) {
      overflow = true;
      return false;
    }
    const diff: DiffEntity = {
      diff: '',
      collapsed: false,
      too_large: false,
      new_path: entry.newPath,
      old_path: entry.oldPath,
      a_mode: gitlabMode(entry.aMode),
      b_mode: gitlabMode(entry.bMode),
      new_file: entry.status === 'A',
      renamed_file: entry.oldPath !== entry.newPath,
      deleted_file: entry.status === 'D',
      generated_file: null,
    };
    let lines = patch.lines;
    let bytes = patch.bytes;
    if (patch.bytes >= maxPatchBytes || patch.body === null) {
      diff.too_large = true;
      lines = 0;
      bytes = 0;
    } else if (!expanded && patch.bytes >= Math.floor(maxPatchBytes / 10)) {
      diff.collapsed = true;
      lines = 0;
      bytes = 0;
    } else {
      diff.diff = patchText(patch.body, `a/${entry.oldPath}`, `b/${entry.newPath}`);
    }
    if (!expanded && limits && lines > 0 && overSafeLimits(limits, index, lineCount, byteCount)) {
      diff.diff = '';
      diff.collapsed = true;
      lines = 0;
      bytes = 0;
    }
    lineCount += lines;
    byteCount += bytes;
    if (limits && (lineCount >= limits.maxLines || byteCount >= limits.maxBytes)) {
      overflow = true;
      return false;
    }
    diffs.push(diff);
    index += 1;
    return true;
  });
  return { diffs, overflow };
}

function overSafeLimits(limits: DiffLimits, files: number, lines: number, bytes: number): boolean {
  return files >= limits.safeMaxFiles || lines > limits.safeMaxLines || bytes >= limits.safeMaxBytes;
}

/** The diff a commit introduces: against its first parent (the empty tree for a root commit). */
export async function diffCommit(
  git: GitRepositories,
  projectId: number,
  sha: string,
  options: Omit<DiffRequest, 'from' | 'to'> = {},
): Promise<DiffCollection> {
  const out = await git.run(projectId, ['rev-list', '--parents', '-n', '1', checkSha(sha, 'sha')]);
  const parent = out.stdout.toString('utf8').trim().split(' ')[1] ?? null;
  return diffCommits(git, projectId, { ...options, from: parent, to: sha });
}

/** GitLab's `unidiff`: the patch with `---`/`+++` lines (text patches only). */
export function unidiff(diff: DiffEntity): string {
  if (!diff.diff || diff.diff.startsWith('Binary files ')) return diff.diff;
  const oldHeader = diff.new_file ? '/dev/null' : `a/${diff.old_path}`;
  const newHeader = diff.deleted_file ? '/dev/null' : `b/${diff.new_path}`;
  return `--- ${oldHeader}\n+++ ${newHeader}\n${diff.diff}`;
}

/** The entity as sent: `unidiff` swaps in the `---`/`+++` form of the patch. */
export function presentDiff(diff: DiffEntity, options: { unidiff?: boolean } = {}): DiffEntity {
  return options.unidiff ? { ...diff, diff: unidiff(diff) } : diff;
}
