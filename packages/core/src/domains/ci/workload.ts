/**
 * Workloads: a one-job pipeline created by another domain rather than from `.gitlab-ci.yml`
 * (agent flows, pipeline source `duo_workflow`, as GitLab's Duo Workflow CI pipelines). The job
 * is pending at once, so any runner serving the project can take it through `POST /jobs/request`.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { nextIid } from '../../kernel/ids.js';
import type { ProjectRow } from '../../access/project.table.js';
import { selectBranch } from '../repository/index.js';
import type { CiJobDefinition } from './ci-config.js';
import type { CiJobRow, CiPipelineRow } from './ci.table.js';
import { processPipeline } from './process-pipeline.js';
import { announceJobs, noteJob, pipelineChange } from './pipeline-hooks.js';

export interface WorkloadInput {
  project: ProjectRow;
  /** Branch to run on; the project's default branch when omitted. */
  branch?: string | null;
  source: string;
  userId: number;
  jobName: string;
  stage?: string;
  script: string[];
  image?: string | null;
  /** Visible in the job definition. */
  variables?: { key: string; value: string }[];
  /** Stored encrypted as pipeline variables (tokens, the goal). */
  secretVariables?: { key: string; value: string }[];
  tags?: string[];
}

/**
 * Pipeline sources of workloads. Their pipeline variables are the workload's credentials
 * (`secretVariables`: OAuth tokens …), handed to the job only: never listed by the API.
 */
export const WORKLOAD_SOURCES: ReadonlySet<string> = new Set(['duo_workflow']);

/** Creates the pipeline and its single job inside `trx`; the job is pending when this returns. */
export async function createWorkloadIn(trx: Kysely<Database>, ctx: Ctx, input: WorkloadInput, now: string): Promise<{ pipeline: CiPipelineRow; job: CiJobRow }> {
  if (input.secretVariables?.length && !WORKLOAD_SOURCES.has(input.source)) throw new Error(`workload source ${input.source} must be in WORKLOAD_SOURCES`);
  const branch = input.branch || input.project.default_branch || 'main';
  const ref = await selectBranch(trx, input.project.id, branch);
  // An empty repository still gets its workload (the agent may create the first commit).
  const sha = ref?.commit_sha ?? '0000000000000000000000000000000000000000';
  const iid = await nextIid(trx, 'ci_pipelines', `project:${input.project.id}`);
  const pipeline = await trx
    .insertInto('ci_pipelines')
    .values({ project_id: input.project.id, iid, status: 'created', source: input.source, ref: branch, tag: 0, sha, user_id: input.userId, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (input.secretVariables?.length) {
    await trx
      .insertInto('ci_pipeline_variables')
      .values(input.secretVariables.map((v) => ({ pipeline_id: pipeline.id, key: v.key, value_encrypted: ctx.secrets.encrypt(v.value), variable_type: 'env_var' })))
      .execute();
  }
  const definition: CiJobDefinition = {
    script: input.script,
    before_script: [],
    after_script: [],
    image: input.image ? { name: input.image } : null,
    variables: (input.variables ?? []).map((v) => ({ key: v.key, value: v.value })),
    needs: null,
    dependencies: null,
    environment: null,
    artifacts: null,
    tags: input.tags ?? [],
    timeout: null,
  } as CiJobDefinition;
  const job = await trx
    .insertInto('ci_jobs')
    .values({
      project_id: input.project.id,
      pipeline_id: pipeline.id,
      name: input.jobName,
      stage: input.stage ?? 'test',
      stage_idx: 0,
      status: 'created',
      ref: branch,
      tag: 0,
      definition: JSON.stringify(definition),
      user_id: input.userId,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const change = pipelineChange(ctx);
  noteJob(change, job.id, null);
  await announceJobs(trx, change);
  const processed = await processPipeline(trx, pipeline.id, now, change);
  const pendingJob = await trx.selectFrom('ci_jobs').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
  return { pipeline: processed, job: pendingJob };
}
