/**
 * Reading a project's git repository: revisions, commits, trees, blobs, blame, refs. Each
 * helper runs one git command and parses its machine output (`-z`, `--porcelain`). Nothing
 * here takes a user's string to git unchecked: revisions pass `isSafeRevision` and go after
 * `--end-of-options`, paths go after `--` as literal pathspecs.
 */
import type { Readable } from 'node:stream';
import { processOutput, type GitRepositories } from './git.js';

/** A user's revision git may see: no option (`-x`), no control characters, no range, not absurdly long. */
export function isSafeRevision(rev: string): boolean {
  return rev.length > 0 && rev.length <= 1024 && !rev.startsWith('-') && !/[\0-\x20\x7f]/.test(rev) && !rev.includes('..');
}

/** A repository path with its surrounding slashes dropped, or null when it could leave the tree (`..`, `.`, empty segments, NUL). */
export function treePath(path: string): string | null {
  const clean = path.replace(/^\/+|\/+$/g, '');
  if (!clean) return '';
  return clean.includes('\0') || clean.split('/').some((s) => s === '' || s === '.' || s === '..') ? null : clean;
}

/** A path as a literal pathspec (no globbing, no magic). */
export const literal = (path: string): string => `:(literal)${path}`;

/** The commit a revision names (branch, tag, sha, `main~2`...), or null: unknown, not a commit, or no repository yet. */
export async function resolveCommit(git: GitRepositories, projectId: number, rev: string): Promise<string | null> {
  if (!isSafeRevision(rev) || !(await git.exists(projectId))) return null;
  const out = await git.run(projectId, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], { okCodes: [0, 1, 128] });
  const sha = out.code === 0 ? out.stdout.toString('utf8').trim() : '';
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

export interface GitCommitInfo {
  sha: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** UTC, whole seconds (`2024-06-15T12:00:00.000Z`); the author's own offset in `authorTz`. */
  authoredDate: string;
  /** `+HH:MM` */
  authorTz: string;
  committerName: string;
  committerEmail: string;
  committedDate: string;
  committerTz: string;
  message: string;
}

/** `git log --format` for `parseCommits` (with `-z`). */
export const COMMIT_FORMAT = ['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join('%x1f');
/** git's strict ISO 8601 date (`2023-11-15T00:13:20+02:00`): the UTC instant and the offset. */
function dateOf(strict: string): { iso: string; tz: string } {
  const tz = /([+-]\d\d:\d\d)$/.exec(strict)?.[1] ?? '+00:00';
  const date = new Date(strict);
  return { iso: (Number.isNaN(date.getTime()) ? new Date(0) : date).toISOString(), tz };
}

/** Commits printed by `git log -z --format=${COMMIT_FORMAT}`. */
export function parseCommits(out: Buffer): GitCommitInfo[] {
  return out
    .toString('utf8')
    .split('\0')
    .map((r) => r.replace(/^\n/, ''))
    .filter((r) => r.length)
    .map((record) => {
      const [sha, parents, an, ae, at, cn, ce, ct, ...rest] = record.split('\x1f');
      const authored = dateOf(at!);
      const committed = dateOf(ct!);
      return {
        sha: sha!,
        parents: parents ? parents.split(' ') : [],
        authorName: an!,
        authorEmail: ae!,
        authoredDate: authored.iso,
        authorTz: authored.tz,
        committerName: cn!,
        committerEmail: ce!,
        committedDate: committed.iso,
        committerTz: committed.tz,
        message: rest.join('\x1f').replace(/\n$/, ''),
      };
    });
}

export interface LogOptions {
  /** Resolved commit shas to start from; `all` walks every ref. */
  from: string[] | 'all';
  skip?: number;
  maxCount?: number;
  /** Commits touching this path (file or directory). */
  path?: string;
  since?: Date;
  until?: Date;
  /** Substring of `Name <email>` (fixed string). */
  author?: string;
  firstParent?: boolean;
  noMerges?: boolean;
  order?: 'default' | 'topo';
}

/** `git log` paged by git itself (`--skip`/`--max-count`): only one page is ever read. */
export async function logCommits(git: GitRepositories, projectId: number, options: LogOptions): Promise<GitCommitInfo[]> {
  if (!(await git.exists(projectId))) return [];
  const args = ['log', '-z', `--format=${COMMIT_FORMAT}`];
  if (options.skip) args.push(`--skip=${options.skip}`);
  if (options.maxCount !== undefined) args.push(`--max-count=${options.maxCount}`);
  if (options.firstParent) args.push('--first-parent');
  if (options.noMerges) args.push('--no-merges');
  if (options.order === 'topo') args.push('--topo-order');
  if (options.since) args.push(`--since=@${Math.floor(options.since.getTime() / 1000)}`);
  if (options.until) args.push(`--until=@${Math.floor(options.until.getTime() / 1000)}`);
  if (options.author) args.push('--fixed-strings', `--author=${options.author}`);
  if (options.from === 'all') args.push('--branches', '--tags');
  else args.push('--end-of-options', ...options.from.map(checkSha));
  args.push('--');
  if (options.path) args.push(literal(options.path));
  return parseCommits((await git.run(projectId, args)).stdout);
}

/** The commits with these shas, in that order. */
export async function readCommits(git: GitRepositories, projectId: number, shas: string[]): Promise<GitCommitInfo[]> {
  if (!shas.length) return [];
  const out = await git.run(projectId, ['log', '-z', '--no-walk=unsorted', `--format=${COMMIT_FORMAT}`, '--stdin'], { input: shas.map(checkSha).join('\n') + '\n' });
  return parseCommits(out.stdout);
}

/** Commits reachable from `to` and not from `from`, newest first, up to `max` (a compare's commits). */
export async function commitsBetween(git: GitRepositories, projectId: number, from: string, to: string, max: number): Promise<GitCommitInfo[]> {
  const out = await git.run(projectId, ['log', '-z', `--format=${COMMIT_FORMAT}`, `--max-count=${max}`, '--end-of-options', `${checkSha(from)}..${checkSha(to)}`, '--']);
  return parseCommits(out.stdout);
}

function checkSha(sha: string): string {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(sha)) throw new Error(`not a full object id: ${JSON.stringify(sha)}`);
  return sha;
}

