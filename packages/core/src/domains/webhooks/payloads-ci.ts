/**
 * Pipeline, job and deployment event payloads as GitLab's data builders write them
 * (Gitlab::DataBuilder::Pipeline, Build and Deployment). GitLab hands these builders' times
 * over as Ruby times, which reach the hook as `Time#to_s` in UTC ("2023-01-10 13:50:02 UTC", as
 * GitLab.com sends them); a job's `*_iso` fields are ISO 8601 to the second. Forgelet has no
 * merge request pipelines nor child pipelines, so `merge_request` is null and `source_pipeline`
 * never appears.
 */
import type { Kysely } from 'kysely';
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { selectUserById, usersByIds } from '../../access/users.js';
import type { SecretBox } from '../../kernel/secrets.js';
import type { Database } from '../../storage/database.js';
import { detailedStatus, pipelineVariablesOf, type CiJobRow, type CiPipelineRow, type CiRunnerRow } from '../ci/index.js';
import { expandedEnvironmentName, type DeploymentRow, type EnvironmentRow } from '../delivery/index.js';
import { isProtectedBranch, selectCommit, type RepositoryCommitRow } from '../repository/index.js';
import { lastCommitOf, projectHookAttrs, userHookAttrs } from './payloads.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

/** Ruby's `Time#to_s` of a UTC time: `2023-01-10 13:50:02 UTC`. */
export function hookTime(iso: string | null): string | null {
  if (!iso) return null;
  const t = new Date(iso).toISOString();
  return `${t.slice(0, 10)} ${t.slice(11, 19)} UTC`;
}

/** `Time#iso8601` of a UTC time: `2023-01-10T13:50:02Z`. */
function isoSeconds(iso: string | null): string | null {
  return iso ? `${new Date(iso).toISOString().slice(0, 19)}Z` : null;
}

/** Seconds from `from` to `to` (or `now`), with milliseconds; null without a start. */
function seconds(from: string | null, to: string | null, now: string): number | null {
  if (!from) return null;
  return Math.max(0, (Date.parse(to ?? now) - Date.parse(from)) / 1000);
}

/** Project#hook_attrs(backward: false): without the deprecated homepage, url, ssh_url, http_url. */
async function projectAttrs(db: Db, urls: UrlBuilder, project: ProjectRow): Promise<Json> {
  const { homepage: _h, url: _u, ssh_url: _s, http_url: _p, ...attrs } = await projectHookAttrs(db, urls, project);
  return attrs;
}

function runnerAttrs(runner: CiRunnerRow | undefined): Json | null {
  if (!runner) return null;
  return {
    id: runner.id,
    description: runner.description,
    runner_type: runner.runner_type,
    active: runner.paused === 0,
    is_shared: runner.runner_type === 'instance_type',
    tags: JSON.parse(runner.tag_list) as string[],
  };
}

/** What a pipeline's payloads share: its project and its commit. */
export interface PipelineFacts {
  pipeline: CiPipelineRow;
  project: ProjectRow;
  commit: RepositoryCommitRow | undefined;
}

export async function pipelineFacts(db: Db, pipeline: CiPipelineRow, project?: ProjectRow): Promise<PipelineFacts> {
  project ??= await db.selectFrom('projects').selectAll().where('id', '=', pipeline.project_id).executeTakeFirstOrThrow();
  return { pipeline, project, commit: await selectCommit(db, project.id, pipeline.sha) };
}

/** The job's `environment` keyword: its expanded name and action, and the tier of the environment of that name. */
async function environmentOf(db: Db, facts: PipelineFacts, job: CiJobRow, withTier: boolean): Promise<Json | null> {
  const name = expandedEnvironmentName(job, facts.pipeline, facts.project);
  if (name === null) return null;
  const action = (JSON.parse(job.definition) as { environment?: { action?: string } }).environment?.action ?? 'start';
  if (!withTier) return { name, action };
  const env = await db.selectFrom('environments').select('tier').where('project_id', '=', facts.project.id).where('name', '=', name).executeTakeFirst();
  return { name, action, deployment_tier: env?.tier ?? null };
}

/** `mailto:` the author, or the page of the user with the author's email (Gitlab::DataBuilder::Build#build_author_url). */
async function authorUrl(db: Db, urls: UrlBuilder, email: string): Promise<string> {
  const user = await db.selectFrom('users').select('username').where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
  return user ? urls.web(`/${user.username}`) : `mailto:${email}`;
}

