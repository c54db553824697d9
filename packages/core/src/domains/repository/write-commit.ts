/**
 * Recording commits, branches and tags. `recordCommit` is GitLab's `POST
 * /repository/commits` (and the files API, and merges): it applies file actions to the
 * latest files of a branch, records the commit with its parents and what it changed, moves
 * the branch and makes the new commit the head `sha` of open merge requests from that
 * branch, in one transaction. Validation follows `Commits::CreateService#validate!`.
 */
import { recordProjectActivity } from '../../access/project-activity.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { nowIso, type Ctx } from '../../access/context.js';
import { MAINTAINER } from '../../access/levels.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import { canOnBranch } from './protection.js';
import { repositoryIsEmpty, resolveRevision, selectBranch, selectCommit, selectRef, selectTag, type ResolvedRef } from './refs.js';
import { applyActions, type CommitAction } from './commit-actions.js';
import type { CommitStats } from './commit.entity.js';
import type { RepositoryCommitRow, RepositoryRefRow } from './repository.table.js';
import { runMergeRequestHeadsMoved, runRefUpdated } from './push-hooks.js';
import { replayIfPending } from './git-replay.js';
import { repositoryTransaction, queueHead, queueRefMove, writeCommit, writeCommitWithTree, writeTagObject, type Ident } from './git-write.js';

export { validFilePath, type CommitAction, type CommitActionName } from './commit-actions.js';

type Trx = Kysely<Database>;

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
  /** The branch's head before this commit (a push's `before`); null when the commit created the branch. */
  before: string | null;
}

/** GitLab's branch and tag name rules (`Gitlab::GitRefValidator`), simplified to git's check-ref-format. */
export function validRefName(name: string): boolean {
  if (!name || name.startsWith('-') || name.startsWith('refs/') || name === 'HEAD') return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  if (name.includes('..') || name.includes('@{') || name.includes('//')) return false;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}

/** GitLab's pre-receive check refuses new branches named like commit ids. */
export const HEX_BRANCH_MESSAGE = 'You cannot create a branch with a SHA-1 or SHA-256 branch name.';
export function isHexBranchName(name: string): boolean {
  return /^([0-9a-f]{40}|[0-9a-f]{64})(-\/|\/|$)/i.test(name);
}

function firstLine(message: string): string {
  return message.split('\n', 1)[0]!.trim();
}

function fail(message: string): never {
  throw new BadRequestError(message, { raw: true });
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
  if (start.filesFrom) await copyFiles(trx, start.filesFrom.id, ref.id);
  return ref;
}

async function copyFiles(trx: Trx, fromRefId: number, toRefId: number): Promise<void> {
  await trx
    .insertInto('repository_files')
    .columns(['ref_id', 'path', 'blob_sha', 'last_commit_sha', 'executable'])
    .expression((eb) =>
      eb.selectFrom('repository_files').select((s) => [s.val(toRefId).as('ref_id'), 'path', 'blob_sha', 'last_commit_sha', 'executable']).where('ref_id', '=', fromRefId),
    )
    .execute();
}

/** The default protection GitLab gives a project's default branch on first push: Maintainers push and merge. */
export async function protectDefaultBranch(trx: Trx, projectId: number, branch: string, now: string): Promise<void> {
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

/**
 * Where the commit starts, checked in GitLab's order: `start_sha` (full commit id of this
 * project), else `start_branch` (defaulting to `branch`), which must exist unless the
 * repository is empty.
 */
async function startOf(trx: Trx, project: ProjectRow, input: CommitInput, startBranch: string | undefined, empty: boolean): Promise<Start> {
  if (input.start_sha) {
    if (input.start_branch) fail("You can't pass both start_branch and start_sha");
    if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(input.start_sha)) fail(`Invalid start_sha '${input.start_sha}'`);
    const commit = await selectCommit(trx, project.id, input.start_sha);
    if (!commit) fail(`Cannot find start_sha '${input.start_sha}'`);
    const resolved = await resolveRevision(trx, project.id, commit!.sha);
    if (!resolved?.ref) fail(`Forgelet keeps files only at branch and tag heads; ${input.start_sha} is not one`);
    return { commitSha: commit!.sha, filesFrom: resolved!.ref };
  }
  const ref = startBranch ? await selectBranch(trx, project.id, startBranch) : undefined;
  if (ref) return { commitSha: ref.commit_sha, filesFrom: ref };
  if (!empty) fail('You can only create or edit files when you are on a branch');
  return { commitSha: null };
}

