/**
 * Commits: GitLab's `API::Commits` list, show, refs, diff (read from git) and create.
 */
import { repositoryTransaction } from './git-write.js';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { clampPerPage, pageOf, type Page } from '../../kernel/pagination.js';
import type { ProjectRow } from '../../access/project.table.js';
import { commitStats, logCommits, readCommits, refsContaining, treePath, type GitCommitInfo } from '../../storage/git-read.js';
import type { CommitAction } from './commit-actions.js';
import { presentCommit, presentCommitDetail, type CommitDetailEntity, type CommitEntity, type CommitFields, type CommitWithStatsEntity } from './commit.entity.js';
import type { CommitDiffInput, CommitRefsInput, CreateCommitInput, GetCommitInput, ListCommitsInput } from './commits.schema.js';
import { diffCommit, presentDiff, type DiffEntity } from './diffs.js';
import { commitOf, commitOrNull } from './git-revisions.js';
import { findCodeProject } from './repository-access.js';
import { authorizePush, recordCommitIn } from './write-commit.js';
import { runRefPushed } from './push-hooks.js';

/** A commit read from git in the shape the entities present. */
export function commitFields(info: GitCommitInfo): CommitFields {
  return {
    sha: info.sha,
    parent_ids: JSON.stringify(info.parents),
    title: info.message.split('\n', 1)[0]!.trim(),
    message: info.message,
    author_name: info.authorName,
    author_email: info.authorEmail,
    authored_date: info.authoredDate,
    authored_tz: info.authorTz,
    committer_name: info.committerName,
    committer_email: info.committerEmail,
    committed_date: info.committedDate,
    committed_tz: info.committerTz,
  };
}

/**
 * GET /projects/:id/repository/commits: `git log` from `ref_name` (or every branch and tag
 * with `all`), paged by git (`--skip`, `--max-count` one past the page). Like GitLab it sends
 * no totals, only whether a next page exists. An unknown `ref_name` lists nothing.
 */
export async function listCommits(ctx: Ctx, input: ListCommitsInput): Promise<Page<CommitEntity | CommitWithStatsEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const perPage = clampPerPage(input.per_page);
  const page = Math.max(1, input.page);
  const empty = { items: [], page, perPage, total: null, hasNext: false };
  let from: string[] | 'all';
  if (input.all) from = 'all';
  else {
    const sha = await commitOrNull(ctx, project, input.ref_name || project.default_branch, 'ref_name');
    if (!sha) return empty;
    from = [sha];
  }
  const path = input.path === undefined ? undefined : treePath(input.path);
  if (path === null) return empty; // a path outside the tree: no commit touched it
  const commits = await logCommits(ctx.git, project.id, {
    from,
    skip: (page - 1) * perPage,
    maxCount: perPage + 1,
    path: path || undefined,
    since: input.since,
    until: input.until,
    author: input.author,
    firstParent: input.first_parent,
    order: input.order === 'topo' ? 'topo' : 'default',
  });
  const hasNext = commits.length > perPage;
  const shown = commits.slice(0, perPage);
  const stats = input.with_stats ? await commitStats(ctx.git, project.id, shown.map((c) => c.sha)) : undefined;
  const items = shown.map((c) => {
    const entity = presentCommit(ctx.urls, project, commitFields(c), { trailers: input.trailers });
    return stats ? { ...entity, stats: stats.get(c.sha)! } : entity;
  });
  return { items, page, perPage, total: null, hasNext };
}

/** The commit `revision` names, read from git; 404 Commit when git does not know it. */
export async function findGitCommit(ctx: Ctx, project: ProjectRow, revision: string, field = 'sha'): Promise<GitCommitInfo> {
  const sha = await commitOf(ctx, project, revision, { field, notFound: 'Commit' });
  const [info] = await readCommits(ctx.git, project.id, [sha]);
  if (!info) throw new NotFoundError('Commit');
  return info;
}

/** GET /projects/:id/repository/commits/:sha (a sha, branch or tag). */
export async function getCommit(ctx: Ctx, input: GetCommitInput): Promise<CommitDetailEntity> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await findGitCommit(ctx, project, input.sha);
  const stats = input.stats ? (await commitStats(ctx.git, project.id, [commit.sha])).get(commit.sha) : undefined;
  return presentCommitDetail(ctx.urls, project, commitFields(commit), { stats });
}

export interface CommitRefEntity {
  type: 'branch' | 'tag';
  name: string;
}

/** GET /projects/:id/repository/commits/:sha/refs: branches, then tags, whose history holds the commit (git's `--contains`). */
export async function listCommitRefs(ctx: Ctx, input: CommitRefsInput): Promise<Page<CommitRefEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await commitOf(ctx, project, input.sha, { field: 'sha', notFound: 'Commit' });
  const kinds: Array<'branch' | 'tag'> = input.type === 'all' ? ['branch', 'tag'] : [input.type];
  const refs = await refsContaining(ctx.git, project.id, commit, kinds);
  refs.sort((x, y) => (x.type === y.type ? 0 : x.type === 'branch' ? -1 : 1));
  return pageOf(refs, input);
}

/** GET /projects/:id/repository/commits/:sha/diff: the commit's diff against its first parent, paged (GitLab's limits apply first). */
export async function getCommitDiff(ctx: Ctx, input: CommitDiffInput): Promise<Page<DiffEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const commit = await commitOf(ctx, project, input.sha, { field: 'sha', notFound: 'Commit' });
  const { diffs } = await diffCommit(ctx.git, project.id, commit);
  return pageOf(diffs.map((d) => presentDiff(d, { unidiff: input.unidiff })), input);
}

/** GitLab's `validate_commit_action!`: what each action needs beyond the declared types. */
function checkActions(actions: CreateCommitInput['actions']): void {
  if (!actions.length) throw new BadRequestError('actions is required');
  actions.forEach((action, i) => {
    if (action.action === 'update' && action.content === undefined) throw new BadRequestError(`actions[${i}][content] is required for update action`);
    if (action.action === 'move' && !action.previous_path) throw new BadRequestError(`actions[${i}][previous_path] is required for move action`);
    if (action.action === 'chmod' && action.execute_filemode === undefined) throw new BadRequestError(`actions[${i}][execute_filemode] is required for chmod action`);
  });
}

/**
 * POST /projects/:id/repository/commits: 201 with the commit. 403 `You are not allowed to
 * push into this branch` without push access to `branch`; problems with the actions or
 * branches are 400 with GitLab's messages.
 */
export async function createCommit(ctx: Ctx, input: CreateCommitInput): Promise<CommitDetailEntity> {
  const project = await findCodeProject(ctx, input.id);
  await authorizePush(ctx, project, input.branch);
  checkActions(input.actions);
  const done = await repositoryTransaction(ctx, (trx) =>
    recordCommitIn(trx, ctx, project, {
      branch: input.branch,
      start_branch: input.start_branch,
      start_sha: input.start_sha,
      commit_message: input.commit_message,
      actions: input.actions as CommitAction[],
      author_email: input.author_email,
      author_name: input.author_name,
      force: input.force,
    }),
  );
  await runRefPushed(ctx, project, { kind: 'branch', name: input.branch, message: input.commit_message, before: done.before });
  return presentCommitDetail(ctx.urls, project, done.commit, { stats: input.stats ? done.stats : undefined });
}
