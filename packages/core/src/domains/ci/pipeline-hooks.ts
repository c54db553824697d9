/**
 * What other domains do when a pipeline advances, without ci naming them: environments and
 * deployments follow their jobs (delivery), agent flows follow their workload job (flows),
 * merge requests record their head pipeline's progress (merge-requests), hooks hear of job and
 * pipeline statuses (webhooks). Each domain hands its reaction to the wiring (forge.ts), which
 * registers it here; processPipeline runs the hooks inside the transaction of the change it
 * processes, in registration order.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { HookList } from '../../kernel/hooks.js';
import type { Database } from '../../storage/database.js';
import type { CiPipelineRow } from './ci.table.js';

/** A job of the pipeline being processed, as processPipeline holds it. */
export interface ProcessedJob {
  id: number;
  name: string;
  status: string;
}

/** A job whose status a change moved: its status before (null for a job the change created). */
export interface JobStatusChange {
  id: number;
  from: string | null;
}

/**
 * One change to a pipeline's jobs, inside one transaction: who made it (the request or worker
 * context) and the jobs whose status it wrote, each with its status before the change. The
 * writer notes a job (`noteJob`) before processPipeline; processing notes its own moves, then
 * hands them all to the hooks (`announceJobs`).
 */
export interface PipelineChange {
  by: Ctx;
  jobs: Map<number, string | null>;
}

export function pipelineChange(by: Ctx): PipelineChange {
  return { by, jobs: new Map() };
}

/** Records a job's status before the change; the first one noted in a change wins. */
export function noteJob(change: PipelineChange, id: number, from: string | null): void {
  if (!change.jobs.has(id)) change.jobs.set(id, from);
}

export interface PipelineHooks {
  /**
   * After the jobs' statuses have advanced, before the pipeline's status follows them. `jobs`
   * is processPipeline's working list: a hook that holds a job (manual, failed) updates the
   * job's row and its entry here, and notes it in `change`, so the pipeline status computed
   * next sees it.
   */
  jobsAdvanced?: (trx: Kysely<Database>, pipelineId: number, jobs: ProcessedJob[], now: string, change: PipelineChange) => Promise<void>;
  /** After jobs were created or their statuses written, with their statuses before (the rows hold the new ones). */
  jobsChanged?: (trx: Kysely<Database>, changes: JobStatusChange[], by: Ctx) => Promise<void>;
  /** After the pipeline's status changed from `from` to `pipeline.status`. */
  statusChanged?: (trx: Kysely<Database>, from: string, pipeline: CiPipelineRow, by: Ctx) => Promise<void>;
}

const registered = new HookList<PipelineHooks>();

/** Adds a domain's reactions (once per `hooks` object; see kernel/hooks.ts). */
export function registerPipelineHooks(hooks: PipelineHooks): void {
  registered.register(hooks);
}

export async function runJobsAdvanced(trx: Kysely<Database>, pipelineId: number, jobs: ProcessedJob[], now: string, change: PipelineChange): Promise<void> {
  for (const h of registered.all()) if (h.jobsAdvanced) await h.jobsAdvanced(trx, pipelineId, jobs, now, change);
}

/** Hands the jobs noted so far to the hooks and forgets them (a later announcement of the same change names only newer ones). */
export async function announceJobs(trx: Kysely<Database>, change: PipelineChange): Promise<void> {
  if (change.jobs.size === 0) return;
  const changes = [...change.jobs].map(([id, from]) => ({ id, from }));
  change.jobs.clear();
  for (const h of registered.all()) if (h.jobsChanged) await h.jobsChanged(trx, changes, change.by);
}

export async function runStatusChanged(trx: Kysely<Database>, from: string, pipeline: CiPipelineRow, by: Ctx): Promise<void> {
  for (const h of registered.all()) if (h.statusChanged) await h.statusChanged(trx, from, pipeline, by);
}
