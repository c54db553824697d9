/** The environments API (GitLab's lib/api/environments.rb). */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, type ProjectAbility } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { presentEnvironments, presentProtectedEnvironments, type EnvironmentEntity, type ProtectedEnvironmentEntity } from './delivery.entity.js';
import { protectionsFor } from './protection.js';
import type { CreateEnvironmentInput, EnvironmentRefInput, ListEnvironmentsInput, StopEnvironmentInput, UpdateEnvironmentInput } from './delivery.schema.js';
import type { EnvironmentRow, EnvironmentUpdate } from './delivery.table.js';
import { refreshEnvironmentDays } from './deployment-flow.js';
import { refreshDoraDay } from './dora.js';
import { environmentErrors, environmentSlug, guessTier, uniqueSlug } from './environment-model.js';

const MIN_SEARCH_LENGTH = 3;

export async function findDeliveryProject(ctx: Ctx, ref: string, ability: ProjectAbility): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, ability, { kind: 'project', project });
  return project;
}

/** An environment of the project by id; `404 Not found` otherwise. */
export async function findEnvironment(ctx: Ctx, project: ProjectRow, id: number): Promise<EnvironmentRow> {
  const row = await ctx.db.selectFrom('environments').selectAll().where('project_id', '=', project.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

function rejectSlug(input: { slug?: unknown }): void {
  if (input.slug !== undefined) throw new ValidationError([{ field: 'slug', message: 'is automatically generated and cannot be changed' }]);
}

/** GET /projects/:id/environments (Reporter; anyone who sees a public project's pipelines). */
export async function listEnvironments(ctx: Ctx, input: ListEnvironmentsInput): Promise<Page<EnvironmentEntity>> {
  // Grape's `mutually_exclusive :name, :search, message: 'cannot be used together'`.
  if (input.name !== undefined && input.search !== undefined) throw new ValidationError([{ field: 'name, search', message: 'cannot be used together' }]);
  const project = await findDeliveryProject(ctx, input.id, 'read_environment');
  if (input.search !== undefined && input.search.length < MIN_SEARCH_LENGTH) throw new BadRequestError(`Search query is less than ${MIN_SEARCH_LENGTH} characters`);
  let q = ctx.db.selectFrom('environments').selectAll().where('project_id', '=', project.id);
  if (input.name !== undefined) q = q.where('name', '=', input.name);
  if (input.search !== undefined) {
    const term = input.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
    q = q.where((eb) => eb(eb.fn('lower', ['name']), 'like', `%${term}%`));
  }
  if (input.states !== undefined) q = q.where('state', '=', input.states);
  return paginate(ctx.db, q.orderBy('id'), input, (rows) => presentEnvironments(ctx, project, rows));
}

/** GET …/environments/:environment_id: with its last successful deployment, without `project`. */
export async function getEnvironment(ctx: Ctx, input: EnvironmentRefInput): Promise<EnvironmentEntity> {
  const project = await findDeliveryProject(ctx, input.id, 'read_environment');
  const env = await findEnvironment(ctx, project, input.environment_id);
  return (await presentEnvironments(ctx, project, [env], { lastDeployment: true }))[0]!;
}

/** POST /projects/:id/environments (Developer): 201; model errors 400 `{"message":{"name":[...]}}`. */
export async function createEnvironment(ctx: Ctx, input: CreateEnvironmentInput): Promise<EnvironmentEntity> {
  rejectSlug(input);
  const project = await findDeliveryProject(ctx, input.id, 'create_environment');
  const errors = await environmentErrors(ctx.db, project.id, { name: input.name, external_url: input.external_url });
  if (Object.keys(errors).length) throw new BadRequestError(errors);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) =>
    trx
      .insertInto('environments')
      .values({
        project_id: project.id,
        name: input.name,
        slug: await uniqueSlug(trx, project.id, environmentSlug(input.name)),
        external_url: input.external_url || null,
        tier: input.tier ?? guessTier(input.name),
        description: input.description ?? null,
        auto_stop_at: null,
        ...(input.auto_stop_setting ? { auto_stop_setting: input.auto_stop_setting } : {}),
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return (await presentEnvironments(ctx, project, [row]))[0]!;
}

/**
 * PUT …/environments/:environment_id (Developer): name (deprecated rename), external_url,
 * tier, description, auto_stop_setting. A new tier moves the environment's DORA days.
 */
export async function updateEnvironment(ctx: Ctx, input: UpdateEnvironmentInput): Promise<EnvironmentEntity> {
  rejectSlug(input);
  const project = await findDeliveryProject(ctx, input.id, 'update_environment');
  const env = await findEnvironment(ctx, project, input.environment_id);
  const set: EnvironmentUpdate = {};
  if (input.name !== undefined && input.name !== env.name) set.name = input.name;
  if (input.external_url !== undefined) set.external_url = input.external_url || null;
  if (input.tier !== undefined) set.tier = input.tier;
  if (input.description !== undefined) set.description = input.description;
  if (input.auto_stop_setting !== undefined) set.auto_stop_setting = input.auto_stop_setting;
  const errors = await environmentErrors(ctx.db, project.id, { name: set.name, external_url: set.external_url }, env.id);
  if (Object.keys(errors).length) throw new BadRequestError(errors);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (set.name !== undefined) set.slug = await uniqueSlug(trx, project.id, environmentSlug(set.name));
    const updated = await trx
      .updateTable('environments')
      .set({ ...set, updated_at: now })
      .where('id', '=', env.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (updated.tier !== env.tier) await refreshEnvironmentDays(trx, updated, [env.tier, updated.tier]);
    return updated;
  });
  return (await presentEnvironments(ctx, project, [row]))[0]!;
}

/**
 * DELETE …/environments/:environment_id: 204. Only a stopped environment may be deleted
 * (GitLab's EnvironmentPolicy), else 403; its deployments go with it.
 */
export async function deleteEnvironment(ctx: Ctx, input: EnvironmentRefInput): Promise<void> {
  const project = await findDeliveryProject(ctx, input.id, 'read_environment');
  const env = await findEnvironment(ctx, project, input.environment_id);
  await authorize(ctx, 'destroy_environment', { kind: 'project', project });
  if (env.state !== 'stopped') throw new ForbiddenError();
  await ctx.db.transaction().execute(async (trx) => {
    const counted = await trx
      .selectFrom('deployments')
      .select('finished_at')
      .where('environment_id', '=', env.id)
      .where('status', '=', 'success')
      .where('finished_at', 'is not', null)
      .execute();
    await trx.deleteFrom('environments').where('id', '=', env.id).execute();
    // The deployments are gone: the days they counted in are recomputed without them.
    for (const day of new Set(counted.map((d) => d.finished_at!.slice(0, 10)))) await refreshDoraDay(trx, project.id, env.tier, day);
  });
}

/**
 * POST …/environments/:environment_id/stop (Developer): 200 with the environment, now
 * stopped (Forgelet runs no `on_stop` jobs; `force` is accepted).
 */
export async function stopEnvironment(ctx: Ctx, input: StopEnvironmentInput): Promise<EnvironmentEntity> {
  const project = await findDeliveryProject(ctx, input.id, 'read_environment');
  const env = await findEnvironment(ctx, project, input.environment_id);
  await authorize(ctx, 'stop_environment', { kind: 'project', project });
  let row = env;
  if (env.state !== 'stopped') {
    row = await ctx.db.updateTable('environments').set({ state: 'stopped', updated_at: nowIso(ctx) }).where('id', '=', env.id).returningAll().executeTakeFirstOrThrow();
  }
  return (await presentEnvironments(ctx, project, [row]))[0]!;
}

/** A protection that applies to an environment: project-level (by name) or group-level (by tier). */
export type EnvironmentProtectionEntity = ProtectedEnvironmentEntity & { project_id: number | null; group_id: number | null };

/**
 * The protections that apply to an environment (GitLab's `associated_protected_environments`,
 * GraphQL's `Environment.protectedEnvironments`): the project's for its name and its groups'
 * for its tier, to whoever reads the environment. None below Premium.
 */
export async function listEnvironmentProtections(ctx: Ctx, input: EnvironmentRefInput): Promise<EnvironmentProtectionEntity[]> {
  const project = await findDeliveryProject(ctx, input.id, 'read_environment');
  const env = await findEnvironment(ctx, project, input.environment_id);
  const protections = await protectionsFor(ctx.db, project, env);
  const entities = await presentProtectedEnvironments(ctx, protections);
  return entities.map((e, i) => ({ ...e, project_id: protections[i]!.row.project_id, group_id: protections[i]!.row.group_id }));
}
