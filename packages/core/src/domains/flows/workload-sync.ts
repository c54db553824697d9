/**
 * A flow follows its CI workload (GitLab's UpdateWorkflowStatusEventWorker on a finished
 * workload). Called by processPipeline after it has applied the job statuses of a change, in
 * the same transaction:
 *  - the flow's current workload job failed or was canceled while the flow is not finished,
 *    failed or stopped: the flow is dropped (`failed`, its token revoked, `flow.failed` to its
 *    callback); a job failure with a reason sets the summary `Error during Session: <reason>`;
 *  - the job succeeded while the flow is still `created` or `running` (the executor never
 *    reported an end): dropped too, summary `Session did not report a final status before its
 *    pipeline finished`; a flow waiting on a person (paused, input or approval required) stays.
 * Only the flow's current job counts: the workload of an earlier run of a retried flow is ignored.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { PipelineHooks } from '../ci/index.js';
import { queueFlowEventIn } from './callbacks.js';
import { applyTransition, FLOW_JOB_NAME, presentFlow, TERMINAL_STATUSES } from './flows.js';

const ENDED = ['failed', 'canceled', 'success'];
/** Statuses a cleanly finished workload still fails (not those waiting on a person). */
const RECONCILABLE = ['created', 'running'];
export const RECONCILE_SUMMARY = 'Session did not report a final status before its pipeline finished';

interface JobStatusHolder {
  id: number;
  name: string;
  status: string;
}

export async function syncFlowWorkloads(trx: Kysely<Database>, pipelineId: number, jobs: readonly JobStatusHolder[], now: string): Promise<void> {
  const ended = jobs.filter((j) => j.name === FLOW_JOB_NAME && ENDED.includes(j.status));
  if (!ended.length) return;
  const flows = await trx
    .selectFrom('ai_flows')
    .selectAll()
    .where('job_id', 'in', ended.map((j) => j.id))
    .where('pipeline_id', '=', pipelineId)
    .where('status', 'not in', TERMINAL_STATUSES)
    .orderBy('id')
    .execute();
  for (const flow of flows) {
    const job = ended.find((j) => j.id === flow.job_id)!;
    let summary: string | undefined;
    if (job.status === 'success') {
      if (!RECONCILABLE.includes(flow.status)) continue;
      summary = RECONCILE_SUMMARY;
    } else if (job.status === 'failed') {
      const row = await trx.selectFrom('ci_jobs').select('failure_reason').where('id', '=', job.id).executeTakeFirst();
      if (row?.failure_reason) summary = `Error during Session: ${row.failure_reason}`;
    }
    // A status changed meanwhile (the executor ended the flow) wins; CI processing never fails here.
    const moved = await applyTransition(trx, flow, 'drop', now, { summary });
    if (moved?.lifecycle) {
      const data = presentFlow({ config: { externalUrl: '' } }, moved.updated);
      await queueFlowEventIn(trx, moved.updated, moved.lifecycle, { ...data }, now);
    }
  }
}

/** Flows' reaction to pipelines, registered by the wiring (ci's pipeline hooks). */
export const flowsPipelineHooks: PipelineHooks = { jobsAdvanced: syncFlowWorkloads };
