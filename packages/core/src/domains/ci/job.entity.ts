/** Jobs in GitLab's JSON shapes (`Entities::Ci::JobBasic`, `Entities::Ci::Job`). */
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserEntity, type UserEntity } from '../../access/user.entity.js';
import { presentCommit, type CommitEntity } from '../repository/index.js';
import type { CiJobArtifactRow, CiJobRow, CiPipelineRow } from './ci.table.js';
import type { CiJobDefinition } from './ci-config.js';
import { presentPipelineBasic, usersById, type PipelineBasicEntity } from './pipeline.entity.js';
import { presentRunnerManagers, presentRunners, type RunnerEntity, type RunnerManagerEntity } from './runner.entity.js';

export interface JobArtifactEntity {
  file_type: string;
  size: number;
  filename: string;
  file_format: string;
}

export interface JobEntity {
  id: number;
  status: string;
  stage: string;
  name: string;
  ref: string;
  tag: boolean;
  coverage: number | null;
  allow_failure: boolean;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  erased_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  user: UserEntity | null;
  commit: CommitEntity | null;
  pipeline: PipelineBasicEntity;
  failure_reason?: string;
  web_url: string;
  project: { ci_job_token_scope_enabled: boolean };
  artifacts_file?: { filename: string; size: number };
  artifacts: JobArtifactEntity[];
  runner: RunnerEntity | null;
  /** The runner process that took the job (GitLab's `Entities::Ci::RunnerManager`). */
  runner_manager: RunnerManagerEntity | null;
  artifacts_expire_at: string | null;
  archived: boolean;
  tag_list: string[];
}

export function jobWebUrl(ctx: Pick<Ctx, 'urls'>, project: Pick<ProjectRow, 'path_with_namespace'>, id: number): string {
  return ctx.urls.web(`/${project.path_with_namespace}/-/jobs/${id}`);
}

export function parseDefinition(row: Pick<CiJobRow, 'definition'>): CiJobDefinition {
  return JSON.parse(row.definition) as CiJobDefinition;
}

/** Seconds between two instants (or until now), with milliseconds. */
function seconds(ctx: Ctx, from: string | null, to: string | null): number | null {
  if (!from) return null;
  const end = to ? Date.parse(to) : ctx.clock.now().getTime();
  return Math.max(0, (end - Date.parse(from)) / 1000);
}

/** Entities for jobs of one project, with one query per related kind. */
export async function presentJobs(ctx: Ctx, project: ProjectRow, rows: CiJobRow[]): Promise<JobEntity[]> {
  if (!rows.length) return [];
  const pipelineIds = [...new Set(rows.map((r) => r.pipeline_id))];
  const runnerIds = [...new Set(rows.map((r) => r.runner_id).filter((i): i is number => i !== null))];
  const managerIds = [...new Set(rows.map((r) => r.runner_manager_id).filter((i): i is number => i !== null))];
  const jobIds = rows.map((r) => r.id);
  const [pipelines, users, runners, managers, artifacts] = await Promise.all([
    ctx.db.selectFrom('ci_pipelines').selectAll().where('id', 'in', pipelineIds).execute(),
    usersById(ctx, rows.map((r) => r.user_id)),
    runnerIds.length ? ctx.db.selectFrom('ci_runners').selectAll().where('id', 'in', runnerIds).execute() : Promise.resolve([]),
    managerIds.length ? ctx.db.selectFrom('ci_runner_managers').selectAll().where('id', 'in', managerIds).execute() : Promise.resolve([]),
    ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', 'in', jobIds).orderBy('id').execute(),
  ]);
  const pipelineById = new Map(pipelines.map((p) => [p.id, p as CiPipelineRow]));
  const shas = [...new Set(pipelines.map((p) => p.sha))];
  const commits = shas.length
    ? await ctx.db.selectFrom('repository_commits').selectAll().where('project_id', '=', project.id).where('sha', 'in', shas).execute()
    : [];
  const commitBySha = new Map(commits.map((c) => [c.sha, c]));
  const [runnerList, managerList] = await Promise.all([presentRunners(ctx, runners), presentRunnerManagers(ctx, managers)]);
  const runnerEntities = new Map(runnerList.map((r) => [r.id, r]));
  const managerEntities = new Map(managerList.map((m) => [m.id, m]));
  const artifactsByJob = new Map<number, CiJobArtifactRow[]>();
  for (const a of artifacts) {
    const list = artifactsByJob.get(a.job_id) ?? [];
    list.push(a);
    artifactsByJob.set(a.job_id, list);
  }
  const now = ctx.clock.now().toISOString();
  return rows.map((row) => {
    const pipeline = pipelineById.get(row.pipeline_id)!;
    const user = row.user_id !== null ? users.get(row.user_id) : undefined;
    const commit = commitBySha.get(pipeline.sha);
    // Expired artifacts are gone for readers, as GitLab's `job_artifacts` scope hides them.
    const own = (artifactsByJob.get(row.id) ?? []).filter((a) => a.expire_at === null || a.expire_at > now);
    const archive = own.find((a) => a.file_type === 'archive');
    const entity: JobEntity = {
      id: row.id,
      status: row.status,
      stage: row.stage,
      name: row.name,
      ref: row.ref,
      tag: row.tag === 1,
      coverage: row.coverage,
      allow_failure: row.allow_failure === 1,
      created_at: row.created_at,
      started_at: row.started_at,
      finished_at: row.finished_at,
      erased_at: row.erased_at,
      duration: seconds(ctx, row.started_at, row.finished_at),
      queued_duration: row.queued_at ? seconds(ctx, row.queued_at, row.started_at) : null,
      user: user ? toUserEntity(user, ctx.urls) : null,
      commit: commit ? presentCommit(ctx.urls, project, commit) : null,
      pipeline: presentPipelineBasic(ctx, project, pipeline),
      web_url: jobWebUrl(ctx, project, row.id),
      project: { ci_job_token_scope_enabled: false },
      artifacts: own.map((a) => ({ file_type: a.file_type, size: a.size, filename: a.file_name, file_format: a.file_format })),
      runner: row.runner_id !== null ? (runnerEntities.get(row.runner_id) ?? null) : null,
      runner_manager: row.runner_manager_id !== null ? (managerEntities.get(row.runner_manager_id) ?? null) : null,
      artifacts_expire_at: archive?.expire_at ?? null,
      archived: false,
      tag_list: [...parseDefinition(row).tags].sort(),
    };
    if (row.status === 'failed') {
      const { web_url, project: p, artifacts: a, runner, runner_manager, artifacts_expire_at, archived, tag_list, ...head } = entity;
      return { ...head, failure_reason: row.failure_reason ?? 'unknown_failure', web_url, project: p, ...withArchive(archive), artifacts: a, runner, runner_manager, artifacts_expire_at, archived, tag_list };
    }
    const { artifacts: a, runner, runner_manager, artifacts_expire_at, archived, tag_list, ...head } = entity;
    return { ...head, ...withArchive(archive), artifacts: a, runner, runner_manager, artifacts_expire_at, archived, tag_list };
  });
}

function withArchive(archive: CiJobArtifactRow | undefined): { artifacts_file?: { filename: string; size: number } } {
  return archive ? { artifacts_file: { filename: archive.file_name, size: archive.size } } : {};
}
