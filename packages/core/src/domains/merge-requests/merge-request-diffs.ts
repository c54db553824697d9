/**
 * A merge request's diff versions and mergeability, from git (GitLab's MergeRequestDiff and
 * MergeabilityCheckService):
 *
 * - Each time the source head moves (creation, a commit or a push to the source branch, a new
 *   target branch, reopening) a version is recorded in the same transaction: `start` the
 *   target head, `base` their merge base, `head` the source head, `real_size` the files the
 *   diff base..head changes (`1000+` past GitLab's limit) and the commits start..head. Its
 *   `patch_id_sha` is left to the queue: `git diff --full-index base head | git patch-id
 *   --stable`, as Gitaly's GetPatchID computes it (none for an empty diff).
 * - A move of either branch makes the merge request `unchecked` (GitLab's `mark_as_unchecked`).
 *   Reading an unchecked open merge request makes it `checking` and queues the check (GitLab's
 *   `check_mergeability(async: true)` in the API entity), which settles it on `can_be_merged`
 *   or `cannot_be_merged` by `git merge-tree --write-tree` of the two heads.
 */
import type { Kysely } from 'kysely';
import type { Ctx, Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { GitRepositories } from '../../storage/git.js';
import type { PushHooks, RefUpdate } from '../repository/index.js';
import { selectBranch } from '../repository/index.js';
import type { MergeRequestDiffRow, MergeRequestRow, MergeStatus } from './merge-request.table.js';
import { registerRebaseJob } from './rebase-merge-request.js';
import { isAncestor } from './rebase-commits.js';

type Trx = Kysely<Database>;

/** GitLab's diff limit on files (Commit.max_diff_options): beyond it `real_size` reads `1000+`. */
export const MAX_DIFF_FILES = 1000;
export const PATCH_ID_JOB = 'merge_requests.patch_id';
export const MERGEABILITY_JOB = 'merge_requests.mergeability';

/** The merge base of two commits, or null (unrelated histories). */
export async function mergeBaseOf(git: GitRepositories, projectId: number, a: string, b: string): Promise<string | null> {
  const out = await git.run(projectId, ['merge-base', a, b], { okCodes: [0, 1] });
  return out.code === 0 ? out.stdout.toString('utf8').trim() || null : null;
}

/** Paths the diff `from..to` changes (renames found, as GitLab's diffs), counted. */
async function changedFileCount(git: GitRepositories, projectId: number, from: string, to: string): Promise<number> {
  const out = await git.run(projectId, ['diff', '--name-only', '-z', '-M', from, to]);
  return out.stdout.toString('utf8').split('\0').filter(Boolean).length;
}

async function commitCount(git: GitRepositories, projectId: number, from: string, to: string): Promise<number> {
  const out = await git.run(projectId, ['rev-list', '--count', `${from}..${to}`]);
  return Number(out.stdout.toString('utf8').trim()) || 0;
}

/** `git diff --full-index base head | git patch-id --stable` (Gitaly's GetPatchID); null for an empty diff. */
export async function patchIdOf(git: GitRepositories, projectId: number, base: string, head: string): Promise<string | null> {
  if (base === head) return null;
  const diff = await git.run(projectId, ['diff', '--full-index', base, head]);
  if (!diff.stdout.length) return null;
  const out = await git.run(projectId, ['patch-id', '--stable'], { input: diff.stdout });
  return out.stdout.toString('utf8').split(' ', 1)[0]!.trim() || null;
}

/** The newest version of each merge request, by merge request id. */
export async function latestDiffsOf(db: Trx, mergeRequestIds: number[]): Promise<Map<number, MergeRequestDiffRow>> {
  const out = new Map<number, MergeRequestDiffRow>();
  if (!mergeRequestIds.length) return out;
  const rows = await db
    .selectFrom('merge_request_diffs')
    .selectAll()
    .where('id', 'in', (eb) => eb.selectFrom('merge_request_diffs').select((s) => s.fn.max('id').as('id')).where('merge_request_id', 'in', mergeRequestIds).groupBy('merge_request_id'))
    .execute();
  for (const r of rows) out.set(r.merge_request_id, r);
  return out;
}

export async function latestDiffOf(db: Trx, mergeRequestId: number): Promise<MergeRequestDiffRow | undefined> {
  return db.selectFrom('merge_request_diffs').selectAll().where('merge_request_id', '=', mergeRequestId).orderBy('id', 'desc').limit(1).executeTakeFirst();
}

type DiffSubject = Pick<MergeRequestRow, 'id' | 'project_id' | 'target_branch' | 'sha'>;

/**
 * Records a new version of `mr`'s diff (its `sha` the source head) against the target branch
 * as `trx` sees it, unless the newest one has the same shas; queues its patch id. No version
 * while the source branch has no head.
 */
export async function recordDiffVersion(trx: Trx, deps: Pick<Deps, 'git' | 'queue'>, mr: DiffSubject, now: string): Promise<MergeRequestDiffRow | null> {
  const head = mr.sha || null;
  if (!head) return null;
  const git = deps.git;
  const start = (await selectBranch(trx, mr.project_id, mr.target_branch))?.commit_sha || null;
  const base = start ? await mergeBaseOf(git, mr.project_id, start, head) : null;
  const latest = await latestDiffOf(trx, mr.id);
  if (latest && latest.head_commit_sha === head && latest.start_commit_sha === start && latest.base_commit_sha === base) return latest;
  // GitLab's save_diffs: no commits → `empty` without a size; commits without file changes
  // stay `empty` with size 0; past the file limit `overflow`.
  let state = 'empty';
  let realSize: string | null = null;
  let commits = 0;
  if (start) {
    commits = await commitCount(git, mr.project_id, start, head);
    if (commits > 0) {
      const files = await changedFileCount(git, mr.project_id, base ?? start, head);
      realSize = files > MAX_DIFF_FILES ? `${MAX_DIFF_FILES}+` : String(files);
      if (files > MAX_DIFF_FILES) state = 'overflow';
      else if (files > 0) state = 'collected';
    }
  }
  const row = await trx
    .insertInto('merge_request_diffs')
    .values({
      merge_request_id: mr.id,
      state,
      base_commit_sha: base,
      start_commit_sha: start,
      head_commit_sha: head,
      real_size: realSize,
      commits_count: commits,
      patch_id_sha: null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (commits > 0 && start) await recordDiffCommits(trx, git, mr.project_id, row.id, start, head);
  if (base && base !== head) await deps.queue.enqueue(trx, PATCH_ID_JOB, { diff_id: row.id });
  return row;
}

/** The most commits of one version listed (GitLab bounds a diff's commits too). */
const MAX_DIFF_COMMITS = 10_000;

/** A version's commits, newest first (GitLab's merge_request_diff_commits; `relative_order` 0 the head). */
async function recordDiffCommits(trx: Trx, git: GitRepositories, projectId: number, diffId: number, start: string, head: string): Promise<void> {
  const out = await git.run(projectId, ['rev-list', `--max-count=${MAX_DIFF_COMMITS}`, '--end-of-options', head, `^${start}`, '--']);
  const shas = out.stdout.toString('utf8').split('\n').filter(Boolean);
  for (let i = 0; i < shas.length; i += 500) {
    await trx
      .insertInto('merge_request_diff_commits')
      .values(shas.slice(i, i + 500).map((sha, n) => ({ merge_request_diff_id: diffId, relative_order: i + n, sha })))
      .execute();
  }
}

const CONFLICTING: MergeStatus[] = ['cannot_be_merged', 'cannot_be_merged_recheck', 'cannot_be_merged_rechecking'];

/** GitLab's `mark_as_unchecked`: a conflicting merge request goes to `cannot_be_merged_recheck`. */
export async function markUnchecked(trx: Trx, ids: number[]): Promise<void> {
  if (!ids.length) return;
  await trx.updateTable('merge_requests').set({ merge_status: 'cannot_be_merged_recheck' }).where('id', 'in', ids).where('merge_status', 'in', CONFLICTING).execute();
  await trx.updateTable('merge_requests').set({ merge_status: 'unchecked' }).where('id', 'in', ids).where('merge_status', 'not in', CONFLICTING).execute();
}

/** A new head (or target): a new version and a new mergeability check to come. */
export async function refreshDiff(trx: Trx, deps: Pick<Deps, 'git' | 'queue'>, mr: DiffSubject, now: string): Promise<void> {
  await recordDiffVersion(trx, deps, mr, now);
  await markUnchecked(trx, [mr.id]);
}

/**
 * What a moved branch does to merge requests (a push hook; it runs in the transaction that
 * moved the ref, after the open merge requests from the branch took its head): those from it
 * get a new version and lose their `merge_error`; those into it are to be checked again, and
 * get a new version when the target was force-pushed or its merge base with their head moved
 * (GitLab's RefreshService#reload_merge_requests: a force push, or a push bringing in commits
 * of their diff).
 */
async function onRefUpdated(trx: Trx, ctx: Ctx, project: { id: number }, update: RefUpdate): Promise<void> {
  if (update.kind !== 'branch') return;
  const now = ctx.clock.now().toISOString();
  const open = (q: ReturnType<typeof openMergeRequests>) => q.execute();
  function openMergeRequests() {
    return trx.selectFrom('merge_requests').selectAll().where('state', '=', 'opened');
  }
  const from = update.after ? await open(openMergeRequests().where('source_project_id', '=', project.id).where('source_branch', '=', update.name)) : [];
  for (const mr of from) await refreshDiff(trx, ctx, mr, now);
  const erred = from.filter((m) => m.merge_error !== null).map((m) => m.id);
  if (erred.length) await trx.updateTable('merge_requests').set({ merge_error: null }).where('id', 'in', erred).execute();
  // (Those the push merged are merged already: manually-merged.ts runs before this hook.)
  const into = await open(openMergeRequests().where('project_id', '=', project.id).where('target_branch', '=', update.name));
  if (update.after) await reloadDiffsOnTargetPush(trx, ctx, project.id, into, update.before, update.after, now);
  await markUnchecked(trx, into.map((m) => m.id));
}

async function reloadDiffsOnTargetPush(trx: Trx, ctx: Ctx, projectId: number, into: MergeRequestRow[], before: string | null, after: string, now: string): Promise<void> {
  const withHead = into.filter((m) => m.sha);
  if (!withHead.length) return;
  const forced = before !== null && !(await isAncestor(ctx.git, projectId, before, after));
  const latest = await latestDiffsOf(trx, withHead.map((m) => m.id));
  for (const mr of withHead) {
    const base = await mergeBaseOf(ctx.git, projectId, after, mr.sha).catch(() => null);
    if (forced || (latest.get(mr.id)?.base_commit_sha ?? null) !== base) await recordDiffVersion(trx, ctx, mr, now);
  }
}

export const mergeRequestPushHooks: PushHooks = { refUpdated: onRefUpdated };

/** The public `merge_status` (GitLab's public_merge_status): `cannot_be_merged_rechecking` reads `checking`. */
export function publicMergeStatus(status: MergeStatus): Exclude<MergeStatus, 'cannot_be_merged_rechecking'> {
  return status === 'cannot_be_merged_rechecking' ? 'checking' : status;
}

/**
 * GitLab's `check_mergeability(async: true)` on read: open merge requests still unchecked
 * become `checking` (compare-and-swap, so one reader queues the check) with their check
 * queued. Returns the rows as they now are.
 */
export async function startMergeabilityChecks(ctx: Ctx, rows: MergeRequestRow[]): Promise<MergeRequestRow[]> {
  const stale = rows.filter((r) => r.state === 'opened' && (r.merge_status === 'unchecked' || r.merge_status === 'cannot_be_merged_recheck'));
  if (!stale.length) return rows;
  const next = new Map<number, MergeStatus>();
  await ctx.db.transaction().execute(async (trx) => {
    for (const r of stale) {
      const to: MergeStatus = r.merge_status === 'unchecked' ? 'checking' : 'cannot_be_merged_rechecking';
      const done = await trx.updateTable('merge_requests').set({ merge_status: to }).where('id', '=', r.id).where('merge_status', '=', r.merge_status).executeTakeFirst();
      if (Number(done.numUpdatedRows) !== 1) continue; // another reader (or a push) got there first
      await ctx.queue.enqueue(trx, MERGEABILITY_JOB, { merge_request_id: r.id });
      next.set(r.id, to);
    }
  });
  return rows.map((r) => (next.has(r.id) ? { ...r, merge_status: next.get(r.id)! } : r));
}

/** Do the two heads merge without conflicts? (`git merge-tree --write-tree`: 0 clean, 1 conflicts.) */
export async function mergesCleanly(git: GitRepositories, projectId: number, target: string, source: string): Promise<boolean> {
  const out = await git.run(projectId, ['merge-tree', '--write-tree', '--no-messages', '--name-only', target, source], { okCodes: [0, 1] });
  return out.code === 0;
}

/**
 * The queued check: settles a `checking` merge request on `can_be_merged` or
 * `cannot_be_merged` (a missing branch is the latter), unless a branch moved meanwhile (then
 * it is unchecked again and the next read checks it anew).
 */
async function checkMergeability(deps: Deps, mergeRequestId: number): Promise<void> {
  const mr = await deps.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst();
  if (!mr || (mr.merge_status !== 'checking' && mr.merge_status !== 'cannot_be_merged_rechecking')) return;
  const target = (await selectBranch(deps.db, mr.project_id, mr.target_branch))?.commit_sha || '';
  const source = mr.sha;
  // A head git cannot merge (objects missing, a repository gone) settles as not mergeable
  // rather than leaving the merge request `checking` for good.
  const clean = Boolean(target && source) && (await mergesCleanly(deps.git, mr.project_id, target, source).catch(() => false));
  await deps.db.transaction().execute(async (trx) => {
    const nowTarget = (await selectBranch(trx, mr.project_id, mr.target_branch))?.commit_sha || '';
    if (nowTarget !== target) return;
    await trx
      .updateTable('merge_requests')
      .set({ merge_status: clean ? 'can_be_merged' : 'cannot_be_merged' })
      .where('id', '=', mr.id)
      .where('sha', '=', source)
      .where('merge_status', 'in', ['checking', 'cannot_be_merged_rechecking'])
      .execute();
  });
}

/** Fills in a version's patch id (null stays for an empty diff). */
async function computePatchId(deps: Deps, diffId: number): Promise<void> {
  const diff = await deps.db.selectFrom('merge_request_diffs as d').innerJoin('merge_requests as m', 'm.id', 'd.merge_request_id').select(['d.id', 'd.base_commit_sha', 'd.head_commit_sha', 'd.patch_id_sha', 'm.project_id']).where('d.id', '=', diffId).executeTakeFirst();
  if (!diff || diff.patch_id_sha || !diff.base_commit_sha || !diff.head_commit_sha) return;
  const patchId = await patchIdOf(deps.git, diff.project_id, diff.base_commit_sha, diff.head_commit_sha);
  if (patchId) await deps.db.updateTable('merge_request_diffs').set({ patch_id_sha: patchId }).where('id', '=', diff.id).execute();
}

/** Registers the queue jobs of merge request diffs (forge.ts). */
export function registerMergeRequestJobs(deps: Deps): void {
  registerRebaseJob(deps);
  deps.queue.register(PATCH_ID_JOB, async (payload: { diff_id?: number }) => {
    if (payload?.diff_id) await computePatchId(deps, payload.diff_id);
  });
  deps.queue.register(MERGEABILITY_JOB, async (payload: { merge_request_id?: number }) => {
    if (payload?.merge_request_id) await checkMergeability(deps, payload.merge_request_id);
  });
}
