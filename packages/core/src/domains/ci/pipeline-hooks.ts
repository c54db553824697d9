/**
 * What other domains do when a pipeline advances, without ci naming them: environments and
 * deployments follow their jobs (delivery), agent flows follow their workload job (flows),
 * merge requests record their head pipeline's progress (merge-requests). Each domain hands its
 * reaction to the wiring (forge.ts), which registers it here; processPipeline runs the hooks
 * inside the transaction of the change it processes, in registration order.
 */
import type { Kysely } from 'kysely';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { CiPipelineRow } from './ci.table.js';

/** A job of the pipeline being processed, as processPipeline holds it. */
export interface ProcessedJob {
  id: number;
  name: string;
  status: string;
}

export interface PipelineHooks {
  /**
   * After the jobs' statuses have advanced, before the pipeline's status follows them. `jobs`
   * is processPipeline's working list: a hook that holds a job (manual, failed) updates the
   * job's row and its entry here, so the pipeline status computed next sees it.
   */
  jobsAdvanced?: (trx: Kysely<Database>, pipelineId: number, jobs: ProcessedJob[], now: string) => Promise<void>;
  /** After the pipeline's status changed from `from` to `pipeline.status`. */
  statusChanged?: (trx: Kysely<Database>, from: string, pipeline: CiPipelineRow) => Promise<void>;
}

const registered = new HookList<PipelineHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerPipelineHooks(hooks: PipelineHooks): void {
  registered.register(hooks);
}

export async function runJobsAdvanced(trx: Kysely<Database>, pipelineId: number, jobs: ProcessedJob[], now: string): Promise<void> {
  for (const h of registered.all()) if (h.jobsAdvanced) await h.jobsAdvanced(trx, pipelineId, jobs, now);
}

export async function runStatusChanged(trx: Kysely<Database>, from: string, pipeline: CiPipelineRow): Promise<void> {
  for (const h of registered.all()) if (h.statusChanged) await h.statusChanged(trx, from, pipeline);
}