/** Points an existing branch at `start` with `start`'s files (GitLab's `force`). */
async function resetBranch(trx: Trx, branch: RepositoryRefRow, start: Start, now: string): Promise<RepositoryRefRow> {
  if (start.filesFrom?.id === branch.id) return branch;
  await trx.deleteFrom('repository_files').where('ref_id', '=', branch.id).execute();
  if (start.filesFrom) await copyFiles(trx, start.filesFrom.id, branch.id);
  return trx.updateTable('repository_refs').set({ commit_sha: start.commitSha ?? '', updated_at: now }).where('id', '=', branch.id).returningAll().executeTakeFirstOrThrow();
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
  if (!input.commit_message.trim()) throw new BadRequestError('commit_message is empty');
  await replayIfPending(trx, ctx.git, project.id);
  const now = nowIso(ctx);
  const empty = await repositoryIsEmpty(trx, project.id);
  const startBranch = input.start_sha ? input.start_branch : (input.start_branch ?? input.branch);
  const start = await startOf(trx, project, input, startBranch, empty);
  const differentBranch = startBranch !== input.branch || Boolean(input.start_sha);
  let branch = await selectBranch(trx, project.id, input.branch);
  if (!empty && differentBranch && branch && !input.force) {
    fail(`A branch called '${input.branch}' already exists. Switch to that branch in order to make changes`);
  }
  let branchCreated = false;
  const before = branch?.commit_sha || null;
  let parent: string | null;
  if (!branch) {
    if (!validRefName(input.branch)) fail(`Something went wrong when we tried to create '${input.branch}' for you: Branch name is invalid`);
    if (isHexBranchName(input.branch)) fail(HEX_BRANCH_MESSAGE);
    branch = await insertRef(trx, project, 'branch', input.branch, { commitSha: start.commitSha ?? '', filesFrom: start.filesFrom }, now);
    branchCreated = true;
    parent = start.commitSha;
  } else if (differentBranch) {
    branch = await resetBranch(trx, branch, start, now);
    parent = start.commitSha;
  } else {
    parent = branch.commit_sha || null;
  }
  const applied = await applyActions(trx, project, branch, input.actions);
  const user = ctx.actor.user;
  const authorName = input.author_name ?? user?.name ?? 'Forgelet';
  const authorEmail = input.author_email ?? user?.email ?? 'forgelet@localhost';
  const parents = [...(parent ? [parent] : []), ...(input.extraParents ?? [])];
  // git keeps whole seconds (UTC, +0000): the index keeps the same date.
  const date = wholeSeconds(now);
  const ident: Ident = { name: authorName, email: authorEmail, date };
  const sha = await writeCommit(ctx.git, project.id, {
    parents,
    message: input.commit_message,
    author: ident,
    committer: ident,
    ops: applied.ops,
    defaultBranch: project.default_branch,
  });
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
      authored_date: date,
      authored_tz: '+00:00',
      committer_name: authorName,
      committer_email: authorEmail,
      committed_date: date,
      committed_tz: '+00:00',
      user_id: user?.id ?? null,
      created_at: date,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (parents.length) {
    await trx.insertInto('repository_commit_parents').values(parents.map((parent_sha, position) => ({ commit_id: commit.id, parent_sha, position }))).execute();
  }
  if (applied.changes.length) {
    await trx.insertInto('repository_commit_changes').values(applied.changes.map((c) => ({ commit_id: commit.id, ...c }))).execute();
  }
  if (applied.touched.length) {
    await trx.updateTable('repository_files').set({ last_commit_sha: sha }).where('ref_id', '=', branch.id).where('last_commit_sha', '=', '').execute();
  }
  branch = await trx.updateTable('repository_refs').set({ commit_sha: sha, updated_at: now }).where('id', '=', branch.id).returningAll().executeTakeFirstOrThrow();
  await queueRefMove(trx, ctx.git, project.id, { ref: `refs/heads/${input.branch}`, new: sha, old: before });
  await moveMergeRequestHeads(trx, project.id, input.branch, sha, now);
  await recordProjectActivity(trx, project, now); // a push
  if (empty) {
    if (project.default_branch !== input.branch) {
      await trx.updateTable('projects').set({ default_branch: input.branch }).where('id', '=', project.id).execute();
      await queueHead(trx, ctx.git, project.id, input.branch);
    }
    await protectDefaultBranch(trx, project.id, input.branch, now);
  }
  await runRefUpdated(trx, ctx, project, { kind: 'branch', name: input.branch, before, after: sha });
  return { commit, stats: applied.stats, branch, branchCreated, before };
}

