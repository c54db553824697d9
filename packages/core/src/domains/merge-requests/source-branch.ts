/**
 * Merge requests and the repository: a merge request's `sha` is its source branch's head
 * (empty, shown as null, while the branch does not exist: GitLab accepts such merge requests;
 * commits and new branches fill it in), and merging records a merge commit on the target.
 *
 * Forgelet keeps only the latest files of each branch, so a merge takes from the source
 * the files "changed since the branches diverged" by this rule: a source file whose last
 * commit the target's history does not contain is written to the target (the source wins
 * where both changed a file: there are no conflicts), and a target file missing on the
 * source whose last commit the source's history contains is deleted (the source removed it).
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import {
  ancestryCte,
  insertCommitRow,
  loadBranchRules,
  mergeBase,
  recordCommitIn,
  selectBranch,
  type CommitAction,
  type RepositoryRefRow,
} from '../repository/index.js';
import type { MergeRequestRow } from './merge-request.table.js';

type Trx = Kysely<Database>;

/** The head of `branch`, or '' when it does not exist. */
export async function sourceBranchHead(trx: Trx, projectId: number, branch: string): Promise<string> {
  return (await selectBranch(trx, projectId, branch))?.commit_sha ?? '';
}

/** Source files the target does not have in that version (last changed after the branches diverged). */
function changedOnSourceQuery(trx: Trx, projectId: number, source: RepositoryRefRow, target: RepositoryRefRow) {
  return trx
    .withRecursive('anc(sha)', () => ancestryCte(projectId, { sha: target.commit_sha }))
    .selectFrom('repository_files as f')
    .where('f.ref_id', '=', source.id)
    .where('f.last_commit_sha', 'not in', (eb) => eb.selectFrom('anc').select('anc.sha'));
}

/** Target files the source deleted: absent there, in a version the source's history has seen. */
function deletedOnSourceQuery(trx: Trx, projectId: number, source: RepositoryRefRow, target: RepositoryRefRow) {
  return trx
    .withRecursive('anc(sha)', () => ancestryCte(projectId, { sha: source.commit_sha }))
    .selectFrom('repository_files as t')
    .where('t.ref_id', '=', target.id)
    .where('t.last_commit_sha', 'in', (eb) => eb.selectFrom('anc').select('anc.sha'))
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('repository_files as s').select('s.id').where('s.ref_id', '=', source.id).whereRef('s.path', '=', 't.path'))),
    );
}

async function changedOnSource(trx: Trx, projectId: number, source: RepositoryRefRow, target: RepositoryRefRow) {
  return changedOnSourceQuery(trx, projectId, source, target)
    .innerJoin('repository_blobs as b', (j) => j.onRef('b.sha', '=', 'f.blob_sha').on('b.project_id', '=', projectId))
    .select(['f.path', 'f.executable', 'f.last_commit_sha', 'b.content'])
    .orderBy('f.path')
    .execute();
}

async function deletedOnSource(trx: Trx, projectId: number, source: RepositoryRefRow, target: RepositoryRefRow) {
  return deletedOnSourceQuery(trx, projectId, source, target).select('t.path').orderBy('t.path').execute();
}

/** GitLab's diff limit on files (Commit.max_diff_options): beyond it `changes_count` reads `1000+`. */
export const MAX_DIFF_FILES = 1000;

/** GitLab's `diff_refs` and `changes_count` (MergeRequestDiff#real_size) of a merge request. */
export interface MergeRequestDiff {
  diff_refs: { base_sha: string | null; head_sha: string | null; start_sha: string | null };
  changes_count: string | null;
}

const realSize = (files: number) => (files > MAX_DIFF_FILES ? `${MAX_DIFF_FILES}+` : String(files));

/**
 * The merge request's diff as GitLab keeps it: from the target branch head (`start_sha`) and
 * their merge base (`base_sha`) to the source head (`head_sha`), and how many files it changes
 * (the files a merge would write or delete). A merged merge request keeps the diff it was
 * merged with: the merge commit's first parent and its changes. No commits ahead of the
 * target: refs but no count (GitLab's empty diff); a branch gone: what is still known.
 */
