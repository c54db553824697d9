/**
 * CI jobs that declare an `environment` (GitLab's Seed::Environment / Seed::Deployment and
 * the EE ProcessBuildService), called from processPipeline after it has applied the job
 * statuses of a change, in the same transaction:
 *  - the environment is created on first sight (tier from `deployment_tier`, else guessed
 *    from the name); a `stop` job stops it when it succeeds;
 *  - a `start` job (the default action) gets one deployment, whose status follows the job:
 *    created (created, pending, manual …), running, success, failed, canceled, skipped;
 *  - protected environments (Premium): when the job is about to run (pending, or a manual
 *    job) and the environment needs approvals, the job is held `manual` and its deployment
 *    `blocked` until every approval rule has its approvals; then someone allowed to deploy
 *    runs (plays) the job, as on GitLab. Playing it earlier is refused ("Unplayable Job").
 *    A job whose user may not deploy fails with `protected_environment_failure` when it
 *    would start.
 */
import { selectUserById } from '../../access/users.js';
import type { Kysely } from 'kysely';
import { BadRequestError } from '../../kernel/errors.js';
import type { Database } from '../../storage/database.js';
import type { CiJobDefinition } from '../ci/index.js';
import { noteJob, processPipeline, type CiJobRow, type CiPipelineRow, type PipelineChange, type PipelineHooks } from '../ci/index.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { DeploymentRow, EnvironmentRow } from './delivery.table.js';
import { insertDeployment, moveDeployment, refreshEnvironmentDays, transitionAllowed } from './deployment-flow.js';
import { findOrCreateEnvironment, isTier } from './environment-model.js';
import { needsApproval, pendingApprovalCount, protectedFrom, protectionsFor, type Protection } from './protection.js';

type Db = Kysely<Database>;

/** The status a job's deployment follows; null keeps it (a blocked deployment of a job held manual). */
function followingStatus(jobStatus: string, current: string): string | null {
  switch (jobStatus) {
    case 'running':
      return 'running';
    case 'success':
      return 'success';
    case 'failed':
      return 'failed';
    case 'canceled':
    case 'canceling':
      return 'canceled';
    case 'skipped':
      return 'skipped';
    default:
      return current === 'blocked' ? null : 'created';
  }
}

/** `$VAR` / `${VAR}` in an environment name, from the job's variables and a few predefined ones. */
function expandName(name: string, vars: Record<string, string>): string {
  return name.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => vars[(a ?? b)!] ?? '');
}

function refSlug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '-').slice(0, 63).replace(/^-+|-+$/g, '');
}

interface JobStatusHolder {
  id: number;
  status: string;
}

/**
 * The environment a job names, `$VAR` / `${VAR}` expanded from its variables and a few
 * predefined ones (the name its deployment gets); null without an `environment` or when it
 * expands to nothing.
 */
export function expandedEnvironmentName(job: CiJobRow, pipeline: Pick<CiPipelineRow, 'sha' | 'iid'>, project: Pick<ProjectRow, 'default_branch' | 'path' | 'path_with_namespace'>): string | null {
  const def = JSON.parse(job.definition) as CiJobDefinition;
  if (!def.environment) return null;
  const vars: Record<string, string> = {
    CI_COMMIT_REF_NAME: job.ref,
    CI_COMMIT_REF_SLUG: refSlug(job.ref),
    ...(job.tag ? { CI_COMMIT_TAG: job.ref } : { CI_COMMIT_BRANCH: job.ref }),
    CI_COMMIT_SHA: pipeline.sha,
    CI_COMMIT_SHORT_SHA: pipeline.sha.slice(0, 8),
    CI_DEFAULT_BRANCH: project.default_branch,
    CI_JOB_NAME: job.name,
    CI_JOB_STAGE: job.stage,
    CI_PIPELINE_IID: String(pipeline.iid),
    CI_PROJECT_NAME: project.path,
    CI_PROJECT_PATH: project.path_with_namespace,
    ...Object.fromEntries(def.variables.map((v) => [v.key, v.value])),
  };
  return expandName(def.environment.name, vars).trim() || null;
}

/**
 * Syncs the environments and deployments of a pipeline's jobs with their statuses. `jobs`
 * is processPipeline's working list: jobs held manual or failed here are updated in it too,
 * so the pipeline status it computes next sees them.
 */
