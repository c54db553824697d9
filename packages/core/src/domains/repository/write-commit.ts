/**
 * Recording commits, branches and tags. `recordCommit` is GitLab's `POST
 * /repository/commits` (and the files API, and merges): it applies file actions to the
 * latest files of a branch, records the commit with its parent, moves the branch and makes
 * the new commit the head `sha` of open merge requests from that branch, in one transaction.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { nowIso, type Ctx } from '../../kernel/context.js';
import { MAINTAINER } from '../../kernel/access.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import type { ProjectRow } from '../accounts/project.table.js';
import { canOnBranch } from './protection.js';
import { gitBlobSha, readFileOnRef, repositoryIsEmpty, resolveRevision, selectBranch, selectTag, type ResolvedRef } from './refs.js';
import type { CommitStats } from './commit.entity.js';
import type { RepositoryCommitRow, RepositoryRefRow } from './repository.table.js';

type Trx = Kysely<Database>;

export type CommitActionName = 'create' | 'delete' | 'move' | 'update' | 'chmod';

export interface CommitAction {
  action: CommitActionName;
  file_path: string;
  previous_path?: string;
  content?: string;
  encoding?: 'text' | 'base64';
  last_commit_id?: string;
  execute_filemode?: boolean;
}

export interface CommitInput {
  branch: string;
  start_branch?: string;
  start_sha?: string;
  commit_message: string;
  actions: CommitAction[];
  author_email?: string;
  author_name?: string;
  /** Reset `branch` to the start and commit on top (GitLab's `force`). */
  force?: boolean;
  /** Extra parents after the branch head (merge commits). */
  extraParents?: string[];
}

export interface RecordedCommit {
  commit: RepositoryCommitRow;
  stats: CommitStats;
  branch: RepositoryRefRow;
  branchCreated: boolean;
}

/** A fresh 40-hex commit id. Forgelet keeps no trees, so ids are random rather than content hashes. */
export function newCommitSha(): string {
  return randomBytes(20).toString('hex');
}

/** GitLab's branch and tag name rules (`Gitlab::GitRefValidator`), simplified to git's check-ref-format. */
export function validRefName(name: string): boolean {
  if (!name || name.startsWith('-') || name.startsWith('refs/') || name === 'HEAD') return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  return !name.split('/').some((part) => part.startsWith('.'));
}

/** A repository-relative file path: no empty, `.` or `..` segments, not absolute. */
export function validFilePath(path: string): boolean {
  if (!path || path.startsWith('/') || path.includes('\0') || path.length > 4096) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part !== '.git');
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]!.trim();
}

function linesOf(buf: Buffer | undefined): string[] {
  if (!buf || buf.length === 0) return [];
  return buf.toString('utf8').replace(/\n$/, '').split('\n');
}

