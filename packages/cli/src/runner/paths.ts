/**
 * Artifact paths: GitLab `artifacts:paths` / `exclude` patterns (files, directories taken
 * recursively, globs with `*`, `?`, `[…]`, `{a,b}` and `**`) resolved inside the project
 * directory. Nothing outside it is ever read: patterns escaping it are refused, and
 * symbolic links are archived as links, never followed while walking.
 */
import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import path from 'node:path';

export class ArtifactPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArtifactPathError';
  }
}

/** True when `child` is `parent` or inside it (both absolute, normalised). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * A pattern as a normalised path relative to `root` ('' for the root itself), or an
 * ArtifactPathError when it leaves `root` (`../x`, `a/../../x`, `/etc/passwd`).
 */
export function relativePattern(root: string, pattern: string): string {
  const trimmed = pattern.trim();
  if (trimmed === '') throw new ArtifactPathError('empty artifact path');
  if (trimmed.includes('\0')) throw new ArtifactPathError('artifact path contains a NUL byte');
  const absolute = path.resolve(root, trimmed);
  if (!isInside(root, absolute)) throw new ArtifactPathError(`artifact path is not a subpath of project directory: ${root}`);
  return path.relative(root, absolute).split(path.sep).join('/');
}

const GLOB_META = /[*?[{\\]/;

export function hasGlob(segment: string): boolean {
  return GLOB_META.test(segment);
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** One path segment's glob (no `/`) as a regular expression source. */
function segmentSource(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\' && i + 1 < segment.length) {
      out += escapeRegex(segment[++i]!);
    } else if (c === '*') {
      while (segment[i + 1] === '*') i++;
      out += '[^/]*';
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end === -1) {
        out += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      body = body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]');
      out += negate ? `[^/${body}]` : `[${body}]`;
      i = end;
    } else if (c === '{') {
      const end = segment.indexOf('}', i + 1);
      if (end === -1) {
        out += '\\{';
        continue;
      }
      const options = segment.slice(i + 1, end).split(',');
      out += `(?:${options.map(segmentSource).join('|')})`;
      i = end;
    } else {
      out += escapeRegex(c);
    }
  }
  return out;
}

/**
 * A relative glob (as from `relativePattern`) as a RegExp over relative `/` paths. `**` as a
 * whole segment matches any number of directories (zero included); `*` never crosses `/`.
 */
export function globToRegExp(pattern: string): RegExp {
  if (pattern === '') return /^.*$/s;
  const segments = pattern.split('/');
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      if (last) source += i === 0 ? '.*' : '(?:/.*)?';
      else source += i === 0 ? '(?:[^/]+/)*' : '(?:/[^/]+)*/';
      return;
    }
    const previousGlobstar = i > 0 && segments[i - 1] === '**';
    if (i > 0 && !previousGlobstar) source += '/';
    source += segmentSource(segment);
  });
  return new RegExp(`^${source}$`, 's');
}

export interface ArtifactEntry {
  /** Path inside the archive, relative to the project directory, `/`-separated. */
  rel: string;
  abs: string;
  kind: 'file' | 'dir' | 'symlink';
  mode: number;
  mtime: Date;
  size: number;
  /** Symbolic links only. */
  target?: string;
}

async function entryOf(abs: string, rel: string, stats: Stats): Promise<ArtifactEntry | null> {
  const base = { rel, abs, mode: stats.mode, mtime: stats.mtime, size: stats.size };
  if (stats.isSymbolicLink()) return { ...base, kind: 'symlink', target: await readlink(abs) };
  if (stats.isDirectory()) return { ...base, kind: 'dir' };
  if (stats.isFile()) return { ...base, kind: 'file' };
  return null; // sockets, fifos, devices
}

/** Everything below `abs` (depth first, sorted), never following symbolic links. */
async function* walk(abs: string, rel: string): AsyncGenerator<ArtifactEntry> {
  let names: string[];
  try {
    names = (await readdir(abs)).sort();
  } catch {
    return;
  }
  for (const name of names) {
    const childAbs = path.join(abs, name);
    const childRel = rel === '' ? name : `${rel}/${name}`;
    let stats: Stats;
    try {
      stats = await lstat(childAbs);
    } catch {
      continue;
    }
    const entry = await entryOf(childAbs, childRel, stats);
    if (!entry) continue;
    yield entry;
    if (entry.kind === 'dir') yield* walk(childAbs, childRel);
  }
}

export interface CollectOptions {
  paths?: string[] | null;
  exclude?: string[] | null;
  /** `artifacts:untracked`: every file not fetched from the repository. */
  untracked?: boolean;
  /** Repository paths (for `untracked`). */
  tracked?: ReadonlySet<string>;
}

