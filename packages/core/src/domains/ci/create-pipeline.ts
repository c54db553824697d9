/**
 * Creating a pipeline (GitLab's Ci::CreatePipelineService): permission to run pipelines and to
 * write the ref, the ref's commit, its `.gitlab-ci.yml` parsed with the given inputs, then the
 * pipeline, its variables (encrypted) and its jobs in one transaction, processed so the first
 * jobs are pending. Used by `POST /projects/:id/pipeline` and by pipeline schedules.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import { nextIid } from '../../kernel/ids.js';
import { authorize, can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { Database } from '../../storage/database.js';
import { canUpdateBranch } from '../repository/index.js';
import { readFileOnRef, selectBranch, selectCommit, selectTag } from '../repository/index.js';
import type { RepositoryCommitRow, RepositoryRefRow } from '../repository/index.js';
import type { CiPipelineRow, NewCiJobRow } from './ci.table.js';
import { parseCiConfig } from './ci-config.js';
import { announceJobs, noteJob, pipelineChange, runStatusChanged } from './pipeline-hooks.js';
import { processPipeline } from './process-pipeline.js';

export { presentPipeline, presentPipelineBasic } from './pipeline.entity.js';

export type PipelineSource = 'push' | 'web' | 'api' | 'schedule' | 'trigger' | 'merge_request_event' | 'parent_pipeline';

export interface CreatePipelineInput {
  /** Short name or `refs/heads/x`, `refs/tags/x`. */
  ref: string;
  source: PipelineSource;
  variables?: { key: string; value: string; variable_type?: 'env_var' | 'file' }[];
  inputs?: Record<string, unknown>;
  pipelineScheduleId?: number;
  /** A push's `before` (GitLab's oldrev); the blank sha for other sources and new refs. */
  beforeSha?: string;
  /**
   * Runs first in the pipeline's transaction; a throw rolls the pipeline back. A schedule claims
   * its run there, so that the run and its pipeline commit together or not at all.
   */
  inTransaction?: (trx: Kysely<Database>) => Promise<void>;
}

export const CI_CONFIG_PATH = '.gitlab-ci.yml';
export const BLANK_SHA = '0000000000000000000000000000000000000000';
const VARIABLE_KEY = /^[a-zA-Z0-9_]+$/;

/** A pipeline-creation refusal: 400 `{"message":{"base":["…"]}}`. */
export function pipelineError(message: string): BadRequestError {
  return new BadRequestError({ base: [message] }, { raw: true });
}

export interface PipelineRef {
  kind: 'branch' | 'tag';
  name: string;
  ref: RepositoryRefRow;
  commit: RepositoryCommitRow;
}

/** The branch or tag a pipeline runs on; GitLab's `Reference not found` / `Ref is ambiguous`. */
export async function resolvePipelineRef(ctx: Ctx, project: ProjectRow, ref: string): Promise<PipelineRef> {
  let found: RepositoryRefRow | undefined;
  if (ref.startsWith('refs/heads/')) found = await selectBranch(ctx.db, project.id, ref.slice('refs/heads/'.length));
  else if (ref.startsWith('refs/tags/')) found = await selectTag(ctx.db, project.id, ref.slice('refs/tags/'.length));
  else {
    const [branch, tag] = await Promise.all([selectBranch(ctx.db, project.id, ref), selectTag(ctx.db, project.id, ref)]);
    if (branch && tag) throw pipelineError('Ref is ambiguous');
    found = branch ?? tag;
  }
  if (!found) throw pipelineError('Reference not found');
  const commit = await selectCommit(ctx.db, project.id, found.commit_sha);
  if (!commit) throw pipelineError('Commit not found');
  return { kind: found.kind === 'tag' ? 'tag' : 'branch', name: found.name, ref: found, commit };
}

/** May the actor run a pipeline on this ref (push or merge on a protected branch; Developer on tags)? */
export async function canWriteRef(ctx: Ctx, project: ProjectRow, ref: Pick<PipelineRef, 'kind' | 'name'>): Promise<boolean> {
  if (ref.kind === 'tag') return can(ctx, 'push_code', { kind: 'project', project });
  return canUpdateBranch(ctx, project, ref.name);
}

