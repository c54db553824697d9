/**
 * `API::Repositories` reads that span commits: compare, merge base, contributors. All from git.
 */
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { pageOf, paginationParams, type Page } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { commitsBetween, isSafeRevision, logCommits, mergeBaseOf, readCommits, resolveCommit } from '../../storage/git-read.js';
import { presentCommit, type CommitEntity } from './commit.entity.js';
import { commitFields } from './commits.js';
import { diffCommits, presentDiff, type DiffEntity } from './diffs.js';
import { commitOf } from './git-revisions.js';
import { findCodeProject } from './repository-access.js';

export const CompareInput = params({
  id: p.string(),
  from: p.string().nonBlank().describe('Commit, branch or tag to start from.'),
  to: p.string().nonBlank().describe('Commit, branch or tag to stop at.'),
  from_project_id: p.integer().optional().describe('The project `from` is in (this project: Forgelet has no forks).'),
  straight: p.boolean().default(false).describe('`true`: diff `from`..`to`; `false`: from their merge base (`from`...`to`).'),
  unidiff: p.boolean().default(false).describe('Patches with `---`/`+++` lines.'),
});
export type CompareInput = InferShape<typeof CompareInput.shape>;

export interface CompareEntity {
  commit: CommitEntity | null;
  commits: CommitEntity[];
  diffs: DiffEntity[];
  compare_timeout: boolean;
  compare_same_ref: boolean;
  web_url: string;
}

/** GitLab's `Compare` lists at most this many commits (`Gitlab::Git::Compare` via Gitaly's limit). */
const COMPARE_COMMITS_MAX = 10_000;

/** GET /projects/:id/repository/compare: commits `from..to` (oldest first), diffs from the merge base unless `straight`. */
export async function compare(ctx: Ctx, input: CompareInput): Promise<CompareEntity> {
  const project = await findCodeProject(ctx, input.id);
  if (input.from_project_id !== undefined && input.from_project_id !== project.id) {
    // Only a project's fork network may be compared against; Forgelet has no forks.
    throw new BadRequestError(`Target project id:${input.from_project_id} is not a fork of project id:${input.id}`, { raw: true });
  }
  const resolve = (rev: string) => (isSafeRevision(rev) ? resolveCommit(ctx.git, project.id, rev) : Promise.resolve(null));
  const [from, to] = await Promise.all([resolve(input.from), resolve(input.to)]);
  if (!from || !to) throw new NotFoundError('Ref');
  const same = from === to;
  const commits = same ? [] : (await commitsBetween(ctx.git, project.id, from, to, COMPARE_COMMITS_MAX)).reverse();
  const base = input.straight ? from : await mergeBaseOf(ctx.git, project.id, [from, to]);
  const { diffs, overflow } = same ? { diffs: [], overflow: false } : await diffCommits(ctx.git, project.id, { from: base, to });
  const presented = commits.map((c) => presentCommit(ctx.urls, project, commitFields(c)));
  return {
    commit: presented[presented.length - 1] ?? null,
    commits: presented,
    diffs: diffs.map((d) => presentDiff(d, { unidiff: input.unidiff })),
    compare_timeout: overflow,
    compare_same_ref: same,
    web_url: ctx.urls.web(`/${project.path_with_namespace}/-/compare/${from}...${to}`),
  };
}

export const MergeBaseInput = params({ id: p.string(), refs: p.array(p.string()).commaSeparated().describe('Two or more commits, branches or tags.') });
export type MergeBaseInput = InferShape<typeof MergeBaseInput.shape>;

/** GET /projects/:id/repository/merge_base: 400 for fewer than 2 refs or unknown refs, 404 `Merge Base` when unrelated. */
export async function mergeBase(ctx: Ctx, input: MergeBaseInput): Promise<CommitEntity> {
  const project = await findCodeProject(ctx, input.id);
  if (input.refs.length < 2) throw new BadRequestError('Provide at least 2 refs', { raw: true });
  const shas = await Promise.all(input.refs.map((ref) => (isSafeRevision(ref) ? resolveCommit(ctx.git, project.id, ref) : Promise.resolve(null))));
  const unknown = input.refs.filter((_, i) => !shas[i]);
  if (unknown.length) throw new BadRequestError(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`, { raw: true });
  const base = await mergeBaseOf(ctx.git, project.id, shas as string[]);
  const [commit] = base ? await readCommits(ctx.git, project.id, [base]) : [];
  if (!commit) throw new NotFoundError('Merge Base');
  return presentCommit(ctx.urls, project, commitFields(commit));
}

export const ContributorsInput = params({
  id: p.string(),
  ref: p.string().optional().describe('Branch, tag or commit; the default branch when absent.'),
  order_by: p.enum(['email', 'name', 'commits']).default('commits'),
  sort: p.enum(['asc', 'desc']).default('asc'),
  ...paginationParams,
});
export type ContributorsInput = InferShape<typeof ContributorsInput.shape>;

export interface ContributorEntity {
  name: string;
  email: string;
  commits: number;
  additions: number;
  deletions: number;
}

/** GitLab's `Repository#contributors` looks at this many newest commits (merges skipped). */
const CONTRIBUTOR_COMMITS = 2000;

/** GET /projects/:id/repository/contributors: authors by email (name of their newest commit), commit counts; additions/deletions are 0 as in GitLab. */
export async function listContributors(ctx: Ctx, input: ContributorsInput): Promise<Page<ContributorEntity>> {
  const project = await findCodeProject(ctx, input.id);
  const sha = await commitOf(ctx, project, input.ref, { field: 'ref', notFound: null });
  const commits = await logCommits(ctx.git, project.id, { from: [sha], maxCount: CONTRIBUTOR_COMMITS, noMerges: true });
  const byEmail = new Map<string, ContributorEntity>();
  for (const c of commits) {
    const entry = byEmail.get(c.authorEmail) ?? { name: c.authorName, email: c.authorEmail, commits: 0, additions: 0, deletions: 0 };
    entry.commits += 1;
    byEmail.set(c.authorEmail, entry);
  }
  const key = input.order_by;
  const list = [...byEmail.values()].sort((a, b) => {
    const cmp = key === 'commits' ? a.commits - b.commits : a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0;
    return input.sort === 'asc' ? cmp : -cmp;
  });
  return pageOf(list, input);
}