export interface LineStats {
  additions: number;
  deletions: number;
  total: number;
}

/** Lines added and deleted by each commit against its first parent (the empty tree for a root), as GitLab's commit stats. */
export async function commitStats(git: GitRepositories, projectId: number, shas: string[]): Promise<Map<string, LineStats>> {
  const result = new Map<string, LineStats>();
  if (!shas.length) return result;
  const out = await git.run(projectId, ['diff-tree', '--stdin', '-r', '-M', '--root', '--diff-merges=first-parent', '--numstat', '-z'], { input: shas.map(checkSha).join('\n') + '\n' });
  let current: LineStats | null = null;
  const fields = out.stdout.toString('utf8').split('\0');
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(f)) {
      current = result.get(f) ?? { additions: 0, deletions: 0, total: 0 };
      result.set(f, current);
      continue;
    }
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(f);
    if (!m || !current) continue;
    if (m[3] === '') i += 2; // a rename: old and new paths follow
    const add = m[1] === '-' ? 0 : Number(m[1]);
    const del = m[2] === '-' ? 0 : Number(m[2]);
    current.additions += add;
    current.deletions += del;
    current.total += add + del;
  }
  for (const sha of shas) if (!result.has(sha)) result.set(sha, { additions: 0, deletions: 0, total: 0 });
  return result;
}

export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Full path from the repository root. */
  path: string;
  /** Blob size in bytes (with `sizes`), else null. */
  size: number | null;
}

function parseTree(out: Buffer, sizes: boolean): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    const m = sizes ? /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t(.*)$/s.exec(record) : /^(\d+) (\w+) ([0-9a-f]+)()\t(.*)$/s.exec(record);
    if (!m) continue;
    entries.push({ mode: m[1]!, type: m[2] as TreeEntry['type'], sha: m[3]!, path: m[5]!, size: sizes && m[4] !== '-' ? Number(m[4]) : null });
  }
  return entries;
}

/** The entry at `path` in commit `sha` (with its size), or null. */
export async function entryAt(git: GitRepositories, projectId: number, sha: string, path: string): Promise<TreeEntry | null> {
  const clean = treePath(path);
  if (!clean) return null;
  const out = await git.run(projectId, ['ls-tree', '-l', '-z', '--full-tree', checkSha(sha), '--', literal(clean)]);
  return parseTree(out.stdout, true).find((e) => e.path === clean) ?? null;
}

/**
 * The entries of directory `dir` ('' for the root) at commit `sha`: one level, or everything
 * under it with `recursive` (directories included). Null when `dir` is not a directory there.
 */
