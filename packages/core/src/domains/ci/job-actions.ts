/** Changing jobs: retry (new rows, the old ones `retried`), cancel and play, each followed by processing. */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { CiJobRow, CiPipelineRow } from './ci.table.js';
import { announceJobs, noteJob, pipelineChange, type PipelineChange } from './pipeline-hooks.js';
import { lockPipeline, processPipeline } from './process-pipeline.js';

/**
 * Clones the jobs as new `created` rows owned by the actor (announced as created); returns the
 * new ids by old id. Skipped jobs after them are reset, noted in `change` for processing.
 */
async function cloneForRetry(trx: Kysely<Database>, ctx: Ctx, jobs: CiJobRow[], now: string, change: PipelineChange): Promise<Map<number, number>> {
  const ids = new Map<number, number>();
  for (const pipelineId of new Set(jobs.map((j) => j.pipeline_id))) await lockPipeline(trx, pipelineId);
  for (const job of jobs) {
    const clone = await trx
      .insertInto('ci_jobs')
      .values({
        project_id: job.project_id,
        pipeline_id: job.pipeline_id,
        name: job.name,
        stage: job.stage,
        stage_idx: job.stage_idx,
        status: 'created',
        when: job.when,
        allow_failure: job.allow_failure,
        ref: job.ref,
        tag: job.tag,
        definition: job.definition,
        user_id: ctx.actor.user?.id ?? job.user_id,
        environment_name: job.environment_name,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx.updateTable('ci_jobs').set({ retried: 1, updated_at: now }).where('id', '=', job.id).execute();
    ids.set(job.id, clone.id);
    noteJob(change, clone.id, null);
  }
  await announceJobs(trx, change);
  if (jobs.length) {
    // Jobs skipped because of what is retried get another chance (ResetSkippedJobsService).
    const from = Math.min(...jobs.map((j) => j.stage_idx));
    const reset = await trx
      .updateTable('ci_jobs')
      .set({ status: 'created', updated_at: now })
      .where('pipeline_id', '=', jobs[0]!.pipeline_id)
      .where('retried', '=', 0)
      .where('status', '=', 'skipped')
      .where('stage_idx', '>=', from)
      .returning('id')
      .execute();
    for (const r of reset) noteJob(change, r.id, 'skipped');
  }
  return ids;
}

/** Retries the jobs of one pipeline in one transaction; returns the processed pipeline. */
export async function retryJobsIn(ctx: Ctx, pipeline: CiPipelineRow, jobs: CiJobRow[]): Promise<CiPipelineRow> {
  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, pipeline.id);
    const change = pipelineChange(ctx);
    await cloneForRetry(trx, ctx, jobs, now, change);
    return processPipeline(trx, pipeline.id, now, change);
  });
}

/** Retries one job; returns the new job's id. */
export async function retryJob(ctx: Ctx, job: CiJobRow): Promise<number> {
  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    const change = pipelineChange(ctx);
    const ids = await cloneForRetry(trx, ctx, [job], now, change);
    await processPipeline(trx, job.pipeline_id, now, change);
    return ids.get(job.id)!;
  });
}

/** Cancels the job when it can be canceled (created, pending, running …); otherwise nothing changes. */
export async function cancelJobRow(ctx: Ctx, job: CiJobRow, cancelable: string[]): Promise<void> {
  if (!cancelable.includes(job.status)) return;
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, job.pipeline_id);
    const done = await trx
      .updateTable('ci_jobs')
      .set({ status: 'canceled', finished_at: now, updated_at: now })
      .where('id', '=', job.id)
      .where('status', 'in', cancelable)
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return;
    const change = pipelineChange(ctx);
    noteJob(change, job.id, job.status);
    await processPipeline(trx, job.pipeline_id, now, change);
  });
}

/** Plays a manual job: it becomes pending, started by the actor. */
export async function playJobRow(ctx: Ctx, job: CiJobRow): Promise<boolean> {
  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, job.pipeline_id);
    const done = await trx
      .updateTable('ci_jobs')
      .set({ status: 'pending', queued_at: now, updated_at: now, user_id: ctx.actor.user?.id ?? job.user_id })
      .where('id', '=', job.id)
      .where('status', '=', 'manual')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return false;
    const change = pipelineChange(ctx);
    noteJob(change, job.id, 'manual');
    await processPipeline(trx, job.pipeline_id, now, change);
    return true;
  });
}

/** A running job reported finished by its runner; the pipeline advances in the same transaction. */
export async function finishJob(
  ctx: Ctx,
  job: CiJobRow,
  outcome: { status: 'success' | 'failed'; failureReason?: string | null },
  now: string,
): Promise<boolean> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockPipeline(trx, job.pipeline_id);
    const done = await trx
      .updateTable('ci_jobs')
      .set({
        status: outcome.status,
        failure_reason: outcome.status === 'failed' ? (outcome.failureReason ?? 'unknown_failure') : null,
        finished_at: now,
        updated_at: now,
      })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) return false;
    const change = pipelineChange(ctx);
    noteJob(change, job.id, 'running');
    await processPipeline(trx, job.pipeline_id, now, change);
    return true;
  });
}
