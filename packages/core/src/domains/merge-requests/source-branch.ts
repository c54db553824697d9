/**
 * Merge requests and the repository: a merge request's `sha` is its source branch's head
 * (empty, shown as null, while the branch does not exist: GitLab accepts such merge requests;
 * commits and new branches fill it in), and merging writes git commits on the target built
 * from `git merge-tree --write-tree` of the two heads, so a merge works however far the
 * target moved on, and conflicts refuse it.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import { UnprocessableError } from '../../kernel/errors.js';
import { advanceBranchIn, loadBranchRules, selectBranch, writeCommitWithTree, type Ident, type RepositoryRefRow } from '../repository/index.js';
import type { MergeRequestRow } from './merge-request.table.js';
import { latestDiffOf } from './merge-request-diffs.js';
import { mergeTreeOf } from './rebase-commits.js';

/** GitLab's answer (422) to a merge its git checks refuse. */
export const CANNOT_MERGE = 'Branch cannot be merged';

type Trx = Kysely<Database>;

/** The head of `branch`, or '' when it does not exist. */
export async function sourceBranchHead(trx: Trx, projectId: number, branch: string): Promise<string> {
  return (await selectBranch(trx, projectId, branch))?.commit_sha || '';
}

export interface MergeOutcome {
  /** Null for a fast-forward (GitLab's ff merge sets no merge commit). */
  mergeCommitSha: string | null;
  squashCommitSha: string | null;
}

/**
 * Records the merge of `mr` (both branches exist) inside `trx`: with squash, first one commit
 * holding the source's changes on the diff's start (Gitaly's UserSquash: its parent is the
 * start, its tree the start merged with the source head), then the merge commit on the
 * target (parents: target head, then the source head or the squash commit; tree: the two
 * merged), or with `fastForward` the target moves to the source head (or the squash commit)
 * and there is no merge commit. The target branch moves by compare-and-swap when `trx`
 * commits. Conflicts: 422 `Branch cannot be merged`, as GitLab's API answers a merge that
 * failed.
 */
export async function recordMerge(
  trx: Trx,
  ctx: Ctx,
  project: ProjectRow,
  mr: MergeRequestRow,
  source: RepositoryRefRow,
  target: RepositoryRefRow,
  options: { squash: boolean; fastForward?: boolean; mergeCommitMessage?: string; squashCommitMessage?: string },
): Promise<MergeOutcome> {
  const user = ctx.actor.user;
  const ident: Ident = { name: user?.name ?? 'Forgelet', email: user?.email ?? 'forgelet@localhost', date: nowIso(ctx) };
  let squashCommitSha: string | null = null;
  let incoming = source.commit_sha;
  if (options.squash) {
    // A fast-forward squashes onto the target head itself, so that the target can move to it.
    const start = options.fastForward ? target.commit_sha : (await latestDiffOf(trx, mr.id))?.start_commit_sha || target.commit_sha;
    const tree = await mergeTreeOf(ctx.git, project.id, start, source.commit_sha);
    if (!tree) throw new UnprocessableError(CANNOT_MERGE);
    squashCommitSha = await writeCommitWithTree(ctx.git, project.id, { tree, parents: [start], message: options.squashCommitMessage ?? mr.title, author: ident, committer: ident });
    incoming = squashCommitSha;
  }
  if (options.fastForward) {
    await advanceBranchIn(trx, ctx, project, target.name, incoming);
    return { mergeCommitSha: null, squashCommitSha };
  }
  const tree = await mergeTreeOf(ctx.git, project.id, target.commit_sha, incoming);
  if (!tree) throw new UnprocessableError(CANNOT_MERGE);
  const reference = `${project.path_with_namespace}!${mr.iid}`;
  const message =
    options.mergeCommitMessage ??
    [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title, mr.description?.trim() || null, `See merge request ${reference}`]
      .filter(Boolean)
      .join('\n\n');
  const mergeCommitSha = await writeCommitWithTree(ctx.git, project.id, { tree, parents: [target.commit_sha, incoming], message, author: ident, committer: ident });
  await advanceBranchIn(trx, ctx, project, target.name, mergeCommitSha);
  return { mergeCommitSha, squashCommitSha };
}

/**
 * May the source branch go after a merge? Not the default branch nor a protected one (GitLab
 * keeps those). Read before the merge's transaction.
 */
export async function sourceBranchRemovable(ctx: Ctx, project: ProjectRow, source: RepositoryRefRow): Promise<boolean> {
  if (source.name === project.default_branch) return false;
  const rules = await loadBranchRules(ctx, project);
  return rules.matching(source.name).length === 0;
}