/** Checks push access, then records the commit in its own transaction. */
export async function recordCommit(ctx: Ctx, project: ProjectRow, input: CommitInput): Promise<RecordedCommit> {
  await authorizePush(ctx, project, input.branch);
  return repositoryTransaction(ctx, (trx) => recordCommitIn(trx, ctx, project, input));
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
  await runMergeRequestHeadsMoved(trx, projectId, branch, sha, now);
}

/**
 * Creates a branch at a revision (`ref`: branch, tag or sha at a ref head), with the
 * messages of `Branches::CreateService`; `refusal` is the caller's pre-receive verdict.
 */
export async function createBranchIn(
  trx: Trx,
  ctx: Ctx,
  project: ProjectRow,
  name: string,
  revision: string,
  options: { refusal?: string } = {},
): Promise<RepositoryRefRow> {
  if (!validRefName(name)) fail('Branch name is invalid');
  await replayIfPending(trx, ctx.git, project.id);
  if (await selectBranch(trx, project.id, name)) fail('Branch already exists');
  const start = await resolveRevision(trx, project.id, revision);
  if (!start) fail(`Failed to create branch '${name}': invalid reference name '${revision}'`);
  if (isHexBranchName(name)) fail(HEX_BRANCH_MESSAGE);
  // What GitLab's pre-receive checks would refuse (a protected name), decided by the caller.
  if (options.refusal) fail(options.refusal);
  const ref = await insertRef(trx, project, 'branch', name, { commitSha: start!.commit.sha, filesFrom: start!.ref }, nowIso(ctx));
  await queueRefMove(trx, ctx.git, project.id, { ref: `refs/heads/${name}`, new: ref.commit_sha, old: null });
  await moveMergeRequestHeads(trx, project.id, name, start!.commit.sha, nowIso(ctx));
  await recordProjectActivity(trx, project, nowIso(ctx)); // a push of a new branch
  await runRefUpdated(trx, ctx, project, { kind: 'branch', name, before: null, after: ref.commit_sha });
  return ref;
}

