/**
 * GET /projects/:id/merge_requests/:iid/versions, /versions/:version_id, /commits, /changes,
 * /diffs and /raw_diffs, from the recorded diff versions and git (GitLab's
 * `API::MergeRequestDiffs`, and the commits and diffs of `merge_request.merge_request_diff`):
 * a version's diff is base..head, through the repository's diff module (GitLab's limits).
 */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { clampPerPage, paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { diffCommits, presentDiff, presentCommit, type CommitEntity, type DiffCollection, type DiffEntity } from '../repository/index.js';
import { presentMergeRequest } from './present-merge-requests.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import { findMergeRequest } from './find-merge-request.js';
import { latestDiffOf } from './merge-request-diffs.js';
import type { MergeRequestDiffRow } from './merge-request.table.js';
import type { ProjectRow } from '../../access/project.table.js';

/** GitLab's `Entities::MergeRequestDiff`. */
export interface MergeRequestVersionEntity {
  id: number;
  head_commit_sha: string | null;
  base_commit_sha: string | null;
  start_commit_sha: string | null;
  created_at: string;
  merge_request_id: number;
  state: string;
  real_size: string | null;
  patch_id_sha: string | null;
}

export function toVersionEntity(row: MergeRequestDiffRow): MergeRequestVersionEntity {
  return {
    id: row.id,
    head_commit_sha: row.head_commit_sha,
    base_commit_sha: row.base_commit_sha,
    start_commit_sha: row.start_commit_sha,
    created_at: row.created_at,
    merge_request_id: row.merge_request_id,
    state: row.state,
    real_size: row.real_size,
    patch_id_sha: row.patch_id_sha,
  };
}

/** The commits of a version, newest first (`git rev-list start..head`, GitLab's merge_request_diff_commits order). */
export async function versionCommitShas(ctx: Ctx, projectId: number, diff: MergeRequestDiffRow | undefined): Promise<string[]> {
  if (!diff?.head_commit_sha || !diff.start_commit_sha || diff.commits_count === 0) return [];
  const out = await ctx.git.run(projectId, ['rev-list', `${diff.start_commit_sha}..${diff.head_commit_sha}`]);
  return out.stdout.toString('utf8').split('\n').filter(Boolean);
}

/** Commit entities for shas, in their order (rows from the repository's index). */
export async function commitEntities(ctx: Ctx, project: ProjectRow, shas: string[]): Promise<CommitEntity[]> {
  if (!shas.length) return [];
  const rows = await ctx.db.selectFrom('repository_commits').selectAll().where('project_id', '=', project.id).where('sha', 'in', shas).execute();
  const bySha = new Map(rows.map((r) => [r.sha, r]));
  return shas.flatMap((sha) => {
    const row = bySha.get(sha);
    return row ? [presentCommit(ctx.urls, project, row, { trailers: false })] : [];
  });
}

/** One page of a list git gave (a version's commits or diffs, bounded by GitLab's limits). */
export function pageOf<T>(items: T[], req: PageRequest): Page<T> {
  const perPage = clampPerPage(req.per_page);
  const page = Math.max(1, req.page);
  const offset = (page - 1) * perPage;
  return { items: items.slice(offset, offset + perPage), page, perPage, total: items.length, hasNext: offset + perPage < items.length, offset };
}

export async function listVersions(ctx: Ctx, input: { id: string; merge_request_iid: number } & PageRequest): Promise<Page<MergeRequestVersionEntity>> {
  const { mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const query = ctx.db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mergeRequest.id).orderBy('id', 'desc');
  return paginate(ctx.db, query, input, (rows) => rows.map(toVersionEntity));
}

/** GitLab's `Entities::MergeRequestDiffFull`: the version with its commits and (unlimited) diffs. */
export interface MergeRequestVersionDetailEntity extends MergeRequestVersionEntity {
  commits: CommitEntity[];
  diffs: DiffEntity[];
}

/** The diff base..head of a version (none for an empty one). */
async function versionDiffs(ctx: Ctx, projectId: number, diff: MergeRequestDiffRow | undefined, options: { limits?: false } = {}): Promise<DiffCollection> {
  if (!diff?.head_commit_sha || !diff.base_commit_sha || diff.base_commit_sha === diff.head_commit_sha) return { diffs: [], overflow: false };
  return diffCommits(ctx.git, projectId, { from: diff.base_commit_sha, to: diff.head_commit_sha, expanded: true, ...(options.limits === false && { limits: false }) });
}

export async function getVersion(ctx: Ctx, input: { id: string; merge_request_iid: number; version_id: number; unidiff: boolean }): Promise<MergeRequestVersionDetailEntity> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const row = await ctx.db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mergeRequest.id).where('id', '=', input.version_id).executeTakeFirst();
  // ActiveRecord::RecordNotFound, as Grape renders it.
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  const commits = await commitEntities(ctx, project, await versionCommitShas(ctx, project.id, row));
  const { diffs } = await versionDiffs(ctx, project.id, row, { limits: false });
  return { ...toVersionEntity(row), commits, diffs: diffs.map((d) => presentDiff(d, { unidiff: input.unidiff })) };
}

