/**
 * Runners: created by users (`POST /user/runners`, `glrt-` tokens) or registered with a
 * project's legacy registration token (`POST /runners`), verified and removed by their own
 * token, and read by administrators and the maintainers of what they serve. Runner tokens and
 * registration tokens are stored as digests; the registration token is also kept encrypted,
 * since maintainers see it again as the project's `runners_token`.
 */
import type { Ctx, Deps } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, UnauthorizedError } from '../../kernel/errors.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { can, traversalIds } from '../../access/policy.js';
import { selectGroupByRef, selectProjectByRef } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CiRunnerRow, RunnerType } from './ci.table.js';
import type { CreateRunnerInput, ListProjectRunnersInput, RegisterRunnerInput, RunnerRefInput, VerifyRunnerInput } from './ci.schema.js';
import { authenticateRunner, runnerByToken } from './runner-managers.js';
import { findCiProject } from './ci-access.js';
import { projectOfRunnersToken } from '../accounts/index.js';
import {
  presentRunnerDetails,
  presentRunnerManagers,
  presentRunners,
  type RunnerDetailsEntity,
  type RunnerEntity,
  type RunnerManagerEntity,
  type RunnerRegistrationEntity,
} from './runner.entity.js';

export const RUNNER_TOKEN_PREFIX = 'glrt-';
const MIN_TIMEOUT = 600;

interface RunnerAttributes {
  description?: string;
  /** `info[name]` at registration. */
  name?: string;
  maintenance_note?: string;
  paused?: boolean;
  locked?: boolean;
  run_untagged?: boolean;
  tag_list?: string[];
  access_level?: 'not_protected' | 'ref_protected';
  maximum_timeout?: number;
}

/** Runner validations; the messages of `Ci::Runner`'s errors as `[attribute, message]`. */
function runnerProblems(a: RunnerAttributes): [string, string][] {
  const problems: [string, string][] = [];
  const tags = (a.tag_list ?? []).map((t) => t.trim()).filter(Boolean);
  if (a.run_untagged === false && tags.length === 0) problems.push(['tags_list', 'can not be empty when runner is not allowed to pick untagged jobs']);
  if (a.maximum_timeout !== undefined && a.maximum_timeout !== null && a.maximum_timeout < MIN_TIMEOUT) {
    problems.push(['maximum_timeout', 'needs to be at least 10 minutes']);
  }
  return problems;
}

