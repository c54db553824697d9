/**
 * Rebasing commits in a bare repository without a work tree: each commit is replayed onto
 * the new base as `git cherry-pick` would, by a three-way `git merge-tree --write-tree`.
 *
 * git 2.39 has no `merge-tree --merge-base` (2.40) nor `git replay` (2.44), and merge-tree
 * takes its base from the two commits' history. So each replay merges two scratch commits
 * that share one scratch parent holding the tree of the replayed commit's parent: their only
 * merge base is that parent, and the merge is exactly the cherry-pick (renames found as
 * merge-ort finds them). The scratch commits are unreferenced objects, collected by git's gc.
 *
 * As `git rebase` without options: merge commits are dropped (their changes come with the
 * commits they merged), commits whose change the target already has (same patch id) are
 * skipped, and so is a commit the replay leaves empty. Authors, dates and messages are kept;
 * the committer is who rebased.
 */
import type { GitRepositories } from '../../storage/git.js';
import { EMPTY_TREE_SHA } from '../repository/index.js';

/** Who and when a replayed commit is committed by: a git ident line's `Name <email>` and `<epoch> <zone>`. */
export interface Committer {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  epoch: number;
}

export type RebaseOutcome = { kind: 'rebased'; head: string } | { kind: 'conflict'; commit: string };

interface RawCommit {
  tree: string;
  parents: string[];
  /** `Name <email> <epoch> <zone>` */
  author: string;
  message: Buffer;
}

async function readCommit(git: GitRepositories, projectId: number, sha: string): Promise<RawCommit> {
  const raw = (await git.run(projectId, ['cat-file', 'commit', sha])).stdout;
  const split = raw.indexOf('\n\n');
  const headers = raw.subarray(0, split < 0 ? raw.length : split).toString('utf8').split('\n');
  const commit: RawCommit = { tree: '', parents: [], author: '', message: split < 0 ? Buffer.alloc(0) : raw.subarray(split + 2) };
  for (const line of headers) {
    if (line.startsWith('tree ')) commit.tree = line.slice(5);
    else if (line.startsWith('parent ')) commit.parents.push(line.slice(7));
    else if (line.startsWith('author ')) commit.author = line.slice(7);
  }
  return commit;
}

const SCRATCH_ENV = {
  GIT_AUTHOR_NAME: 'Forgelet',
  GIT_AUTHOR_EMAIL: 'forgelet@localhost',
  GIT_AUTHOR_DATE: '1000000000 +0000',
  GIT_COMMITTER_NAME: 'Forgelet',
  GIT_COMMITTER_EMAIL: 'forgelet@localhost',
  GIT_COMMITTER_DATE: '1000000000 +0000',
};

async function commitTree(git: GitRepositories, projectId: number, tree: string, parents: string[], message: Buffer | string, env: Record<string, string>): Promise<string> {
  const out = await git.run(projectId, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { input: message, env });
  return out.stdout.toString('utf8').trim();
}

const treeOf = async (git: GitRepositories, projectId: number, commit: string) => (await git.run(projectId, ['rev-parse', `${commit}^{tree}`])).stdout.toString('utf8').trim();

/** The tree merging `ours` and `theirs` (`git merge-tree --write-tree`), or null on conflicts. */
export async function mergeTreeOf(git: GitRepositories, projectId: number, ours: string, theirs: string): Promise<string | null> {
  const out = await git.run(projectId, ['merge-tree', '--write-tree', '--no-messages', ours, theirs], { okCodes: [0, 1] });
  if (out.code !== 0) return null;
  return out.stdout.toString('utf8').split('\n', 1)[0]!.trim();
}

/** The tree `pick` gives applied onto `ontoTree` (its parent's tree the base), or null on conflicts. */
async function cherryPickTree(git: GitRepositories, projectId: number, baseTree: string, ontoTree: string, pickTree: string): Promise<string | null> {
  const base = await commitTree(git, projectId, baseTree, [], 'base', SCRATCH_ENV);
  const ours = await commitTree(git, projectId, ontoTree, [base], 'ours', SCRATCH_ENV);
  const theirs = await commitTree(git, projectId, pickTree, [base], 'theirs', SCRATCH_ENV);
  return mergeTreeOf(git, projectId, ours, theirs);
}

/** Is `ancestor` an ancestor of (or equal to) `of`? */
export async function isAncestor(git: GitRepositories, projectId: number, ancestor: string, of: string): Promise<boolean> {
  const out = await git.run(projectId, ['merge-base', '--is-ancestor', ancestor, of], { okCodes: [0, 1] });
  return out.code === 0;
}

/**
 * Replays the commits of `head` that `onto` lacks onto `onto`; answers the new head (`head`
 * itself when it already contains `onto`) or the commit that conflicts. Writes objects only.
 */
export async function rebaseCommits(git: GitRepositories, projectId: number, onto: string, head: string, committer: Committer): Promise<RebaseOutcome> {
  if (await isAncestor(git, projectId, onto, head)) return { kind: 'rebased', head };
  const list = await git.run(projectId, ['rev-list', '--reverse', '--topo-order', '--no-merges', '--right-only', '--cherry-pick', '--end-of-options', `${onto}...${head}`, '--']);
  const picks = list.stdout.toString('utf8').split('\n').filter(Boolean);
  const env = {
    GIT_COMMITTER_NAME: committer.name.replace(/[<>\n\r\0]/g, '').trim() || 'Unknown',
    GIT_COMMITTER_EMAIL: committer.email.replace(/[<>\n\r\0]/g, '').trim(),
    GIT_COMMITTER_DATE: `${committer.epoch} +0000`,
  };
  let parent = onto;
  let parentTree = await treeOf(git, projectId, onto);
  for (const sha of picks) {
    const commit = await readCommit(git, projectId, sha);
    const baseTree = commit.parents.length ? await treeOf(git, projectId, commit.parents[0]!) : EMPTY_TREE_SHA;
    const tree = baseTree === parentTree ? commit.tree : await cherryPickTree(git, projectId, baseTree, parentTree, commit.tree);
    if (tree === null) return { kind: 'conflict', commit: sha };
    // A commit that changes nothing any more is dropped (one that changed nothing to begin with stays).
    if (tree === parentTree && commit.tree !== baseTree) continue;
    const m = /^(.*) <(.*)> (\d+ [+-]\d{4})$/.exec(commit.author);
    const author = m ? { GIT_AUTHOR_NAME: m[1]!, GIT_AUTHOR_EMAIL: m[2]!, GIT_AUTHOR_DATE: m[3]! } : { GIT_AUTHOR_NAME: env.GIT_COMMITTER_NAME, GIT_AUTHOR_EMAIL: env.GIT_COMMITTER_EMAIL, GIT_AUTHOR_DATE: env.GIT_COMMITTER_DATE };
    parent = await commitTree(git, projectId, tree, [parent], commit.message, { ...author, ...env });
    parentTree = tree;
  }
  return { kind: 'rebased', head: parent };
}