/** Gitlab::DataBuilder::Build: the job event (`object_kind` build). */
export async function buildJobPayload(db: Db, urls: UrlBuilder, facts: PipelineFacts, job: CiJobRow, now: string): Promise<Json> {
  const { pipeline, project, commit } = facts;
  const user = job.user_id !== null ? await selectUserById(db, job.user_id) : undefined;
  const runner = job.runner_id !== null ? await db.selectFrom('ci_runners').selectAll().where('id', '=', job.runner_id).executeTakeFirst() : undefined;
  const retries = await db
    .selectFrom('ci_jobs')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('pipeline_id', '=', pipeline.id)
    .where('name', '=', job.name)
    .where('retried', '=', 1)
    .executeTakeFirstOrThrow();
  const web = await projectHookAttrs(db, urls, project);
  const authorEmail = commit?.author_email ?? '';
  return {
    object_kind: 'build',
    ref: job.ref,
    tag: job.tag === 1,
    before_sha: pipeline.before_sha,
    sha: pipeline.sha,
    retries_count: Number(retries.n),
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: job.status,
    build_created_at: hookTime(job.created_at),
    build_started_at: hookTime(job.started_at),
    build_finished_at: hookTime(job.finished_at),
    build_created_at_iso: isoSeconds(job.created_at),
    build_started_at_iso: isoSeconds(job.started_at),
    build_finished_at_iso: isoSeconds(job.finished_at),
    build_duration: seconds(job.started_at, job.finished_at, now),
    build_queued_duration: job.queued_at ? seconds(job.queued_at, job.started_at, now) : null,
    build_allow_failure: job.allow_failure === 1,
    // A failure reason of nil reads `unknown_failure` (CommitStatus's enum), whatever the status.
    build_failure_reason: job.failure_reason ?? 'unknown_failure',
    pipeline_id: pipeline.id,
    runner: runnerAttrs(runner),
    project_id: project.id,
    project_name: project.name_with_namespace,
    user: user ? userHookAttrs(user) : null,
    commit: {
      id: pipeline.id,
      name: pipeline.name,
      sha: pipeline.sha,
      message: commit?.message ?? '',
      author_name: commit?.author_name ?? '',
      author_email: authorEmail,
      author_url: await authorUrl(db, urls, authorEmail),
      status: pipeline.status,
      duration: pipeline.duration,
      started_at: hookTime(pipeline.started_at),
      finished_at: hookTime(pipeline.finished_at),
      started_at_iso: isoSeconds(pipeline.started_at),
      finished_at_iso: isoSeconds(pipeline.finished_at),
    },
    repository: {
      name: project.name,
      url: web.url,
      description: web.description,
      homepage: web.web_url,
      git_http_url: web.git_http_url,
      git_ssh_url: web.git_ssh_url,
      visibility_level: web.visibility_level,
    },
    project: await projectAttrs(db, urls, project),
    environment: await environmentOf(db, facts, job, false),
  };
}