async function insertRunner(
  ctx: Ctx,
  type: RunnerType,
  attributes: RunnerAttributes,
  scope: { projectId?: number; namespaceId?: number },
  options: { registration: 'authenticated_user' | 'registration_token'; creatorId: number | null; token: string },
): Promise<CiRunnerRow> {
  const now = nowIso(ctx);
  const tags = [...new Set((attributes.tag_list ?? []).map((t) => t.trim()).filter(Boolean))];
  return ctx.db.transaction().execute(async (trx) => {
    const runner = await trx
      .insertInto('ci_runners')
      .values({
        runner_type: type,
        token_digest: digestToken(options.token),
        token_prefix: options.token.slice(0, 8),
        description: attributes.description ?? '',
        paused: attributes.paused ? 1 : 0,
        locked: attributes.locked ? 1 : 0,
        run_untagged: attributes.run_untagged === false ? 0 : 1,
        tag_list: JSON.stringify(tags),
        access_level: attributes.access_level ?? 'not_protected',
        maximum_timeout: attributes.maximum_timeout ?? null,
        maintenance_note: attributes.maintenance_note ?? null,
        name: attributes.name ?? null,
        registration_type: options.registration,
        creator_id: options.creatorId,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (scope.projectId !== undefined || scope.namespaceId !== undefined) {
      await trx
        .insertInto('ci_runner_scopes')
        .values({ runner_id: runner.id, project_id: scope.projectId ?? null, namespace_id: scope.namespaceId ?? null })
        .execute();
    }
    return runner;
  });
}

/** POST /user/runners: a runner of the instance (admins), a group (Owners) or a project (Maintainers). */
export async function createUserRunner(ctx: Ctx, input: CreateRunnerInput): Promise<RunnerRegistrationEntity> {
  const user = ctx.actor.user;
  if (!user) throw new UnauthorizedError();
  const scope: { projectId?: number; namespaceId?: number } = {};
  if (input.runner_type === 'instance_type') {
    if (!ctx.actor.isAdmin) throw new ForbiddenError('Insufficient permissions');
  } else if (input.runner_type === 'group_type') {
    const group = input.group_id !== undefined ? await selectGroupByRef(ctx, input.group_id) : undefined;
    if (!group) throw new BadRequestError('Missing/invalid scope');
    if (!(await can(ctx, 'create_runner', { kind: 'group', group }))) throw new ForbiddenError('Insufficient permissions');
    scope.namespaceId = group.id;
  } else {
    const project = input.project_id !== undefined ? await selectProjectByRef(ctx, input.project_id) : undefined;
    if (!project) throw new BadRequestError('Missing/invalid scope');
    if (!(await can(ctx, 'admin_runner', { kind: 'project', project }))) throw new ForbiddenError('Insufficient permissions');
    scope.projectId = project.id;
  }
  const problems = runnerProblems(input);
  if (problems.length) {
    const [field, message] = problems[0]!;
    const label = field === 'tags_list' ? 'Tags list' : 'Maximum timeout';
    throw new BadRequestError(`${label} ${message}`);
  }
  const token = randomToken(RUNNER_TOKEN_PREFIX, 15);
  const runner = await insertRunner(ctx, input.runner_type, input, scope, { registration: 'authenticated_user', creatorId: user.id, token });
  return { id: runner.id, token, token_expires_at: null };
}

/** POST /runners with a project's registration token (legacy registration). */
export async function registerRunner(ctx: Ctx, input: RegisterRunnerInput): Promise<RunnerRegistrationEntity> {
  const projectId = await projectOfRunnersToken(ctx.db, input.token);
  if (projectId === undefined) throw new ForbiddenError();
  const attributes: RunnerAttributes = {
    description: input.description,
    name: input.info?.name,
    maintenance_note: input.maintenance_note ?? input.maintainer_note,
    paused: input.paused ?? (input.active === undefined ? undefined : !input.active),
    locked: input.locked,
    run_untagged: input.run_untagged,
    tag_list: input.tag_list,
    access_level: input.access_level,
    maximum_timeout: input.maximum_timeout,
  };
  const problems = runnerProblems(attributes);
  if (problems.length) throw new BadRequestError(Object.fromEntries(problems.map(([f, m]) => [f, [m]])), { raw: true });
  const token = randomToken('', 15);
  const runner = await insertRunner(ctx, 'project_type', attributes, { projectId }, { registration: 'registration_token', creatorId: null, token });
  return { id: runner.id, token, token_expires_at: null };
}

/**
 * POST /runners/verify: 403 unless the token is a runner's. A runner created in the UI or API
 * (`glrt-` token) counts as contacted only once it asks for jobs.
 */
export async function verifyRunner(ctx: Ctx, input: VerifyRunnerInput, ip: string): Promise<void> {
  await authenticateRunner(ctx, input.token, { ip, systemId: input.system_id, updateContactedAt: !input.token.startsWith(RUNNER_TOKEN_PREFIX) });
}

/** DELETE /runners: the runner of the token removes itself. */
export async function unregisterRunner(ctx: Ctx, token: string): Promise<void> {
  const runner = await runnerByToken(ctx.db, token);
  if (!runner) throw new ForbiddenError();
  await ctx.db.deleteFrom('ci_runners').where('id', '=', runner.id).execute();
}

/** May the actor read (and manage) the runner? Admins; Maintainers of one of its projects; Owners of its group. */
async function canReadRunner(ctx: Ctx, runner: CiRunnerRow): Promise<boolean> {
  if (ctx.actor.isAdmin) return true;
  const scopes = await ctx.db.selectFrom('ci_runner_scopes').selectAll().where('runner_id', '=', runner.id).execute();
  for (const s of scopes) {
    if (s.project_id !== null) {
      const project = await selectProjectByRef(ctx, s.project_id);
      if (project && (await can(ctx, 'admin_runner', { kind: 'project', project }))) return true;
    }
    if (s.namespace_id !== null) {
      const group = await selectGroupByRef(ctx, s.namespace_id);
      if (group && (await can(ctx, 'admin_runner', { kind: 'group', group }))) return true;
    }
  }
  return false;
}

/** GitLab's `authenticate_show_runner!`: instance runners for anyone signed in; others for who may manage them. */
async function findShownRunner(ctx: Ctx, id: number): Promise<{ runner: CiRunnerRow; manage: boolean }> {
  const runner = await ctx.db.selectFrom('ci_runners').selectAll().where('id', '=', id).executeTakeFirst();
  if (!runner) throw new NotFoundError('Runner');
  const manage = await canReadRunner(ctx, runner);
  if (runner.runner_type !== 'instance_type' && !manage) throw new ForbiddenError('No access granted');
  return { runner, manage };
}

/** GET /runners/:id */
export async function getRunner(ctx: Ctx, input: RunnerRefInput): Promise<RunnerDetailsEntity> {
  const { runner, manage } = await findShownRunner(ctx, input.id);
  return presentRunnerDetails(ctx, runner, { showNote: manage });
}

/** GET /runners/:id/managers: every process of the runner (not paginated, as in GitLab). */
export async function listRunnerManagers(ctx: Ctx, input: RunnerRefInput): Promise<RunnerManagerEntity[]> {
  const { runner } = await findShownRunner(ctx, input.id);
  const managers = await ctx.db.selectFrom('ci_runner_managers').selectAll().where('runner_id', '=', runner.id).orderBy('id').execute();
  return presentRunnerManagers(ctx, managers);
}

/** GET /projects/:id/runners (Maintainers): the project's, its groups' and the instance's runners. */
export async function listProjectRunners(ctx: Ctx, input: ListProjectRunnersInput): Promise<Page<RunnerEntity>> {
  const project = await findCiProject(ctx, input.id, 'admin_runner');
  const groupIds = await projectGroupIdsOf(ctx, project);
  let q = ctx.db
    .selectFrom('ci_runners as r')
    .selectAll('r')
    .where((eb) =>
      eb.or([
        eb('r.runner_type', '=', 'instance_type'),
        eb('r.id', 'in', eb.selectFrom('ci_runner_scopes').select('runner_id').where('project_id', '=', project.id)),
        ...(groupIds.length ? [eb('r.id', 'in', eb.selectFrom('ci_runner_scopes').select('runner_id').where('namespace_id', 'in', groupIds))] : []),
      ]),
    );
  const type = input.type ?? (input.scope === 'shared' ? 'instance_type' : undefined);
  if (type) q = q.where('r.runner_type', '=', type);
  if (input.scope === 'specific') q = q.where('r.runner_type', '!=', 'instance_type');
  const paused = input.paused ?? (input.scope === 'paused' || input.status === 'paused' ? true : input.scope === 'active' || input.status === 'active' ? false : undefined);
  if (paused !== undefined) q = q.where('r.paused', '=', paused ? 1 : 0);
  const status = input.status ?? (['online', 'offline', 'never_contacted', 'stale'].includes(input.scope ?? '') ? input.scope : undefined);
  const onlineSince = new Date(ctx.clock.now().getTime() - 2 * 3600_000).toISOString();
  if (status === 'online') q = q.where('r.contacted_at', '>', onlineSince);
  else if (status === 'offline') q = q.where('r.contacted_at', '<=', onlineSince);
  else if (status === 'never_contacted') q = q.where('r.contacted_at', 'is', null);
  else if (status === 'stale') {
    const staleBefore = new Date(ctx.clock.now().getTime() - 7 * 86_400_000).toISOString();
    q = q.where('r.created_at', '<=', staleBefore).where((eb) => eb.or([eb('r.contacted_at', 'is', null), eb('r.contacted_at', '<=', staleBefore)]));
  }
  for (const tag of input.tag_list ?? []) q = q.where('r.tag_list', 'like', `%${JSON.stringify(tag.trim())}%`);
  q = q.orderBy('r.id', 'desc');
  return paginate(ctx.db, q, input, (rows) => presentRunners(ctx, rows));
}

async function projectGroupIdsOf(ctx: Ctx, project: ProjectRow): Promise<number[]> {
  const ns = await ctx.db.selectFrom('namespaces').select(['kind', 'traversal']).where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  return ns.kind === 'group' ? traversalIds(ns.traversal) : [];
}

/** Runners serving the project's jobs, for the job payload's `CI_RUNNER_*` and authorization. */
export async function groupTraversalsOf(db: Deps['db'], runnerId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('ci_runner_scopes')
    .innerJoin('namespaces', 'namespaces.id', 'ci_runner_scopes.namespace_id')
    .select('namespaces.traversal')
    .where('ci_runner_scopes.runner_id', '=', runnerId)
    .execute();
  return rows.map((r) => r.traversal);
}

