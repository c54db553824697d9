/**
 * Advancing a pipeline (GitLab's AtomicProcessingService): every created job whose
 * prerequisites (the jobs of earlier stages, or its `needs`) are complete becomes pending,
 * manual or skipped; then the pipeline's status, times and duration follow its jobs. Runs
 * inside the transaction of the change that triggered it (creation, a finished job, a cancel,
 * a retry, a play).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { isPostgres } from '../../storage/migrations/helpers.js';
import type { CiPipelineRow } from './ci.table.js';
import type { CiJobDefinition } from './ci-config.js';
import { COMPLETED_STATUSES, compositeStatus, nextStatusOf } from './status.js';
import { announceJobs, noteJob, runJobsAdvanced, runStatusChanged, type PipelineChange } from './pipeline-hooks.js';

interface JobState {
  id: number;
  name: string;
  stage_idx: number;
  status: string;
  when: string;
  allow_failure: number;
  needs: string[] | null;
  started_at: string | null;
  finished_at: string | null;
}

/** Union of the jobs' running periods, in seconds (GitLab's pipeline duration). */
function unionSeconds(periods: { from: number; to: number }[]): number {
  const sorted = periods.filter((p) => p.to > p.from).sort((a, b) => a.from - b.from);
  let total = 0;
  let start = -Infinity;
  let end = -Infinity;
  for (const p of sorted) {
    if (p.from > end) {
      if (end > start) total += end - start;
      start = p.from;
      end = p.to;
    } else end = Math.max(end, p.to);
  }
  if (end > start) total += end - start;
  return Math.round(total / 1000);
}

/**
 * Serializes the transactions that change a pipeline's jobs: each one locks the pipeline row
 * first, so two jobs finishing at once cannot both miss the other's result (READ COMMITTED).
 * SQLite runs one write transaction at a time already.
 */
export async function lockPipeline(trx: Kysely<Database>, pipelineId: number): Promise<void> {
  if (!isPostgres(trx)) return;
  await trx.selectFrom('ci_pipelines').select('id').where('id', '=', pipelineId).forUpdate().execute();
}

/**
 * Processes the pipeline in `trx`. `change` holds the jobs the caller wrote (noted with their
 * statuses before); the jobs processing moves are noted too, and all of them are announced to
 * the pipeline hooks once the pipeline's status has followed, before its own status change.
 */
export async function processPipeline(trx: Kysely<Database>, pipelineId: number, now: string, change: PipelineChange): Promise<CiPipelineRow> {
  await lockPipeline(trx, pipelineId);
  const rows = await trx
    .selectFrom('ci_jobs')
    .select(['id', 'name', 'stage_idx', 'status', 'when', 'allow_failure', 'definition', 'started_at', 'finished_at'])
    .where('pipeline_id', '=', pipelineId)
    .where('retried', '=', 0)
    .orderBy('stage_idx')
    .orderBy('id')
    .execute();
  const jobs: JobState[] = rows.map((r) => {
    const def = JSON.parse(r.definition) as CiJobDefinition;
    return { ...r, needs: def.needs ? def.needs.map((n) => n.name) : null };
  });
  const changed = new Map<number, string>();
  let progress = true;
  while (progress) {
    progress = false;
    for (const job of jobs) {
      if (job.status !== 'created') continue;
      const dag = job.needs !== null;
      const before = dag
        ? compositeStatus(jobs.filter((j) => job.needs!.includes(j.name)), { dag: true })
        : compositeStatus(jobs.filter((j) => j.stage_idx < job.stage_idx));
      const next = nextStatusOf(job.when, dag, before ?? 'success');
      if (!next) continue;
      noteJob(change, job.id, job.status);
      job.status = next;
      changed.set(job.id, next);
      progress = true;
    }
  }
  for (const [id, status] of changed) {
    await trx
      .updateTable('ci_jobs')
      .set(status === 'pending' ? { status, queued_at: now, updated_at: now } : { status, updated_at: now })
      .where('id', '=', id)
      .execute();
  }
  // Other domains follow the jobs (deployments may hold a job manual or fail it, updating `jobs`).
  await runJobsAdvanced(trx, pipelineId, jobs, now, change);

  const pipeline = await trx.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirstOrThrow();
  const status = compositeStatus(jobs) ?? 'skipped';
  const update: Partial<CiPipelineRow> = {};
  if (status !== pipeline.status) {
    update.status = status;
    update.updated_at = now;
  }
  const completed = COMPLETED_STATUSES.includes(status);
  if (status === 'running' && pipeline.started_at === null) {
    update.started_at = now;
    update.queued_duration = Math.round((Date.parse(now) - Date.parse(pipeline.created_at)) / 1000);
  }
  const periods = jobs
    .filter((j) => j.started_at !== null)
    .map((j) => ({ from: Date.parse(j.started_at!), to: j.finished_at ? Date.parse(j.finished_at) : Date.parse(now) }));
  if (completed && (status !== pipeline.status || pipeline.finished_at === null)) {
    update.finished_at = now;
    update.duration = periods.length ? unionSeconds(periods) : null;
  } else if (status === 'manual' && status !== pipeline.status) {
    update.duration = periods.length ? unionSeconds(periods) : null;
  } else if (!completed && pipeline.finished_at !== null) {
    update.finished_at = null;
  }
  if (Object.keys(update).length === 0) {
    await announceJobs(trx, change);
    return pipeline;
  }
  if (update.updated_at === undefined) update.updated_at = now;
  await trx.updateTable('ci_pipelines').set(update).where('id', '=', pipelineId).execute();
  const updated = { ...pipeline, ...update };
  await announceJobs(trx, change);
  // Other domains follow the status (merge requests whose head pipeline this is record it).
  if (update.status) await runStatusChanged(trx, pipeline.status, updated, change.by);
  return updated;
}