/** Creates a tag at a revision; `message` makes it annotated. Messages of `Tags::CreateService`. */
export async function createTagIn(
  trx: Trx,
  ctx: Ctx,
  project: ProjectRow,
  name: string,
  revision: string,
  message?: string | null,
): Promise<{ tag: RepositoryRefRow; target: ResolvedRef }> {
  if (!revision.trim()) fail('Target is empty');
  if (!validRefName(name)) fail('Tag name invalid');
  await replayIfPending(trx, ctx.git, project.id);
  if (await selectTag(trx, project.id, name)) fail(`Tag ${name} already exists`);
  const start = await resolveRevision(trx, project.id, revision);
  if (!start) fail(`Target ${revision} is invalid`);
  const user = ctx.actor.user;
  const tag = await insertRef(trx, project, 'tag', name, { commitSha: start!.commit.sha, filesFrom: start!.ref }, nowIso(ctx), {
    message: message?.trim() || null,
    tagger_name: user?.name,
    tagger_email: user?.email,
  });
  // An annotated tag is a tag object in git; the database keeps the commit it points at.
  const object = tag.message
    ? await writeTagObject(ctx.git, project.id, {
        name,
        commit: tag.commit_sha,
        message: tag.message,
        tagger: { name: user?.name ?? 'Forgelet', email: user?.email ?? 'forgelet@localhost', date: nowIso(ctx) },
      })
    : tag.commit_sha;
  await queueRefMove(trx, ctx.git, project.id, { ref: `refs/tags/${name}`, new: object, old: null });
  await recordProjectActivity(trx, project, nowIso(ctx)); // a push of a new tag
  await runRefUpdated(trx, ctx, project, { kind: 'tag', name, before: null, after: tag.commit_sha });
  return { tag, target: start! };
}

/** Deletes a branch or tag (its files go with it) inside `trx`: a push whose `after` is blank. The caller checked the right to. */
export async function deleteRefIn(trx: Trx, ctx: Ctx, project: ProjectRow, given: RepositoryRefRow): Promise<void> {
  await replayIfPending(trx, ctx.git, project.id);
  const ref = (await selectRef(trx, project.id, given.kind, given.name)) ?? given; // its head as of this transaction (ids may have been remapped)
  await trx.deleteFrom('repository_refs').where('id', '=', ref.id).execute();
  await queueRefMove(trx, ctx.git, project.id, {
    ref: `refs/${ref.kind === 'branch' ? 'heads' : 'tags'}/${ref.name}`,
    new: null,
    // A tag's ref may hold a tag object rather than the commit the database keeps.
    old: ref.kind === 'branch' && ref.commit_sha ? ref.commit_sha : undefined,
  });
  await recordProjectActivity(trx, project, nowIso(ctx)); // a push removing the ref
  await runRefUpdated(trx, ctx, project, { kind: ref.kind, name: ref.name, before: ref.commit_sha || null, after: null });
}

/**
 * Records a commit that no branch points at (a merge request's squash commit), with its
 * parents and the tree of `tree` (a tree-ish: `<commit>^{tree}`).
 */
export async function insertCommitRow(trx: Trx, ctx: Ctx, project: Pick<ProjectRow, 'id'>, message: string, parents: string[], tree: string): Promise<RepositoryCommitRow> {
  const now = wholeSeconds(nowIso(ctx));
  const user = ctx.actor.user;
  const name = user?.name ?? 'Forgelet';
  const email = user?.email ?? 'forgelet@localhost';
  const ident: Ident = { name, email, date: now };
  const sha = await writeCommitWithTree(ctx.git, project.id, { tree, parents, message, author: ident, committer: ident });
  const commit = await trx
    .insertInto('repository_commits')
    .values({
      project_id: project.id,
      sha,
      parent_ids: JSON.stringify(parents),
      title: firstLine(message),
      message,
      author_name: name,
      author_email: email,
      authored_date: now,
      authored_tz: '+00:00',
      committer_name: name,
      committer_email: email,
      committed_date: now,
      committed_tz: '+00:00',
      user_id: user?.id ?? null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (parents.length) {
    await trx.insertInto('repository_commit_parents').values(parents.map((parent_sha, position) => ({ commit_id: commit.id, parent_sha, position }))).execute();
  }
  return commit;
}

/** An ISO date cut to the second, as git keeps commit dates (`…:07.000Z`). */
export function wholeSeconds(iso: string): string {
  return new Date(Math.floor(Date.parse(iso) / 1000) * 1000).toISOString();
}
