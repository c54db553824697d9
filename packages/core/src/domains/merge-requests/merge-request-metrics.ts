/**
 * GitLab's merge_request_metrics, kept on the merge request (migration 015), and its head
 * pipeline. Called from CI and delivery inside their transactions:
 * - the head pipeline of a merge request is the newest pipeline of its source branch at its
 *   head commit (MergeRequest#find_actual_head_pipeline);
 * - PipelineMetricsWorker: when a head pipeline starts running, the merge request's metrics
 *   point at it (`latest_build_started_at` its start, no finish); when it succeeds, with its
 *   finish. A failed or canceled pipeline leaves them as they were;
 * - Deployment#update_merge_request_metrics!: the first successful deployment to a
 *   production-tier environment that ships a merge request stamps
 *   `first_deployed_to_production_at` with its finish, once.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { CiPipelineRow, PipelineHooks } from '../ci/index.js';
import type { MergeRequestRow } from './merge-request.table.js';

type Db = Kysely<Database>;

/** The head pipeline of a merge request, if any. */
export async function headPipelineOf(db: Db, mr: Pick<MergeRequestRow, 'source_project_id' | 'source_branch' | 'sha'>): Promise<CiPipelineRow | undefined> {
  if (!mr.sha) return undefined;
  return db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', mr.source_project_id)
    .where('ref', '=', mr.source_branch)
    .where('tag', '=', 0)
    .where('sha', '=', mr.sha)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Statuses from which entering `running` records the metrics (GitLab's transition list). */
const BEFORE_RUNNING = ['created', 'waiting_for_resource', 'preparing', 'pending'];

/**
 * After a pipeline's status changed from `from`: when it entered running or succeeded,
 * the merge requests it is the head pipeline of record it.
 */
export async function recordPipelineMetrics(trx: Db, from: string, pipeline: CiPipelineRow): Promise<void> {
  const running = pipeline.status === 'running' && BEFORE_RUNNING.includes(from);
  const succeeded = pipeline.status === 'success' && from !== 'success';
  if ((!running && !succeeded) || pipeline.tag === 1) return;
  await trx
    .updateTable('merge_requests')
    .set({
      metrics_pipeline_id: pipeline.id,
      latest_build_started_at: pipeline.started_at,
      latest_build_finished_at: succeeded ? pipeline.finished_at : null,
    })
    .where('source_project_id', '=', pipeline.project_id)
    .where('source_branch', '=', pipeline.ref)
    .where('sha', '=', pipeline.sha)
    // The head pipeline: no newer one at the same commit of the branch.
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('ci_pipelines as newer')
            .select('newer.id')
            .where('newer.project_id', '=', pipeline.project_id)
            .where('newer.ref', '=', pipeline.ref)
            .where('newer.tag', '=', 0)
            .where('newer.sha', '=', pipeline.sha)
            .where('newer.id', '>', pipeline.id),
        ),
      ),
    )
    .execute();
}

/** A successful production deployment shipped these merge requests: the first one stamps them. */
export async function recordProductionDeployment(trx: Db, mergeRequestIds: readonly number[], finishedAt: string): Promise<void> {
  if (mergeRequestIds.length === 0) return;
  await trx
    .updateTable('merge_requests')
    .set({ first_deployed_to_production_at: finishedAt })
    .where('id', 'in', mergeRequestIds)
    .where('first_deployed_to_production_at', 'is', null)
    .execute();
}

/** Merge requests' reaction to pipelines, registered by the wiring (ci's pipeline hooks). */
export const mergeRequestPipelineHooks: PipelineHooks = { statusChanged: recordPipelineMetrics };