export async function createPipeline(ctx: Ctx, project: ProjectRow, input: CreatePipelineInput): Promise<CiPipelineRow> {
  const user = ctx.actor.user;
  await authorize(ctx, 'create_pipeline', { kind: 'project', project });
  if (project.jobs_enabled === 0) throw new ForbiddenError();
  const target = await resolvePipelineRef(ctx, project, input.ref);
  if (!(await canWriteRef(ctx, project, target))) {
    throw pipelineError(
      `You do not have sufficient permission to run a pipeline on '${target.name}'. Please select a different branch or contact your administrator for assistance.`,
    );
  }
  const variables = input.variables ?? [];
  for (const v of variables) {
    if (!VARIABLE_KEY.test(v.key) || v.key.length > 255) {
      throw new BadRequestError({ 'variables.key': ["can contain only letters, digits and '_'."] }, { raw: true });
    }
  }
  const file = await readFileOnRef(ctx.db, target.ref, CI_CONFIG_PATH);
  if (!file) throw pipelineError('Missing CI config file');
  const parsed = parseCiConfig(file.content.toString('utf8'), { inputs: input.inputs ?? {} });
  // Schedules and pushes keep a failed pipeline naming the error, as GitLab does; the API refuses.
  const keepsBroken = input.source === 'schedule' || input.source === 'push';
  if (!parsed.valid && !keepsBroken) throw pipelineError(parsed.errors[0]!);

  const now = nowIso(ctx);
  return ctx.db.transaction().execute(async (trx) => {
    await input.inTransaction?.(trx);
    const iid = await nextIid(trx, 'ci_pipelines', `project:${project.id}`);
    const base = {
      project_id: project.id,
      iid,
      source: input.source,
      ref: target.name,
      tag: target.kind === 'tag' ? 1 : 0,
      sha: target.commit.sha,
      before_sha: input.beforeSha ?? BLANK_SHA,
      user_id: user?.id ?? null,
      pipeline_schedule_id: input.pipelineScheduleId ?? null,
      warnings: JSON.stringify(parsed.warnings),
      created_at: now,
      updated_at: now,
    };
    if (!parsed.valid) {
      // A scheduled or pushed pipeline with a broken CI file is kept, failed, as GitLab keeps it
      // (created, then dropped: a status change).
      const failed = await trx
        .insertInto('ci_pipelines')
        .values({ ...base, status: 'failed', yaml_errors: parsed.errors[0]!, failure_reason: 'config_error', finished_at: now, inputs: JSON.stringify(input.inputs ?? {}) })
        .returningAll()
        .executeTakeFirstOrThrow();
      await runStatusChanged(trx, 'created', failed, ctx);
      return failed;
    }
    const config = parsed.config;
    const pipeline = await trx
      .insertInto('ci_pipelines')
      .values({ ...base, status: 'created', name: config.name, inputs: JSON.stringify(config.inputs) })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (variables.length) {
      await trx
        .insertInto('ci_pipeline_variables')
        .values(variables.map((v) => ({ pipeline_id: pipeline.id, key: v.key, value_encrypted: ctx.secrets.encrypt(v.value), variable_type: v.variable_type ?? 'env_var' })))
        .execute();
    }
    const jobs: NewCiJobRow[] = [...config.jobs]
      .map((job, i) => ({ job, i }))
      .sort((a, b) => a.job.stageIdx - b.job.stageIdx || a.i - b.i)
      .map(({ job }) => ({
        project_id: project.id,
        pipeline_id: pipeline.id,
        name: job.name,
        stage: job.stage,
        stage_idx: job.stageIdx,
        status: 'created',
        when: job.when,
        allow_failure: job.allowFailure ? 1 : 0,
        ref: target.name,
        tag: target.kind === 'tag' ? 1 : 0,
        definition: JSON.stringify(job.definition),
        user_id: user?.id ?? null,
        environment_name: job.definition.environment?.name ?? null,
        created_at: now,
        updated_at: now,
      }));
    // Every job is announced as created (GitLab's hook on a build's creation), then processed.
    const change = pipelineChange(ctx);
    for (const job of jobs) noteJob(change, (await trx.insertInto('ci_jobs').values(job).returning('id').executeTakeFirstOrThrow()).id, null);
    await announceJobs(trx, change);
    return processPipeline(trx, pipeline.id, now, change);
  });
}