export async function syncJobDeployments(db: Db, pipelineId: number, jobs: JobStatusHolder[], now: string, change: PipelineChange): Promise<void> {
  const rows = await db
    .selectFrom('ci_jobs')
    .selectAll()
    .where('pipeline_id', '=', pipelineId)
    .where('retried', '=', 0)
    .where('environment_name', 'is not', null)
    .orderBy('id')
    .execute();
  if (!rows.length) return;
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirstOrThrow();
  const project = await db.selectFrom('projects').selectAll().where('id', '=', pipeline.project_id).executeTakeFirstOrThrow();
  const protectionCache = new Map<number, Protection[]>();
  const protectionsOf = async (env: EnvironmentRow) => {
    let p = protectionCache.get(env.id);
    if (!p) protectionCache.set(env.id, (p = await protectionsFor(db, project, env)));
    return p;
  };
  let dropped = false;

  for (const job of rows) {
    const spec = (JSON.parse(job.definition) as CiJobDefinition).environment;
    const name = expandedEnvironmentName(job, pipeline, project);
    if (!spec || !name) continue;
    const action = spec.action ?? 'start';
    let env = await db.selectFrom('environments').selectAll().where('project_id', '=', project.id).where('name', '=', name).executeTakeFirst();
    if (!env) {
      if (action === 'stop') continue;
      env = await findOrCreateEnvironment(db, project.id, name, now, spec.deployment_tier && isTier(spec.deployment_tier) ? spec.deployment_tier : undefined);
    } else if (spec.deployment_tier && isTier(spec.deployment_tier) && env.tier !== spec.deployment_tier) {
      const before = env.tier;
      env = await db.updateTable('environments').set({ tier: spec.deployment_tier, updated_at: now }).where('id', '=', env.id).returningAll().executeTakeFirstOrThrow();
      await refreshEnvironmentDays(db, env, [before, env.tier]);
    }
    if (action === 'stop') {
      const state = job.status === 'success' ? 'stopped' : job.status === 'running' ? 'stopping' : null;
      if (state && env.state !== state && !(state === 'stopping' && env.state === 'stopped')) {
        await db.updateTable('environments').set({ state, updated_at: now }).where('id', '=', env.id).execute();
      }
      continue;
    }
    if (action !== 'start') continue;

    let deployment: DeploymentRow | undefined = await db.selectFrom('deployments').selectAll().where('deployable_id', '=', job.id).executeTakeFirst();
    deployment ??= await insertDeployment(
      db,
      { project_id: project.id, environment_id: env.id, ref: job.ref, tag: job.tag === 1, sha: pipeline.sha, user_id: job.user_id, deployable_id: job.id },
      now,
    );

    let status = job.status;
    if (status === 'pending' || (status === 'manual' && deployment.status === 'created')) {
      const protections = await protectionsOf(env);
      if (needsApproval(protections) && (deployment.status === 'created' || deployment.status === 'blocked')) {
        const approvals = await db.selectFrom('deployment_approvals').selectAll().where('deployment_id', '=', deployment.id).execute();
        const missing = pendingApprovalCount(protections, approvals);
        if (deployment.status === 'blocked' && status === 'pending') {
          // Played while approvals are missing: GitLab's job is not playable then.
          if (missing > 0) throw new BadRequestError('Unplayable Job');
          deployment = await moveDeployment(db, change.by, deployment, env, 'created', now);
        } else if (deployment.status === 'created' && missing > 0) {
          deployment = await moveDeployment(db, change.by, deployment, env, 'blocked', now);
          if (status === 'pending') {
            await db.updateTable('ci_jobs').set({ status: 'manual', queued_at: null, updated_at: now }).where('id', '=', job.id).execute();
            noteJob(change, job.id, 'pending');
            status = 'manual';
          }
        }
      }
      if (status === 'pending') {
        const user = job.user_id !== null ? await selectUserById(db, job.user_id) : undefined;
        if (await protectedFrom(db, protections, user ?? null, now)) {
          await db
            .updateTable('ci_jobs')
            .set({ status: 'failed', failure_reason: 'protected_environment_failure', queued_at: null, finished_at: now, updated_at: now })
            .where('id', '=', job.id)
            .execute();
          noteJob(change, job.id, 'pending');
          status = 'failed';
          dropped = true;
        }
      }
      const held = jobs.find((j) => j.id === job.id);
      if (held) held.status = status;
    }

    const next = followingStatus(status, deployment.status);
    if (next && next !== deployment.status && transitionAllowed(deployment.status, next)) {
      deployment = await moveDeployment(db, change.by, deployment, env, next, now);
    }
  }

  if (dropped) {
    // A job failed here: process again so that later jobs follow (skipped, on_failure …),
    // and hand the outcome back to the caller's working list.
    await processPipeline(db, pipelineId, now, change);
    const fresh = await db.selectFrom('ci_jobs').select(['id', 'status']).where('pipeline_id', '=', pipelineId).where('retried', '=', 0).execute();
    const byId = new Map(fresh.map((j) => [j.id, j.status]));
    for (const j of jobs) j.status = byId.get(j.id) ?? j.status;
  }
}

/** Delivery's reaction to pipelines, registered by the wiring (ci's pipeline hooks). */
export const deliveryPipelineHooks: PipelineHooks = { jobsAdvanced: syncJobDeployments };