export async function listDirectory(git: GitRepositories, projectId: number, sha: string, dir: string, recursive: boolean): Promise<TreeEntry[] | null> {
  const clean = treePath(dir);
  if (clean === null) return null;
  if (clean) {
    const entry = await entryAt(git, projectId, sha, clean);
    if (!entry || entry.type !== 'tree') return null;
  }
  const args = ['ls-tree', '-z', '--full-tree'];
  if (recursive) args.push('-r', '-t');
  args.push(checkSha(sha), '--');
  if (clean) args.push(literal(`${clean}/`));
  const out = await git.run(projectId, args);
  return parseTree(out.stdout, false).filter((e) => !clean || e.path.startsWith(`${clean}/`));
}

/** The newest commit reachable from `sha` that changed `path` (GitLab's `last_commit_id`). */
export async function lastCommitFor(git: GitRepositories, projectId: number, sha: string, path: string): Promise<string | null> {
  const out = await git.run(projectId, ['log', '-1', '--format=%H', '--end-of-options', checkSha(sha), '--', literal(path)]);
  return out.stdout.toString('utf8').trim() || null;
}

/** The object's type and size, or null when the repository has no such object. */
export async function objectInfo(git: GitRepositories, projectId: number, sha: string): Promise<{ type: string; size: number } | null> {
  if (!(await git.exists(projectId))) return null;
  const out = await git.run(projectId, ['cat-file', '--batch-check=%(objecttype) %(objectsize)'], { input: `${sha}\n` });
  const m = /^(\w+) (\d+)$/.exec(out.stdout.toString('utf8').trim());
  return m ? { type: m[1]!, size: Number(m[2]) } : null;
}

/** A blob's bytes, streamed from `git cat-file` (never held whole). */
export function blobStream(git: GitRepositories, projectId: number, sha: string): Readable {
  const child = git.spawn(projectId, ['cat-file', 'blob', checkSha(sha)]);
  child.stdin!.end();
  return processOutput(child, 'git cat-file blob');
}

/** A whole blob (files API JSON, blame): for the callers that must hold it. */
export async function readBlob(git: GitRepositories, projectId: number, sha: string): Promise<Buffer> {
  return (await git.run(projectId, ['cat-file', 'blob', checkSha(sha)])).stdout;
}

/** Branches and tags whose history contains `sha` (`refs/heads/x` → branch x), sorted by name. */
export async function refsContaining(git: GitRepositories, projectId: number, sha: string, kinds: Array<'branch' | 'tag'>): Promise<Array<{ type: 'branch' | 'tag'; name: string }>> {
  const patterns = kinds.map((k) => (k === 'branch' ? 'refs/heads' : 'refs/tags'));
  const out = await git.run(projectId, ['for-each-ref', '--format=%(refname)', `--contains=${checkSha(sha)}`, ...patterns]);
  const refs: Array<{ type: 'branch' | 'tag'; name: string }> = [];
  for (const line of out.stdout.toString('utf8').split('\n')) {
    if (line.startsWith('refs/heads/')) refs.push({ type: 'branch', name: line.slice(11) });
    else if (line.startsWith('refs/tags/')) refs.push({ type: 'tag', name: line.slice(10) });
  }
  return refs;
}

/** `git merge-base A B [C...]` (as Gitaly's FindMergeBase: A against a merge of the others), or null when unrelated. */
export async function mergeBaseOf(git: GitRepositories, projectId: number, shas: string[]): Promise<string | null> {
  const out = await git.run(projectId, ['merge-base', ...shas.map(checkSha)], { okCodes: [0, 1] });
  return out.code === 0 ? out.stdout.toString('utf8').trim() || null : null;
}

export interface BlameLine {
  sha: string;
  /** Line in the final file, 1-based. */
  line: number;
  text: string;
}

/** `git blame --porcelain` of `path` at `sha`, lines `start`..`end` (1-based, inclusive) when given. */
export async function blame(git: GitRepositories, projectId: number, sha: string, path: string, range?: { start: number; end: number }): Promise<BlameLine[]> {
  const args = ['blame', '--porcelain'];
  if (range) args.push(`-L${range.start},${range.end}`);
  args.push(checkSha(sha), '--', path);
  const out = await git.run(projectId, args);
  const lines: BlameLine[] = [];
  let current: { sha: string; line: number } | null = null;
  for (const raw of out.stdout.toString('utf8').split('\n')) {
    const head = /^([0-9a-f]{40,64}) \d+ (\d+)/.exec(raw);
    if (head) {
      current = { sha: head[1]!, line: Number(head[2]) };
      continue;
    }
    if (raw.startsWith('\t') && current) {
      lines.push({ ...current, text: raw.slice(1) });
      current = null;
    }
  }
  return lines;
}