/** Added and removed lines between two versions (multiset difference: no alignment, good for counts). */
function lineDelta(before: Buffer | undefined, after: Buffer | undefined): { additions: number; deletions: number } {
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

async function storeBlob(trx: Trx, projectId: number, content: Buffer): Promise<string> {
  const sha = gitBlobSha(content);
  const existing = await trx.selectFrom('repository_blobs').select('id').where('project_id', '=', projectId).where('sha', '=', sha).executeTakeFirst();
  if (!existing) await trx.insertInto('repository_blobs').values({ project_id: projectId, sha, size: content.length, content: content.toString('base64') }).execute();
  return sha;
}

/** Creates a ref pointing at `start`'s commit, carrying a copy of `start`'s files (copied in SQL). */
export async function insertRef(
  trx: Trx,
  project: Pick<ProjectRow, 'id'>,
  kind: 'branch' | 'tag',
  name: string,
  start: { commitSha: string; filesFrom?: RepositoryRefRow },
  now: string,
  annotation: { message?: string | null; tagger_name?: string; tagger_email?: string } = {},
): Promise<RepositoryRefRow> {
  const ref = await trx
    .insertInto('repository_refs')
    .values({
      project_id: project.id,
      kind,
      name,
      commit_sha: start.commitSha,
      message: annotation.message ?? null,
      tagger_name: annotation.message ? annotation.tagger_name ?? null : null,
      tagger_email: annotation.message ? annotation.tagger_email ?? null : null,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (start.filesFrom) {
    const from = start.filesFrom.id;
    await trx
      .insertInto('repository_files')
      .columns(['ref_id', 'path', 'blob_sha', 'last_commit_sha', 'executable'])
      .expression((eb) =>
        eb.selectFrom('repository_files').select((s) => [s.val(ref.id).as('ref_id'), 'path', 'blob_sha', 'last_commit_sha', 'executable']).where('ref_id', '=', from),
      )
      .execute();
  }
  return ref;
}

/** The default protection GitLab gives a project's default branch on first push: Maintainers push and merge. */
async function protectDefaultBranch(trx: Trx, projectId: number, branch: string, now: string): Promise<void> {
  const existing = await trx.selectFrom('protected_branches').select('id').where('project_id', '=', projectId).where('name', '=', branch).executeTakeFirst();
  if (existing) return;
  const pb = await trx
    .insertInto('protected_branches')
    .values({ project_id: projectId, name: branch, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('protected_branch_access_levels')
    .values((['push', 'merge', 'unprotect'] as const).map((action) => ({ protected_branch_id: pb.id, action, access_level: MAINTAINER, user_id: null, group_id: null })))
    .execute();
}

interface Start {
  commitSha: string | null;
  filesFrom?: RepositoryRefRow;
}

/** Where a new branch starts: `start_sha`, then `start_branch`; nothing in an empty repository. */
async function startOf(trx: Trx, project: ProjectRow, input: CommitInput, empty: boolean): Promise<Start> {
  if (input.start_sha) {
    const resolved = await resolveRevision(trx, project.id, input.start_sha);
    if (!resolved || resolved.kind !== 'commit') throw new BadRequestError(`Invalid start_sha: ${input.start_sha}`, { raw: true });
    if (!resolved.ref) throw new BadRequestError(`Forgelet keeps files only at branch and tag heads; ${input.start_sha} is not one`, { raw: true });
    return { commitSha: resolved.commit.sha, filesFrom: resolved.ref };
  }
  const startBranch = input.start_branch ?? input.branch;
  const ref = await selectBranch(trx, project.id, startBranch);
  if (ref) return { commitSha: ref.commit_sha, filesFrom: ref };
  if (empty) return { commitSha: null };
  if (input.start_branch) throw new BadRequestError(`Invalid reference ${input.start_branch}`, { raw: true });
  throw new BadRequestError('You can only create or edit files when you are on a branch', { raw: true });
}

interface Applied {
  stats: CommitStats;
  touched: string[];
}

async function applyActions(trx: Trx, project: ProjectRow, ref: RepositoryRefRow, actions: CommitAction[]): Promise<Applied> {
  const stats = { additions: 0, deletions: 0, total: 0 };
  const touched: string[] = [];
  const fail = (message: string): never => {
    throw new BadRequestError(message, { raw: true });
  };
  for (const action of actions) {
    const path = action.file_path;
    if (!validFilePath(path)) fail(`Your changes could not be committed, because the file path ${JSON.stringify(path)} is not valid`);
    const current = await readFileOnRef(trx, ref, path);
    if (action.last_commit_id && current && current.file.last_commit_sha !== action.last_commit_id) {
      fail(`The file has changed since you started editing it: ${path}`);
    }
    const decode = (): Buffer | undefined => {
      if (action.content === undefined) return undefined;
      if (action.encoding === 'base64') {
        if (!/^[A-Za-z0-9+/=\s]*$/.test(action.content)) fail(`content of ${path} is not valid base64`);
        return Buffer.from(action.content, 'base64');
      }
      return Buffer.from(action.content, 'utf8');
    };
    const write = async (target: string, content: Buffer, executable: number) => {
      const blob = await storeBlob(trx, project.id, content);
      await trx.deleteFrom('repository_files').where('ref_id', '=', ref.id).where('path', '=', target).execute();
      await trx.insertInto('repository_files').values({ ref_id: ref.id, path: target, blob_sha: blob, last_commit_sha: '', executable }).execute();
      touched.push(target);
    };
    switch (action.action) {
      case 'create': {
        if (current) fail('A file with this name already exists');
        if (await directoryExists(trx, ref.id, path)) fail('A directory with this name already exists');
        const content = decode() ?? Buffer.alloc(0);
        const d = lineDelta(undefined, content);
        stats.additions += d.additions;
        await write(path, content, action.execute_filemode ? 1 : 0);
        break;
      }
      case 'update': {
        if (!current) fail("A file with this name doesn't exist");
        const content = decode() ?? Buffer.alloc(0);
        const d = lineDelta(current!.content, content);
        stats.additions += d.additions;
        stats.deletions += d.deletions;
        await write(path, content, action.execute_filemode === undefined ? current!.file.executable : action.execute_filemode ? 1 : 0);
        break;
      }
      case 'delete': {
        if (!current) fail("A file with this name doesn't exist");
        stats.deletions += linesOf(current!.content).length;
        await trx.deleteFrom('repository_files').where('id', '=', current!.file.id).execute();
        break;
      }
      case 'move': {
        if (!action.previous_path) fail('previous_path is missing');
        if (!validFilePath(action.previous_path!)) fail(`Your changes could not be committed, because the file path ${JSON.stringify(action.previous_path)} is not valid`);
        const previous = await readFileOnRef(trx, ref, action.previous_path!);
        if (!previous) fail("A file with this name doesn't exist");
        if (current && action.previous_path !== path) fail('A file with this name already exists');
        const content = decode() ?? previous!.content;
        const d = lineDelta(previous!.content, content);
        stats.additions += d.additions;
        stats.deletions += d.deletions;
        await trx.deleteFrom('repository_files').where('id', '=', previous!.file.id).execute();
        await write(path, content, action.execute_filemode === undefined ? previous!.file.executable : action.execute_filemode ? 1 : 0);
        break;
      }
      case 'chmod': {
        if (!current) fail("A file with this name doesn't exist");
        await trx.updateTable('repository_files').set({ executable: action.execute_filemode ? 1 : 0, last_commit_sha: '' }).where('id', '=', current!.file.id).execute();
        touched.push(path);
        break;
      }
      default:
        fail(`Unknown action ${String((action as CommitAction).action)}`);
    }
  }
  stats.total = stats.additions + stats.deletions;
  return { stats, touched };
}

async function directoryExists(trx: Trx, refId: number, path: string): Promise<boolean> {
  const row = await trx
    .selectFrom('repository_files')
    .select('id')
    .where('ref_id', '=', refId)
    .where('path', '>', `${path}/`)
    .where('path', '<', `${path}0`)
    .limit(1)
    .executeTakeFirst();
  return Boolean(row);
}

/** Checks that the actor may push to the branch (call before opening the transaction). */
export async function authorizePush(ctx: Ctx, project: ProjectRow, branch: string): Promise<void> {
  if (!(await canOnBranch(ctx, project, branch, 'push'))) throw new ForbiddenError(undefined, { exact: '403 Forbidden - You are not allowed to push into this branch' });
}

/**
 * Records one commit on `input.branch` inside `trx`. The caller has checked push access
 * (`authorizePush`) and opened the transaction.
 */
export async function recordCommitIn(trx: Trx, ctx: Ctx, project: ProjectRow, input: CommitInput): Promise<RecordedCommit> {
  if (!validRefName(input.branch)) throw new BadRequestError('Branch name is invalid', { raw: true });
  if (!input.commit_message.trim()) throw new BadRequestError('commit_message is empty');
  const now = nowIso(ctx);
  const empty = await repositoryIsEmpty(trx, project.id);
  let branch = await selectBranch(trx, project.id, input.branch);
  let branchCreated = false;
  let parent: string | null;
  if (branch && !input.force && (input.start_sha || (input.start_branch && input.start_branch !== input.branch))) {
    throw new BadRequestError(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`, { raw: true });
  }
  if (!branch || input.force) {
    const start = await startOf(trx, project, input, empty);
    if (branch) await trx.deleteFrom('repository_refs').where('id', '=', branch.id).execute();
    branch = await insertRef(trx, project, 'branch', input.branch, { commitSha: start.commitSha ?? '', filesFrom: start.filesFrom }, now);
    branchCreated = true;
    parent = start.commitSha;
  } else {
    parent = branch.commit_sha;
  }
  const applied = await applyActions(trx, project, branch, input.actions);
  const user = ctx.actor.user;
  const authorName = input.author_name ?? user?.name ?? 'Forgelet';
  const authorEmail = input.author_email ?? user?.email ?? 'forgelet@localhost';
  const sha = newCommitSha();
  const parents = [...(parent ? [parent] : []), ...(input.extraParents ?? [])];
  const commit = await trx
    .insertInto('repository_commits')
    .values({
      project_id: project.id,
      sha,
      parent_ids: JSON.stringify(parents),
      title: firstLine(input.commit_message),
      message: input.commit_message,
      author_name: authorName,
      author_email: authorEmail,
      authored_date: now,
      committer_name: authorName,
      committer_email: authorEmail,
      committed_date: now,
      user_id: user?.id ?? null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (parents.length) {
    await trx.insertInto('repository_commit_parents').values(parents.map((parent_sha, position) => ({ commit_id: commit.id, parent_sha, position }))).execute();
  }
  if (applied.touched.length) {
    await trx.updateTable('repository_files').set({ last_commit_sha: sha }).where('ref_id', '=', branch.id).where('last_commit_sha', '=', '').execute();
  }
  branch = await trx.updateTable('repository_refs').set({ commit_sha: sha, updated_at: now }).where('id', '=', branch.id).returningAll().executeTakeFirstOrThrow();
  await moveMergeRequestHeads(trx, project.id, input.branch, sha, now);
  if (empty) {
    if (project.default_branch !== input.branch) await trx.updateTable('projects').set({ default_branch: input.branch }).where('id', '=', project.id).execute();
    await protectDefaultBranch(trx, project.id, input.branch, now);
  }
  return { commit, stats: applied.stats, branch, branchCreated };
}

/** Checks push access, then records the commit in its own transaction. */
export async function recordCommit(ctx: Ctx, project: ProjectRow, input: CommitInput): Promise<RecordedCommit> {
  await authorizePush(ctx, project, input.branch);
  return ctx.db.transaction().execute((trx) => recordCommitIn(trx, ctx, project, input));
}

/** Open merge requests from the branch take the new head as their `sha`. */
export async function moveMergeRequestHeads(trx: Trx, projectId: number, branch: string, sha: string, now: string): Promise<void> {
  await trx
    .updateTable('merge_requests')
    .set({ sha, updated_at: now })
    .where('source_project_id', '=', projectId)
    .where('source_branch', '=', branch)
    .where('state', 'in', ['opened', 'locked'])
    .execute();
}

/** Creates a branch at a revision (`ref`: branch, tag or sha at a ref head). */
export async function createBranchIn(trx: Trx, ctx: Ctx, project: ProjectRow, name: string, revision: string): Promise<RepositoryRefRow> {
  if (!validRefName(name)) throw new BadRequestError('Branch name is invalid', { raw: true });
  if (await selectBranch(trx, project.id, name)) throw new BadRequestError('Branch already exists', { raw: true });
  const start = await resolveRevision(trx, project.id, revision);
  if (!start) throw new BadRequestError('Invalid reference name', { raw: true });
  const ref = await insertRef(trx, project, 'branch', name, { commitSha: start.commit.sha, filesFrom: start.ref }, nowIso(ctx));
  await moveMergeRequestHeads(trx, project.id, name, start.commit.sha, nowIso(ctx));
  return ref;
}

/** Creates a tag at a revision; `message` makes it annotated. */
export async function createTagIn(
  trx: Trx,
  ctx: Ctx,
  project: ProjectRow,
  name: string,
  revision: string,
  message?: string | null,
): Promise<{ tag: RepositoryRefRow; target: ResolvedRef }> {
  if (!validRefName(name)) throw new BadRequestError('Tag name invalid', { raw: true });
  if (await selectTag(trx, project.id, name)) throw new BadRequestError(`Tag ${name} already exists`, { raw: true });
  const start = await resolveRevision(trx, project.id, revision);
  if (!start) throw new BadRequestError('Target is invalid', { raw: true });
  const user = ctx.actor.user;
  const tag = await insertRef(trx, project, 'tag', name, { commitSha: start.commit.sha, filesFrom: start.ref }, nowIso(ctx), {
    message: message || null,
    tagger_name: user?.name,
    tagger_email: user?.email,
  });
  return { tag, target: start };
}
