/**
 * Environments, deployments and protected environments in GitLab's JSON shapes
 * (`Entities::EnvironmentBasic`, `Entities::Environment`, `Entities::Deployment`, EE's
 * `DeploymentExtended`, `Entities::ProtectedEnvironment`).
 */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentSimpleProjects, type ProjectSimpleEntity } from '../accounts/index.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { CiJobRow } from '../ci/index.js';
import { presentJobs, type JobEntity } from '../ci/index.js';
import type { ApprovalRuleRow, DeployAccessLevelRow, DeploymentApprovalRow, DeploymentRow, EnvironmentRow, ProtectedEnvironmentRow } from './delivery.table.js';
import { approvalRulesOf, describeEntry, entryNames, pendingApprovalCount, type Protection } from './protection.js';

export interface EnvironmentBasicEntity {
  id: number;
  name: string;
  slug: string;
  external_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface EnvironmentEntity extends EnvironmentBasicEntity {
  tier: string;
  project?: ProjectSimpleEntity;
  last_deployment?: Omit<DeploymentEntity, 'environment'> | null;
  state: string;
  auto_stop_at: string | null;
  description: string | null;
  auto_stop_setting: string;
}

export interface DeploymentEntity {
  id: number;
  iid: number;
  ref: string;
  sha: string;
  created_at: string;
  updated_at: string;
  user: UserBasicEntity | null;
  environment: EnvironmentBasicEntity;
  deployable: JobEntity | null;
  status: string;
}

export interface DeploymentApprovalEntity {
  user: UserBasicEntity;
  status: string;
  created_at: string;
  comment: string | null;
}

export interface ProtectedEnvironmentApprovalRuleEntity {
  id: number;
  user_id: number | null;
  group_id: number | null;
  access_level: number | null;
  access_level_description: string | null;
  required_approvals: number;
  group_inheritance_type: number;
}

export interface DeploymentExtendedEntity extends DeploymentEntity {
  pending_approval_count: number;
  approvals: DeploymentApprovalEntity[];
  approval_summary: { rules: (ProtectedEnvironmentApprovalRuleEntity & { deployment_approvals: DeploymentApprovalEntity[] })[] };
}

export interface DeployAccessLevelEntity {
  id: number;
  access_level: number | null;
  access_level_description: string | null;
  user_id: number | null;
  group_id: number | null;
  group_inheritance_type: number;
}

export interface ProtectedEnvironmentEntity {
  name: string;
  deploy_access_levels: DeployAccessLevelEntity[];
  required_approval_count: number;
  approval_rules: ProtectedEnvironmentApprovalRuleEntity[];
}

export function toEnvironmentBasic(row: EnvironmentRow): EnvironmentBasicEntity {
  return { id: row.id, name: row.name, slug: row.slug, external_url: row.external_url, created_at: row.created_at, updated_at: row.updated_at };
}

/**
 * The environment entity. Lists and writes carry `project`; the single GET carries
 * `last_deployment` (without its environment) instead, as GitLab's API presents it.
 */
export async function presentEnvironments(
  ctx: Ctx,
  project: ProjectRow,
  rows: EnvironmentRow[],
  options: { lastDeployment?: boolean } = {},
): Promise<EnvironmentEntity[]> {
  if (!rows.length) return [];
  let projectEntity: ProjectSimpleEntity | undefined;
  let last = new Map<number, Omit<DeploymentEntity, 'environment'>>();
  if (options.lastDeployment) {
    const deployments = await ctx.db
      .selectFrom('deployments as d')
      .selectAll('d')
      .where('d.environment_id', 'in', rows.map((r) => r.id))
      .where('d.status', '=', 'success')
      .where('d.id', '=', (eb) =>
        eb.selectFrom('deployments as l').select((e) => e.fn.max('l.id').as('m')).whereRef('l.environment_id', '=', 'd.environment_id').where('l.status', '=', 'success'),
      )
      .execute();
    const entities = await presentDeployments(ctx, project, deployments, rows);
    last = new Map(entities.map((e, i) => {
      const { environment: _omit, ...rest } = e;
      return [deployments[i]!.environment_id, rest];
    }));
  } else {
    [projectEntity] = await presentSimpleProjects(ctx, [project]);
  }
  return rows.map((row) => {
    const head: EnvironmentEntity = { ...toEnvironmentBasic(row), tier: row.tier } as EnvironmentEntity;
    if (options.lastDeployment) head.last_deployment = last.get(row.id) ?? null;
    else head.project = projectEntity;
    return {
      ...head,
      state: row.state,
      auto_stop_at: row.auto_stop_at,
      description: row.description,
      auto_stop_setting: row.auto_stop_setting,
    };
  });
}

/** Deployments of one project (list shape), with one query per related kind. */
export async function presentDeployments(ctx: Ctx, project: ProjectRow, rows: DeploymentRow[], knownEnvironments: EnvironmentRow[] = []): Promise<DeploymentEntity[]> {
  if (!rows.length) return [];
  const envs = new Map(knownEnvironments.map((e) => [e.id, e]));
  const missingEnvs = [...new Set(rows.map((r) => r.environment_id))].filter((id) => !envs.has(id));
  if (missingEnvs.length) for (const e of await ctx.db.selectFrom('environments').selectAll().where('id', 'in', missingEnvs).execute()) envs.set(e.id, e);
  const userIds = [...new Set(rows.map((r) => r.user_id).filter((id): id is number => id !== null))];
  const jobIds = [...new Set(rows.map((r) => r.deployable_id).filter((id): id is number => id !== null))];
  const [users, jobs] = await Promise.all([
    selectUsersByIds(ctx.db, userIds),
    jobIds.length ? ctx.db.selectFrom('ci_jobs').selectAll().where('id', 'in', jobIds).execute() : Promise.resolve([] as CiJobRow[]),
  ]);
  const userById = new Map(users.map((u) => [u.id, u]));
  const jobEntities = await presentJobs(ctx, project, jobs);
  const jobById = new Map(jobEntities.map((j) => [j.id, j]));
  return rows.map((row) => {
    const user = row.user_id !== null ? userById.get(row.user_id) : undefined;
    return {
      id: row.id,
      iid: row.iid,
      ref: row.ref,
      sha: row.sha,
      created_at: row.created_at,
      updated_at: row.updated_at,
      user: user ? toUserBasicEntity(user, ctx.urls) : null,
      environment: toEnvironmentBasic(envs.get(row.environment_id)!),
      deployable: row.deployable_id !== null ? (jobById.get(row.deployable_id) ?? null) : null,
      status: row.status,
    };
  });
}

/** The single-deployment shape: approvals and the approval summary of its environment's rules. */
export async function presentDeploymentExtended(
  ctx: Ctx,
  project: ProjectRow,
  row: DeploymentRow,
  environment: EnvironmentRow,
  protections: Protection[],
): Promise<DeploymentExtendedEntity> {
  const [base] = await presentDeployments(ctx, project, [row], [environment]);
  const approvals = await ctx.db.selectFrom('deployment_approvals').selectAll().where('deployment_id', '=', row.id).orderBy('id').execute();
  const approvalEntities = await presentApprovals(ctx, approvals);
  const rules = approvalRulesOf(protections).map((r) => r.rule);
  const names = await entryNames(ctx.db, rules);
  return {
    ...base!,
    pending_approval_count: row.status === 'blocked' ? pendingApprovalCount(protections, approvals) : 0,
    approvals: approvalEntities,
    approval_summary: {
      rules: rules.map((rule) => ({
        ...toApprovalRuleEntity(rule, names),
        deployment_approvals: approvalEntities.filter((_, i) => approvals[i]!.approval_rule_id === rule.id),
      })),
    },
  };
}

export async function presentApprovals(ctx: Ctx, approvals: DeploymentApprovalRow[]): Promise<DeploymentApprovalEntity[]> {
  if (!approvals.length) return [];
  const users = await selectUsersByIds(ctx.db, approvals.map((a) => a.user_id));
  const byId = new Map(users.map((u) => [u.id, u]));
  return approvals.map((a) => ({ user: toUserBasicEntity(byId.get(a.user_id)!, ctx.urls), status: a.status, created_at: a.created_at, comment: a.comment }));
}

function toApprovalRuleEntity(rule: ApprovalRuleRow, names: Awaited<ReturnType<typeof entryNames>>): ProtectedEnvironmentApprovalRuleEntity {
  return {
    id: rule.id,
    user_id: rule.user_id,
    group_id: rule.group_id,
    access_level: rule.access_level,
    access_level_description: describeEntry(rule, names),
    required_approvals: rule.required_approvals,
    group_inheritance_type: rule.group_inheritance_type,
  };
}

function toDeployAccessLevelEntity(level: DeployAccessLevelRow, names: Awaited<ReturnType<typeof entryNames>>): DeployAccessLevelEntity {
  return {
    id: level.id,
    access_level: level.access_level,
    access_level_description: describeEntry(level, names),
    user_id: level.user_id,
    group_id: level.group_id,
    group_inheritance_type: level.group_inheritance_type,
  };
}

export async function presentProtectedEnvironments(
  ctx: Ctx,
  rows: { row: ProtectedEnvironmentRow; deployLevels: DeployAccessLevelRow[]; rules: ApprovalRuleRow[] }[],
): Promise<ProtectedEnvironmentEntity[]> {
  const names = await entryNames(ctx.db, rows.flatMap((r) => [...r.deployLevels, ...r.rules]));
  return rows.map(({ row, deployLevels, rules }) => ({
    name: row.name,
    deploy_access_levels: deployLevels.map((l) => toDeployAccessLevelEntity(l, names)),
    required_approval_count: row.required_approval_count,
    approval_rules: rules.map((r) => toApprovalRuleEntity(r, names)),
  }));
}
