/**
 * PUT /projects/:id/merge_requests/:merge_request_iid/rebase (GitLab's RebaseService and
 * RebaseWorker): the request checks who may rebase and queues the rebase, answering 202
 * `{"rebase_in_progress": true}`; the queued job replays the source branch's commits onto the
 * target head (rebase-commits.ts) and moves the source branch the way a commit through the
 * API does (compare-and-swap, the repository index, the push hooks: a new diff version, the
 * approvals reset, the merge requests' heads), then runs its pipeline unless `skip_ci`.
 * Conflicts (or any failure) leave GitLab's `merge_error`; a success clears it.
 */
import type { Kysely } from 'kysely';
import { contextFor, nowIso, type Ctx, type Deps } from '../../access/context.js';
import { selectProjectByRef } from '../../access/lookup.js';
import { requireUser } from '../../access/policy.js';
import { selectUserById } from '../../access/users.js';
import { ConflictError, ForbiddenError } from '../../kernel/errors.js';
import type { Database } from '../../storage/database.js';
import type { JobContext } from '../../storage/queue.js';
import { createPushPipeline } from '../ci/index.js';
import { advanceBranchIn, canOnBranch, protectionsOf, repositoryTransaction, selectBranch } from '../repository/index.js';
import { findMergeRequest } from './find-merge-request.js';
import type { RebaseMergeRequestInput } from './merge-request.schema.js';
import { rebaseCommits } from './rebase-commits.js';

export const REBASE_JOB = 'merge_requests.rebase';
/** GitLab's RebaseService::REBASE_ERROR. */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';
/** What GitLab's API answers for ActiveRecord::StaleObjectError (a closed merge request, or a rebase already running). */
const RESOURCE_LOCK = '409 Conflict: Resource lock';

interface RebasePayload {
  merge_request_id: number;
  user_id: number;
  skip_ci: boolean;
}

/** GitLab's `rebase_in_progress?`: a rebase job recorded on the merge request and not finished. */
export async function rebaseJobsRunning(db: Kysely<Database>, jobIds: Array<number | null>): Promise<Set<number>> {
  const ids = jobIds.filter((id): id is number => id !== null);
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('queue_jobs').select('id').where('id', 'in', ids).where('status', '=', 'pending').execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The request: 403 naming why (RebaseService#validate: the source branch is missing, the
 * caller may not push to it, or it is protected from force pushes), 409 when the merge
 * request is not open or a rebase is already in progress; then the job is queued.
 */
export async function rebaseMergeRequest(ctx: Ctx, input: RebaseMergeRequestInput): Promise<{ rebase_in_progress: boolean }> {
  const user = requireUser(ctx);
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  if (!(await selectBranch(ctx.db, project.id, mr.source_branch))) throw new ForbiddenError('Source branch does not exist');
  if (!(await canOnBranch(ctx, project, mr.source_branch, 'push'))) throw new ForbiddenError('Cannot push to source branch');
  const rules = await protectionsOf(ctx.db, project.id, mr.source_branch);
  if (rules.length && !rules.some((r) => r.allow_force_push === 1)) throw new ForbiddenError('Source branch is protected from force push');
  await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('merge_requests').select(['state', 'rebase_job_id']).where('id', '=', mr.id).executeTakeFirst();
    if (!row || row.state !== 'opened' || (await rebaseJobsRunning(trx, [row.rebase_job_id])).size) throw new ConflictError(RESOURCE_LOCK);
    const payload: RebasePayload = { merge_request_id: mr.id, user_id: user.id, skip_ci: input.skip_ci === true };
    const jobId = await ctx.queue.enqueue(trx, REBASE_JOB, payload, { maxAttempts: 3 });
    const previous = row.rebase_job_id;
    const claimed = await trx
      .updateTable('merge_requests')
      .set({ rebase_job_id: jobId })
      .where('id', '=', mr.id)
      .where((eb) => (previous === null ? eb('rebase_job_id', 'is', null) : eb('rebase_job_id', '=', previous)))
      .executeTakeFirst();
    // Another request queued one between the read and this write.
    if (Number(claimed.numUpdatedRows) !== 1) throw new ConflictError(RESOURCE_LOCK);
  });
  return { rebase_in_progress: true };
}

/** The job: rebases, records the outcome on the merge request, and lets the next rebase be asked for. */
async function runRebase(deps: Deps, payload: RebasePayload, job: JobContext): Promise<void> {
  const mr = await deps.db.selectFrom('merge_requests').selectAll().where('id', '=', payload.merge_request_id).executeTakeFirst();
  // Only the rebase the merge request is waiting for (ids compared as numbers: drivers differ).
  if (!mr || Number(mr.rebase_job_id) !== Number(job.job.id)) return;
  const finish = (mergeError: string | null) =>
    deps.db.updateTable('merge_requests').set({ rebase_job_id: null, merge_error: mergeError }).where('id', '=', mr.id).where('rebase_job_id', '=', job.job.id).execute();
  let pipeline: (() => Promise<void>) | null = null;
  try {
    const user = await selectUserById(deps.db, payload.user_id);
    const project = await selectProjectByRef(deps, mr.project_id);
    if (!user || user.state !== 'active' || !project || mr.state !== 'opened') return void (await finish(mr.state === 'opened' ? REBASE_ERROR : mr.merge_error));
    const ctx = contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
    const [source, target] = await Promise.all([selectBranch(deps.db, project.id, mr.source_branch), selectBranch(deps.db, project.id, mr.target_branch)]);
    if (!source || !target) return void (await finish(REBASE_ERROR));
    const epoch = Math.floor(Date.parse(nowIso(ctx)) / 1000);
    const outcome = await rebaseCommits(deps.git, project.id, target.commit_sha, source.commit_sha, { name: user.name, email: user.email, epoch });
    if (outcome.kind === 'conflict') return void (await finish(REBASE_ERROR));
    if (outcome.head === source.commit_sha) return void (await finish(null));
    await repositoryTransaction(ctx, async (trx) => {
      // The branch moved since it was read (a push): this rebase is of an old head.
      const current = await selectBranch(trx, project.id, mr.source_branch);
      if (current?.commit_sha !== source.commit_sha) throw new Error('source branch moved during the rebase');
      await advanceBranchIn(trx, ctx, project, mr.source_branch, outcome.head);
      await trx.updateTable('merge_requests').set({ rebase_job_id: null, merge_error: null }).where('id', '=', mr.id).where('rebase_job_id', '=', job.job.id).execute();
    });
    pipeline = () => createPushPipeline(ctx, project, { kind: 'branch', name: mr.source_branch, before: source.commit_sha });
  } catch {
    // As GitLab's RebaseService: whatever failed, the merge request says so.
    await finish(REBASE_ERROR);
    return;
  }
  // The rebase is a push to the source branch: its pipeline runs, as after GitLab's post-receive.
  if (pipeline && !payload.skip_ci) await pipeline();
}

/** Registers the rebase job (forge.ts, through registerMergeRequestJobs). */
export function registerRebaseJob(deps: Deps): void {
  deps.queue.register(REBASE_JOB, async (payload: RebasePayload, job: JobContext) => {
    if (payload?.merge_request_id) await runRebase(deps, payload, job);
  });
}