export async function mergeRequestDiff(db: Trx, mr: MergeRequestRow): Promise<MergeRequestDiff> {
  const projectId = mr.project_id;
  const head = mr.sha || null;
  if (mr.state === 'merged' && mr.merge_commit_sha) {
    const merge = await db.selectFrom('repository_commits').select(['id', 'parent_ids']).where('project_id', '=', projectId).where('sha', '=', mr.merge_commit_sha).executeTakeFirst();
    if (merge) {
      const start = (JSON.parse(merge.parent_ids) as string[])[0] ?? null;
      const base = start && head ? ((await mergeBase(db, projectId, start, head)) ?? null) : null;
      const changes = await db.selectFrom('repository_commit_changes').select((eb) => eb.fn.countAll<number>().as('n')).where('commit_id', '=', merge.id).executeTakeFirstOrThrow();
      return { diff_refs: { base_sha: base, head_sha: head, start_sha: start }, changes_count: realSize(Number(changes.n)) };
    }
  }
  const target = await selectBranch(db, projectId, mr.target_branch);
  const source = mr.state === 'merged' ? undefined : await selectBranch(db, mr.source_project_id, mr.source_branch);
  const start = target?.commit_sha || null;
  const base = start && head ? ((await mergeBase(db, projectId, start, head)) ?? null) : null;
  const diffRefs = { base_sha: base, head_sha: head, start_sha: start };
  if (!target || !source || !head || base === head) return { diff_refs: diffRefs, changes_count: null };
  const changed = await changedOnSourceQuery(db, projectId, source, target).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const deleted = await deletedOnSourceQuery(db, projectId, source, target).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return { diff_refs: diffRefs, changes_count: realSize(Number(changed.n) + Number(deleted.n)) };
}

export interface MergeOutcome {
  mergeCommitSha: string;
  squashCommitSha: string | null;
}

/**
 * Records the merge of `mr` (both branches exist) inside `trx`: a squash commit first when
 * asked, then the merge commit on the target (parents: target head, source head or squash
 * commit). Merged files keep the source's last commit for `last_commit_id`, as `git log` does.
 */
export async function recordMerge(
  trx: Trx,
  ctx: Ctx,
  project: ProjectRow,
  mr: MergeRequestRow,
  source: RepositoryRefRow,
  target: RepositoryRefRow,
  options: { squash: boolean; mergeCommitMessage?: string; squashCommitMessage?: string },
): Promise<MergeOutcome> {
  const changed = await changedOnSource(trx, project.id, source, target);
  const deleted = await deletedOnSource(trx, project.id, source, target);
  const onTarget = new Set(
    changed.length
      ? (await trx.selectFrom('repository_files').select('path').where('ref_id', '=', target.id).where('path', 'in', changed.map((f) => f.path)).execute()).map((r) => r.path)
      : [],
  );
  let squashCommitSha: string | null = null;
  if (options.squash) {
    const base = await mergeBase(trx, project.id, target.commit_sha, source.commit_sha);
    const squash = await insertCommitRow(trx, ctx, project, options.squashCommitMessage ?? mr.title, base ? [base] : [], `${source.commit_sha}^{tree}`);
    squashCommitSha = squash.sha;
  }
  const actions: CommitAction[] = [
    ...changed.map((f): CommitAction => ({
      action: onTarget.has(f.path) ? 'update' : 'create',
      file_path: f.path,
      content: f.content,
      encoding: 'base64',
      execute_filemode: f.executable === 1,
    })),
    ...deleted.map((f): CommitAction => ({ action: 'delete', file_path: f.path })),
  ];
  const reference = `${project.path_with_namespace}!${mr.iid}`;
  const message =
    options.mergeCommitMessage ??
    [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title, mr.description?.trim() || null, `See merge request ${reference}`]
      .filter(Boolean)
      .join('\n\n');
  const done = await recordCommitIn(trx, ctx, project, {
    branch: target.name,
    commit_message: message,
    actions,
    extraParents: [squashCommitSha ?? source.commit_sha],
  });
  for (const f of changed) {
    await trx
      .updateTable('repository_files')
      .set({ last_commit_sha: squashCommitSha ?? f.last_commit_sha })
      .where('ref_id', '=', done.branch.id)
      .where('path', '=', f.path)
      .execute();
  }
  return { mergeCommitSha: done.commit.sha, squashCommitSha };
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