export interface CollectResult {
  entries: ArtifactEntry[];
  /** Log lines, gitlab-runner style. */
  messages: string[];
}

/**
 * The files, directories and links the artifact declaration selects in `root` (an absolute
 * directory), each once, in a stable order.
 */
export async function collectArtifacts(root: string, options: CollectOptions): Promise<CollectResult> {
  const realRoot = await realpath(root);
  const messages: string[] = [];
  const found = new Map<string, ArtifactEntry>();
  const excludes: { pattern: string; regex: RegExp; count: number }[] = [];
  for (const pattern of options.exclude ?? []) {
    try {
      excludes.push({ pattern, regex: globToRegExp(relativePattern(realRoot, pattern)), count: 0 });
    } catch (err) {
      messages.push(`WARNING: ${pattern}: ${(err as Error).message}`);
    }
  }
  const excluded = (rel: string): boolean => {
    const parts = rel.split('/');
    for (const ex of excludes) {
      for (let i = parts.length; i >= 1; i--) {
        if (ex.regex.test(parts.slice(0, i).join('/'))) {
          ex.count++;
          return true;
        }
      }
    }
    return false;
  };
  const add = (entry: ArtifactEntry): boolean => {
    if (entry.rel === '' || found.has(entry.rel) || excluded(entry.rel)) return false;
    found.set(entry.rel, entry);
    return true;
  };

  if (options.untracked) {
    let count = 0;
    for await (const entry of walk(realRoot, '')) {
      if (entry.kind === 'dir' || options.tracked?.has(entry.rel)) continue;
      if (add(entry)) count++;
    }
    messages.push(`untracked: found ${count} files`);
  }

  for (const pattern of options.paths ?? []) {
    let rel: string;
    try {
      rel = relativePattern(realRoot, pattern);
    } catch (err) {
      messages.push(`WARNING: ${pattern}: ${(err as Error).message}`);
      continue;
    }
    const matched = await matchPattern(realRoot, rel);
    if (matched.error) {
      messages.push(`WARNING: ${pattern}: ${matched.error}`);
      continue;
    }
    let count = 0;
    for (const entry of matched.entries) {
      count++;
      add(entry);
    }
    if (count === 0) {
      messages.push(`WARNING: ${pattern}: no matching files. Ensure that the artifact path is relative to the working directory (${root})`);
    } else {
      messages.push(`${pattern}: found ${count} matching artifact files and directories`);
    }
  }
  for (const ex of excludes) {
    if (ex.count > 0) messages.push(`${ex.pattern}: excluded ${ex.count} matching artifact files and directories`);
  }
  return { entries: [...found.values()], messages };
}

/** The entries one (relative) pattern selects; a matched directory brings all it holds. */
async function matchPattern(realRoot: string, rel: string): Promise<{ entries: ArtifactEntry[]; error?: string }> {
  const segments = rel === '' ? [] : rel.split('/');
  const firstGlob = segments.findIndex(hasGlob);
  const baseSegments = firstGlob === -1 ? segments : segments.slice(0, firstGlob);
  const baseRel = baseSegments.join('/');
  const baseAbs = path.join(realRoot, ...baseSegments);

  // The base's parent must resolve inside the project directory: a link on the way
  // (`link/file`, link → /etc) would otherwise read outside it.
  if (baseSegments.length > 0) {
    let parentReal: string;
    try {
      parentReal = await realpath(path.dirname(baseAbs));
    } catch {
      return { entries: [] };
    }
    if (!isInside(realRoot, parentReal)) return { entries: [], error: `artifact path is not a subpath of project directory: ${realRoot}` };
  }
  let baseStats: Stats;
  try {
    baseStats = await lstat(baseAbs);
  } catch {
    return { entries: [] };
  }
  const entries: ArtifactEntry[] = [];
  if (firstGlob === -1) {
    // a literal path: the entry itself, and everything below a directory
    if (baseRel === '') {
      for await (const e of walk(baseAbs, '')) entries.push(e);
      return { entries };
    }
    const entry = await entryOf(baseAbs, baseRel, baseStats);
    if (!entry) return { entries };
    entries.push(entry);
    if (entry.kind === 'dir') for await (const e of walk(baseAbs, baseRel)) entries.push(e);
    return { entries };
  }
  if (!baseStats.isDirectory()) return { entries };
  const regex = globToRegExp(rel);
  let inside: string | null = null; // a matched directory whose contents follow
  for await (const e of walk(baseAbs, baseRel)) {
    if (inside !== null && e.rel.startsWith(`${inside}/`)) {
      entries.push(e);
      continue;
    }
    inside = null;
    if (regex.test(e.rel)) {
      entries.push(e);
      if (e.kind === 'dir') inside = e.rel;
    }
  }
  return { entries };
}
