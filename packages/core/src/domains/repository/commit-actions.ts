/**
 * Applying a commit's file actions (create, update, delete, move, chmod) to the latest files
 * of a branch, with Gitaly's error messages, and counting what changed for the commit's
 * stats and change records.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { BadRequestError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import { gitBlobSha, readFileOnRef, type FileAtRef } from './refs.js';
import type { CommitStats } from './commit.entity.js';
import type { CommitChangeKind, RepositoryRefRow } from './repository.table.js';
import type { TreeOp } from './git-write.js';

type Trx = Kysely<Database>;

export type CommitActionName = 'create' | 'delete' | 'move' | 'update' | 'chmod';

export interface CommitAction {
  action: CommitActionName;
  file_path: string;
  previous_path?: string;
  /** null (files API with base64 and no content) is an empty file. */
  content?: string | null;
  encoding?: 'text' | 'base64';
  last_commit_id?: string;
  execute_filemode?: boolean;
}

export interface CommitChange {
  path: string;
  previous_path: string | null;
  change: CommitChangeKind;
  additions: number;
  deletions: number;
}

export interface Applied {
  stats: CommitStats;
  /** Paths written by this commit (their `last_commit_sha` becomes the new commit). */
  touched: string[];
  changes: CommitChange[];
  /** The same changes as git tree edits, in order. */
  ops: TreeOp[];
}

/** A repository-relative file path: no empty, `.` or `..` segments, not absolute. */
export function validFilePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.includes('\0') || path.length > 4096) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part !== '.git');
}

function pathProblem(path: string | undefined): string | undefined {
  if (!path) return 'You must provide a file path';
  if (path.split('/').includes('..')) return 'Path cannot include directory traversal';
  if (!validFilePath(path)) return `Your changes could not be committed, because the file path ${JSON.stringify(path)} is not valid`;
  return undefined;
}

/** Lines of a text file; a binary one (a NUL byte near the start, as git decides) counts none. */
function linesOf(buf: Buffer | undefined): string[] {
  if (!buf || buf.length === 0 || buf.subarray(0, 8000).includes(0)) return [];
  return buf.toString('utf8').replace(/\n$/, '').split('\n');
}

/** Added and removed lines between two versions (multiset difference: no alignment, good for counts). */
export function lineDelta(before: Buffer | undefined, after: Buffer | undefined): { additions: number; deletions: number } {
  const counts = new Map<string, number>();
  for (const l of linesOf(before)) counts.set(l, (counts.get(l) ?? 0) + 1);
  let additions = 0;
  for (const l of linesOf(after)) {
    const n = counts.get(l) ?? 0;
    if (n > 0) counts.set(l, n - 1);
    else additions += 1;
  }
  let deletions = 0;
  for (const n of counts.values()) deletions += n;
  return { additions, deletions };
}

/** Stores content once per project under its git blob id. */
export async function storeBlob(trx: Trx, projectId: number, content: Buffer): Promise<string> {
  const sha = gitBlobSha(content);
  const existing = await trx.selectFrom('repository_blobs').select('id').where('project_id', '=', projectId).where('sha', '=', sha).executeTakeFirst();
  if (!existing) await trx.insertInto('repository_blobs').values({ project_id: projectId, sha, size: content.length, content: content.toString('base64') }).execute();
  return sha;
}

