/** Runners in GitLab's JSON shapes (`Entities::Ci::Runner`, `RunnerDetails`, `RunnerRegistrationDetails`). */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import { presentSimpleProjects, type ProjectSimpleEntity } from '../accounts/index.js';
import type { CiRunnerManagerRow, CiRunnerRow, RunnerType } from './ci.table.js';
import { latestRunnerManagers } from './runner-managers.js';

export interface RunnerEntity {
  id: number;
  description: string;
  /** Always null since GitLab 17.0 (a runner's managers may differ): `runner_manager.ip_address` has it. */
  ip_address: null;
  active: boolean;
  paused: boolean;
  is_shared: boolean;
  runner_type: RunnerType;
  /** `info[name]` at registration. */
  name: string | null;
  online: boolean;
  created_by?: UserBasicEntity;
  created_at: string;
  status: string;
  job_execution_status: 'active' | 'idle';
}

export interface RunnerDetailsEntity extends RunnerEntity {
  tag_list: string[];
  run_untagged: boolean;
  locked: boolean;
  maximum_timeout: number | null;
  access_level: string;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  contacted_at: string | null;
  maintenance_note: string | null;
  projects?: ProjectSimpleEntity[];
  groups: { id: number; web_url: string; name: string }[];
}

/** GitLab's `Entities::Ci::RunnerManager`: one process of a runner, as it last reported itself. */
export interface RunnerManagerEntity {
  id: number;
  system_id: string;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  created_at: string;
  contacted_at: string | null;
  ip_address: string | null;
  status: 'online' | 'offline' | 'never_contacted' | 'stale';
  job_execution_status: 'active' | 'idle';
}

export interface RunnerRegistrationEntity {
  id: number;
  token: string;
  token_expires_at: null;
}

const ONLINE_MS = 2 * 3600_000;
const STALE_MS = 7 * 86_400_000;

type Contacted = Pick<CiRunnerRow, 'contacted_at' | 'created_at'>;

export function runnerOnline(ctx: Pick<Ctx, 'clock'>, runner: Contacted): boolean {
  return runner.contacted_at !== null && ctx.clock.now().getTime() - Date.parse(runner.contacted_at) < ONLINE_MS;
}

/** Stale, never contacted, online or offline (a runner's and a manager's status but for `paused`). */
function contactStatus(ctx: Pick<Ctx, 'clock'>, row: Contacted): 'stale' | 'never_contacted' | 'online' | 'offline' {
  const now = ctx.clock.now().getTime();
  const old = (iso: string) => now - Date.parse(iso) >= STALE_MS;
  if (old(row.created_at) && (row.contacted_at === null || old(row.contacted_at))) return 'stale';
  if (row.contacted_at === null) return 'never_contacted';
  return runnerOnline(ctx, row) ? 'online' : 'offline';
}

/** GitLab's deprecated REST `status`: stale, never_contacted, online, offline or paused. */
function restStatus(ctx: Pick<Ctx, 'clock'>, runner: CiRunnerRow): string {
  const status = contactStatus(ctx, runner);
  return runner.paused === 1 && (status === 'online' || status === 'offline') ? 'paused' : status;
}

/** Entities for some runner managers; which of them run a job is loaded once. */
export async function presentRunnerManagers(ctx: Ctx, managers: CiRunnerManagerRow[]): Promise<RunnerManagerEntity[]> {
  if (!managers.length) return [];
  const busy = await ctx.db
    .selectFrom('ci_jobs')
    .select('runner_manager_id')
    .distinct()
    .where('runner_manager_id', 'in', managers.map((m) => m.id))
    .where('status', '=', 'running')
    .execute();
  const busyIds = new Set(busy.map((b) => b.runner_manager_id));
  return managers.map((m) => ({
    id: m.id,
    system_id: m.system_xid,
    version: m.version,
    revision: m.revision,
    platform: m.platform,
    architecture: m.architecture,
    created_at: m.created_at,
    contacted_at: m.contacted_at,
    ip_address: m.ip_address,
    status: contactStatus(ctx, m),
    job_execution_status: busyIds.has(m.id) ? 'active' : 'idle',
  }));
}

/** Entities for some runners: creators and running jobs loaded once. */
export async function presentRunners(ctx: Ctx, runners: CiRunnerRow[]): Promise<RunnerEntity[]> {
  if (!runners.length) return [];
  const ids = runners.map((r) => r.id);
  const creatorIds = [...new Set(runners.map((r) => r.creator_id).filter((i): i is number => i !== null))];
  const [creators, busy] = await Promise.all([
    selectUsersByIds(ctx.db, creatorIds),
    ctx.db.selectFrom('ci_jobs').select('runner_id').distinct().where('runner_id', 'in', ids).where('status', '=', 'running').execute(),
  ]);
  const creatorById = new Map(creators.map((u) => [u.id, u]));
  const busyIds = new Set(busy.map((b) => b.runner_id));
  return runners.map((r) => {
    const creator = r.creator_id !== null ? creatorById.get(r.creator_id) : undefined;
    const entity: RunnerEntity = {
      id: r.id,
      description: r.description,
      ip_address: null,
      active: r.paused === 0,
      paused: r.paused === 1,
      is_shared: r.runner_type === 'instance_type',
      runner_type: r.runner_type,
      name: r.name,
      online: runnerOnline(ctx, r),
      created_at: r.created_at,
      status: restStatus(ctx, r),
      job_execution_status: busyIds.has(r.id) ? 'active' : 'idle',
    };
    if (creator) {
      const { created_at, status, job_execution_status, ...head } = entity;
      return { ...head, created_by: toUserBasicEntity(creator, ctx.urls), created_at, status, job_execution_status };
    }
    return entity;
  });
}

export async function presentRunnerDetails(ctx: Ctx, runner: CiRunnerRow, options: { showNote: boolean }): Promise<RunnerDetailsEntity> {
  const [base] = await presentRunners(ctx, [runner]);
  const scopes = await ctx.db.selectFrom('ci_runner_scopes').selectAll().where('runner_id', '=', runner.id).orderBy('id').execute();
  const projectIds = scopes.map((s) => s.project_id).filter((i): i is number => i !== null);
  const groupIds = scopes.map((s) => s.namespace_id).filter((i): i is number => i !== null);
  const [projects, groups, managers] = await Promise.all([
    projectIds.length ? ctx.db.selectFrom('projects').selectAll().where('id', 'in', projectIds).orderBy('id').execute() : Promise.resolve([]),
    groupIds.length ? ctx.db.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).orderBy('id').execute() : Promise.resolve([]),
    latestRunnerManagers(ctx.db, [runner.id]),
  ]);
  const latest = managers.get(runner.id);
  const details: RunnerDetailsEntity = {
    ...base!,
    tag_list: (JSON.parse(runner.tag_list) as string[]).slice().sort(),
    run_untagged: runner.run_untagged === 1,
    locked: runner.locked === 1,
    maximum_timeout: runner.maximum_timeout,
    access_level: runner.access_level,
    version: latest?.version ?? null,
    revision: latest?.revision ?? null,
    platform: latest?.platform ?? null,
    architecture: latest?.architecture ?? null,
    contacted_at: runner.contacted_at,
    maintenance_note: options.showNote ? runner.maintenance_note : null,
    groups: groups.map((g) => ({ id: g.id, web_url: ctx.urls.web(`/groups/${g.full_path}`), name: g.name })),
  };
  if (runner.runner_type === 'project_type') {
    // The projects' own simple entities (their README included), as GET /projects?simple=true shows them.
    details.projects = await presentSimpleProjects(ctx, projects);
  }
  return details;
}