/** Gitlab::DataBuilder::Pipeline: the pipeline event, with the latest (not retried) jobs as `builds`. */
export async function buildPipelinePayload(db: Db, urls: UrlBuilder, secrets: SecretBox, facts: PipelineFacts, now: string): Promise<Json> {
  const { pipeline, project } = facts;
  const jobs = await db.selectFrom('ci_jobs').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('stage_idx').orderBy('id').execute();
  const latest = jobs.filter((j) => j.retried === 0);
  const users = await usersByIds(db, [...latest.map((j) => j.user_id), pipeline.user_id].filter((id): id is number => id !== null));
  const runnerIds = [...new Set(latest.map((j) => j.runner_id).filter((id): id is number => id !== null))];
  const runners = runnerIds.length ? await db.selectFrom('ci_runners').selectAll().where('id', 'in', runnerIds).execute() : [];
  const archives = latest.length
    ? await db.selectFrom('ci_job_artifacts').select(['job_id', 'file_name', 'size']).where('job_id', 'in', latest.map((j) => j.id)).where('file_type', '=', 'archive').execute()
    : [];
  const warned = pipeline.status === 'success' && latest.some((j) => j.allow_failure === 1 && ['failed', 'canceled'].includes(j.status));
  const path = `/${project.path_with_namespace}/-/pipelines/${pipeline.id}`;
  const builds: Json[] = [];
  for (const job of [...latest].sort((a, b) => a.id - b.id)) {
    const user = job.user_id !== null ? users.get(job.user_id) : undefined;
    const archive = archives.find((a) => a.job_id === job.id);
    builds.push({
      id: job.id,
      stage: job.stage,
      name: job.name,
      status: job.status,
      created_at: hookTime(job.created_at),
      started_at: hookTime(job.started_at),
      finished_at: hookTime(job.finished_at),
      duration: seconds(job.started_at, job.finished_at, now),
      queued_duration: job.queued_at ? seconds(job.queued_at, job.started_at, now) : null,
      failure_reason: job.status === 'failed' ? (job.failure_reason ?? 'unknown_failure') : null,
      when: job.when,
      manual: job.when === 'manual' || job.when === 'delayed',
      allow_failure: job.allow_failure === 1,
      user: user ? userHookAttrs(user) : null,
      runner: runnerAttrs(runners.find((r) => r.id === job.runner_id)),
      artifacts_file: { filename: archive?.file_name ?? null, size: archive?.size ?? null },
      environment: await environmentOf(db, facts, job, true),
    });
  }
  const pipelineUser = pipeline.user_id !== null ? users.get(pipeline.user_id) : undefined;
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id,
      iid: pipeline.iid,
      name: pipeline.name,
      ref: pipeline.ref,
      tag: pipeline.tag === 1,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      source: pipeline.source,
      status: pipeline.status,
      detailed_status: detailedStatus(pipeline.status, path, { warnings: warned }).label,
      stages: [...new Set(jobs.map((j) => j.stage))],
      created_at: hookTime(pipeline.created_at),
      finished_at: hookTime(pipeline.finished_at),
      duration: pipeline.duration,
      queued_duration: pipeline.queued_duration,
      protected_ref: pipeline.tag === 0 && (await isProtectedBranch(db, project.id, pipeline.ref)),
      variables: (await pipelineVariablesOf(db, secrets, pipeline)).map((v) => ({ key: v.key, value: v.value })),
      url: urls.web(path),
    },
    merge_request: null,
    user: pipelineUser ? userHookAttrs(pipelineUser) : null,
    project: await projectAttrs(db, urls, project),
    commit: await lastCommitOf(db, urls, project, pipeline.sha),
    builds,
  };
}

/** Gitlab::DataBuilder::Deployment: `status` as it became at `changedAt`. */
export async function buildDeploymentPayload(
  db: Db,
  urls: UrlBuilder,
  input: { deployment: DeploymentRow; environment: EnvironmentRow; project: ProjectRow; status: string; changedAt: string },
): Promise<Json> {
  const { deployment, environment, project } = input;
  const job = deployment.deployable_id !== null ? await db.selectFrom('ci_jobs').select(['id', 'user_id']).where('id', '=', deployment.deployable_id).executeTakeFirst() : undefined;
  // Deployment#deployed_by: the job's user (a play changes it), else the deployment's.
  const deployerId = job?.user_id ?? deployment.user_id;
  const deployer = deployerId !== null ? await selectUserById(db, deployerId) : undefined;
  const commit = await selectCommit(db, project.id, deployment.sha);
  return {
    object_kind: 'deployment',
    status: input.status,
    status_changed_at: hookTime(input.changedAt),
    deployment_id: deployment.id,
    deployable_id: deployment.deployable_id,
    deployable_url: job ? urls.web(`/${project.path_with_namespace}/-/jobs/${job.id}`) : null,
    environment: environment.name,
    environment_tier: environment.tier,
    environment_slug: environment.slug,
    environment_external_url: environment.external_url,
    project: await projectHookAttrs(db, urls, project),
    short_sha: deployment.sha.slice(0, 8),
    user: deployer ? userHookAttrs(deployer) : null,
    user_url: deployer ? urls.web(`/${deployer.username}`) : null,
    commit_url: commit ? urls.web(`/${project.path_with_namespace}/-/commit/${commit.sha}`) : null,
    commit_title: commit?.title ?? null,
    ref: deployment.ref,
  };
}