async function directoryExists(trx: Trx, refId: number, path: string): Promise<boolean> {
  const prefix = `${path}/`;
  const row = await trx
    .selectFrom('repository_files')
    .select('id')
    .where('ref_id', '=', refId)
    .where((eb) => eb(eb.fn('substr', ['path', eb.val(1), eb.val(prefix.length)]), '=', prefix))
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** A file at a parent path of `path` (`a` for `a/b`) would make `a` both a file and a directory. */
async function parentIsFile(trx: Trx, refId: number, path: string): Promise<boolean> {
  const parts = path.split('/');
  const parents = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
  if (!parents.length) return false;
  const row = await trx.selectFrom('repository_files').select('id').where('ref_id', '=', refId).where('path', 'in', parents).limit(1).executeTakeFirst();
  return Boolean(row);
}

export async function applyActions(trx: Trx, project: ProjectRow, ref: RepositoryRefRow, actions: CommitAction[]): Promise<Applied> {
  const stats = { additions: 0, deletions: 0, total: 0 };
  const touched: string[] = [];
  const changes: CommitChange[] = [];
  const ops: TreeOp[] = [];
  const fail = (message: string): never => {
    throw new BadRequestError(message, { raw: true });
  };
  const record = (change: CommitChange) => {
    stats.additions += change.additions;
    stats.deletions += change.deletions;
    changes.push(change);
  };
  for (const action of actions) {
    const path = action.file_path;
    const problem = pathProblem(path);
    if (problem) fail(problem);
    const current = await readFileOnRef(trx, ref, path);
    if (action.last_commit_id && current && current.file.last_commit_sha !== action.last_commit_id) {
      fail(`The file has changed since you started editing it: ${path}`);
    }
    const decode = (fallback: Buffer): Buffer => {
      if (action.content === undefined) return fallback;
      if (action.content === null) return Buffer.alloc(0);
      if (action.encoding === 'base64') {
        if (!/^[A-Za-z0-9+/=\s_-]*$/.test(action.content)) fail(`content of ${path} is not valid base64`);
        return Buffer.from(action.content, 'base64');
      }
      return Buffer.from(action.content, 'utf8');
    };
    const write = async (target: string, content: Buffer, executable: number) => {
      const blob = await storeBlob(trx, project.id, content);
      await trx.deleteFrom('repository_files').where('ref_id', '=', ref.id).where('path', '=', target).execute();
      await trx.insertInto('repository_files').values({ ref_id: ref.id, path: target, blob_sha: blob, last_commit_sha: '', executable }).execute();
      touched.push(target);
      ops.push({ op: 'write', path: target, content, executable: executable === 1 });
    };
    const modeOf = (file: FileAtRef | undefined) => (action.execute_filemode === undefined ? (file?.file.executable ?? 0) : action.execute_filemode ? 1 : 0);
    switch (action.action) {
      case 'create': {
        if (current) fail('A file with this name already exists');
        if (await directoryExists(trx, ref.id, path)) fail('A directory with this name already exists');
        if (await parentIsFile(trx, ref.id, path)) fail('A file with this name already exists');
        const content = decode(Buffer.alloc(0));
        await write(path, content, modeOf(undefined));
        record({ path, previous_path: null, change: 'added', ...lineDelta(undefined, content) });
        break;
      }
      case 'update': {
        if (!current) fail("A file with this name doesn't exist");
        const content = decode(Buffer.alloc(0));
        await write(path, content, modeOf(current));
        record({ path, previous_path: null, change: 'modified', ...lineDelta(current!.content, content) });
        break;
      }
      case 'delete': {
        if (!current) fail("A file with this name doesn't exist");
        await trx.deleteFrom('repository_files').where('id', '=', current!.file.id).execute();
        ops.push({ op: 'delete', path });
        record({ path, previous_path: null, change: 'deleted', additions: 0, deletions: linesOf(current!.content).length });
        break;
      }
      case 'move': {
        const from = action.previous_path;
        const fromProblem = pathProblem(from);
        if (fromProblem) fail(fromProblem);
        const previous = await readFileOnRef(trx, ref, from!);
        if (!previous) fail("A file with this name doesn't exist");
        if (current && from !== path) fail('A file with this name already exists');
        const content = decode(previous!.content);
        await trx.deleteFrom('repository_files').where('id', '=', previous!.file.id).execute();
        ops.push({ op: 'delete', path: from! });
        if (await parentIsFile(trx, ref.id, path)) fail('A file with this name already exists');
        if (await directoryExists(trx, ref.id, path)) fail('A directory with this name already exists');
        await write(path, content, modeOf(previous));
        record({ path, previous_path: from!, change: 'renamed', ...lineDelta(previous!.content, content) });
        break;
      }
      case 'chmod': {
        if (!current) fail("A file with this name doesn't exist");
        await trx.updateTable('repository_files').set({ executable: action.execute_filemode ? 1 : 0, last_commit_sha: '' }).where('id', '=', current!.file.id).execute();
        touched.push(path);
        ops.push({ op: 'write', path, content: current!.content, executable: Boolean(action.execute_filemode) });
        record({ path, previous_path: null, change: 'mode', additions: 0, deletions: 0 });
        break;
      }
      default:
        fail(`Unknown action ${String((action as CommitAction).action)}`);
    }
  }
  stats.total = stats.additions + stats.deletions;
  return { stats, touched, changes, ops };
}