/** GitLab's `Entities::MergeRequestChanges`: the merge request with its newest version's diffs. */
export interface MergeRequestChangesEntity extends MergeRequestDetailEntity {
  changes: DiffEntity[];
  overflow: boolean;
}

/**
 * GET …/changes (deprecated in GitLab, still used): `access_raw_diffs` lifts the limits (and
 * `overflow` is then false), as GitLab reads them from Gitaly instead of the stored collection.
 */
export async function getMergeRequestChanges(ctx: Ctx, input: { id: string; merge_request_iid: number; access_raw_diffs: boolean; unidiff: boolean }): Promise<MergeRequestChangesEntity> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const entity = await presentMergeRequest(ctx, mergeRequest, project);
  const collection = await versionDiffs(ctx, project.id, await latestDiffOf(ctx.db, mergeRequest.id), { ...(input.access_raw_diffs && { limits: false as const }) });
  return { ...entity, changes: collection.diffs.map((d) => presentDiff(d, { unidiff: input.unidiff })), overflow: input.access_raw_diffs ? false : collection.overflow };
}

/** GET …/diffs: the newest version's diffs, paged. */
export async function listMergeRequestDiffs(ctx: Ctx, input: { id: string; merge_request_iid: number; unidiff: boolean } & PageRequest): Promise<Page<DiffEntity>> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const { diffs } = await versionDiffs(ctx, project.id, await latestDiffOf(ctx.db, mergeRequest.id));
  const page = pageOf(diffs, input);
  return { ...page, items: page.items.map((d) => presentDiff(d, { unidiff: input.unidiff })) };
}

/** GET …/raw_diffs: `git diff --full-index base head` as text (Gitaly's RawDiff of the diff refs). */
export async function rawMergeRequestDiffs(ctx: Ctx, input: { id: string; merge_request_iid: number }): Promise<string> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const diff = await latestDiffOf(ctx.db, mergeRequest.id);
  if (!diff?.base_commit_sha || !diff.head_commit_sha) return '';
  return (await ctx.git.run(project.id, ['diff', '--full-index', diff.base_commit_sha, diff.head_commit_sha])).stdout.toString('utf8');
}

/** GET …/commits: the newest version's commits, newest first, paged. */
export async function listMergeRequestCommits(ctx: Ctx, input: { id: string; merge_request_iid: number } & PageRequest): Promise<Page<CommitEntity>> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const shas = await versionCommitShas(ctx, project.id, await latestDiffOf(ctx.db, mergeRequest.id));
  const page = pageOf(shas, input);
  return { ...page, items: await commitEntities(ctx, project, page.items) };
}
