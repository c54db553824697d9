/** Runners in GitLab's JSON shapes (`Entities::Ci::Runner`, `RunnerDetails`, `RunnerRegistrationDetails`). */
import type { Ctx } from '../../kernel/context.js';
import { toUserBasicEntity, type UserBasicEntity } from '../accounts/user.entity.js';
import { toProjectSimpleEntity, type ProjectSimpleEntity } from '../accounts/project.entity.js';
import type { CiRunnerRow, RunnerType } from './ci.table.js';

export interface RunnerEntity {
  id: number;
  description: string;
  ip_address: null;
  active: boolean;
  paused: boolean;
  is_shared: boolean;
  runner_type: RunnerType;
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

export interface RunnerRegistrationEntity {
  id: number;
  token: string;
  token_expires_at: null;
}

const ONLINE_MS = 2 * 3600_000;
const STALE_MS = 7 * 86_400_000;

export function runnerOnline(ctx: Pick<Ctx, 'clock'>, runner: CiRunnerRow): boolean {
  return runner.contacted_at !== null && ctx.clock.now().getTime() - Date.parse(runner.contacted_at) < ONLINE_MS;
}

/** GitLab's deprecated REST `status`: stale, never_contacted, online, offline or paused. */
function restStatus(ctx: Pick<Ctx, 'clock'>, runner: CiRunnerRow): string {
  const now = ctx.clock.now().getTime();
  const old = (iso: string) => now - Date.parse(iso) >= STALE_MS;
  if (old(runner.created_at) && (runner.contacted_at === null || old(runner.contacted_at))) return 'stale';
  if (runner.contacted_at === null) return 'never_contacted';
  if (runner.paused === 0) return runnerOnline(ctx, runner) ? 'online' : 'offline';
  return 'paused';
}

/** Entities for some runners: creators and running jobs loaded once. */
export async function presentRunners(ctx: Ctx, runners: CiRunnerRow[]): Promise<RunnerEntity[]> {
  if (!runners.length) return [];
  const ids = runners.map((r) => r.id);
  const creatorIds = [...new Set(runners.map((r) => r.creator_id).filter((i): i is number => i !== null))];
  const [creators, busy] = await Promise.all([
    creatorIds.length ? ctx.db.selectFrom('users').selectAll().where('id', 'in', creatorIds).execute() : Promise.resolve([]),
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
      name: null,
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
  const [projects, groups] = await Promise.all([
    projectIds.length ? ctx.db.selectFrom('projects').selectAll().where('id', 'in', projectIds).orderBy('id').execute() : Promise.resolve([]),
    groupIds.length ? ctx.db.selectFrom('namespaces').selectAll().where('id', 'in', groupIds).orderBy('id').execute() : Promise.resolve([]),
  ]);
  const nsIds = [...new Set(projects.map((p) => p.namespace_id))];
  const namespaces = new Map(
    nsIds.length ? (await ctx.db.selectFrom('namespaces').selectAll().where('id', 'in', nsIds).execute()).map((n) => [n.id, n]) : [],
  );
  const details: RunnerDetailsEntity = {
    ...base!,
    tag_list: (JSON.parse(runner.tag_list) as string[]).slice().sort(),
    run_untagged: runner.run_untagged === 1,
    locked: runner.locked === 1,
    maximum_timeout: runner.maximum_timeout,
    access_level: runner.access_level,
    version: null,
    revision: null,
    platform: null,
    architecture: null,
    contacted_at: runner.contacted_at,
    maintenance_note: options.showNote ? runner.maintenance_note : null,
    groups: groups.map((g) => ({ id: g.id, web_url: ctx.urls.web(`/groups/${g.full_path}`), name: g.name })),
  };
  if (runner.runner_type === 'project_type') {
    details.projects = projects.map((p) => toProjectSimpleEntity(p, namespaces.get(p.namespace_id)!, ctx.urls));
  }
  return details;
}
