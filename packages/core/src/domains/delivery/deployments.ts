/**
 * The deployments API (GitLab's lib/api/deployments.rb with EE's approval endpoint).
 *
 * Protected environments: a user the environment's protections do not list may not create
 * or update its deployments (403, as GitLab's DeploymentPolicy answers). When approvals are
 * required, a deployment created here waits in `blocked` (remembering the status it was
 * created with, or later updated to) until every approval rule has its approvals; it then
 * proceeds to that status. A rejection fails it. CI deployments follow their jobs instead
 * (see ci-hook.ts).
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import { lockPipeline, noteJob, pipelineChange, processPipeline } from '../ci/index.js';
import type { MergeRequestEntity } from '../merge-requests/index.js';
import { presentMergeRequests } from '../merge-requests/index.js';
import { resolveRevision, selectCommit } from '../repository/index.js';
import {
  presentApprovals,
  presentDeploymentExtended,
  presentDeployments,
  type DeploymentApprovalEntity,
  type DeploymentEntity,
  type DeploymentExtendedEntity,
} from './delivery.entity.js';
import type {
  CreateDeploymentInput,
  DeploymentApprovalInput,
  DeploymentMergeRequestsInput,
  DeploymentRefInput,
  ListDeploymentsInput,
  UpdateDeploymentInput,
} from './delivery.schema.js';
import type { DeploymentRow, EnvironmentRow } from './delivery.table.js';
import { EVENT_BY_STATUS, insertDeployment, moveDeployment, transitionAllowed } from './deployment-flow.js';
import { refreshDoraDay } from './dora.js';
import { environmentErrors, findOrCreateEnvironment, guessTier } from './environment-model.js';
import { findDeliveryProject } from './environments.js';
import {
  accessibleTo,
  approvalRulesOf,
  checkAccess,
  findApprovalRuleFor,
  needsApproval,
  pendingApprovalCount,
  protectedFrom,
  protectionsFor,
  type Protection,
} from './protection.js';

type Db = Kysely<Database>;

/** A deployment of the project by id; `404 Not found` otherwise. */
async function findDeployment(ctx: Ctx, project: ProjectRow, id: number): Promise<DeploymentRow> {
  const row = await ctx.db.selectFrom('deployments').selectAll().where('project_id', '=', project.id).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError(null, { exact: '404 Not found' });
  return row;
}

async function environmentOf(db: Db, deployment: DeploymentRow): Promise<EnvironmentRow> {
  return db.selectFrom('environments').selectAll().where('id', '=', deployment.environment_id).executeTakeFirstOrThrow();
}

async function extended(ctx: Ctx, project: ProjectRow, row: DeploymentRow, env?: EnvironmentRow, protections?: Protection[]): Promise<DeploymentExtendedEntity> {
  const environment = env ?? (await environmentOf(ctx.db, row));
  return presentDeploymentExtended(ctx, project, row, environment, protections ?? (await protectionsFor(ctx.db, project, environment)));
}

function transitionError(to: string): BadRequestError {
  return new BadRequestError({ status: [`cannot transition via "${EVENT_BY_STATUS[to] ?? to}"`] });
}

/** GET /projects/:id/deployments (Reporter; anyone who sees a public project's pipelines). */
export async function listDeployments(ctx: Ctx, input: ListDeploymentsInput): Promise<Page<DeploymentEntity>> {
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  const byUpdated = input.updated_after !== undefined || input.updated_before !== undefined;
  const byFinished = input.finished_after !== undefined || input.finished_before !== undefined;
  // DeploymentsFinder's InefficientQueryError.
  if (byUpdated && byFinished) throw new BadRequestError('Both `updated_at` filter and `finished_at` filter can not be specified');
  if (byFinished && input.order_by !== 'finished_at') throw new BadRequestError('`finished_at` filter requires `finished_at` sort.');
  if (byFinished && input.status !== 'success') throw new BadRequestError('`finished_at` filter must be combined with `success` status filter.');
  let q = ctx.db.selectFrom('deployments as d').selectAll('d').where('d.project_id', '=', project.id);
  if (input.updated_after) q = q.where('d.updated_at', '>=', input.updated_after.toISOString());
  if (input.updated_before) q = q.where('d.updated_at', '<=', input.updated_before.toISOString());
  if (input.finished_after) q = q.where('d.finished_at', '>=', input.finished_after.toISOString());
  if (input.finished_before) q = q.where('d.finished_at', '<=', input.finished_before.toISOString());
  if (input.status) q = q.where('d.status', '=', input.status);
  if (input.environment !== undefined) {
    q = q.where('d.environment_id', 'in', (eb) => eb.selectFrom('environments').select('id').where('project_id', '=', project.id).where('name', '=', input.environment!));
  }
  q = q.orderBy(`d.${input.order_by}`, input.sort);
  if (input.order_by !== 'id') q = q.orderBy('d.id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentDeployments(ctx, project, rows));
}

/** GET …/deployments/:deployment_id: the extended shape (approvals, approval summary). */
export async function getDeployment(ctx: Ctx, input: DeploymentRefInput): Promise<DeploymentExtendedEntity> {
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  return extended(ctx, project, await findDeployment(ctx, project, input.deployment_id));
}

/**
 * POST /projects/:id/deployments (Developer): creates the environment when missing; the sha
 * and ref must exist (400 `{"message":{"sha":["The commit does not exist"]}}`). Posting the
 * environment's last deployment again (same ref, sha, tag and status) answers it unchanged.
 */
export async function createDeployment(ctx: Ctx, input: CreateDeploymentInput): Promise<DeploymentExtendedEntity> {
  const user = requireUser(ctx);
  const project = await findDeliveryProject(ctx, input.id, 'create_deployment');
  await authorize(ctx, 'create_environment', { kind: 'project', project });
  const existing = await ctx.db.selectFrom('environments').selectAll().where('project_id', '=', project.id).where('name', '=', input.environment).executeTakeFirst();
  if (!existing) {
    const errors = await environmentErrors(ctx.db, project.id, { name: input.environment });
    // (a concurrent request created it since the read above: the transaction below finds it)
    const name = errors.name?.filter((m) => m !== 'has already been taken');
    if (name?.length) errors.name = name;
    else delete errors.name;
    if (Object.keys(errors).length) throw new BadRequestError(Object.fromEntries(Object.entries(errors).map(([k, v]) => [k === 'name' ? 'environment' : k, v])));
  }
  const protections = await protectionsFor(ctx.db, project, existing ?? { name: input.environment, tier: guessTier(input.environment) });
  const now = nowIso(ctx);
  if (await protectedFrom(ctx.db, protections, user, now)) throw new ForbiddenError();
  const commit = await selectCommit(ctx.db, project.id, input.sha);
  const errors: Record<string, string[]> = {};
  if (!commit) errors.sha = ['The commit does not exist'];
  if (!(await resolveRevision(ctx.db, project.id, input.ref))) errors.ref = ['The branch or tag does not exist'];
  if (Object.keys(errors).length) throw new BadRequestError(errors);

  const { row, env } = await ctx.db.transaction().execute(async (trx) => {
    const env = await findOrCreateEnvironment(trx, project.id, input.environment, now);
    const last = await trx.selectFrom('deployments').selectAll().where('environment_id', '=', env.id).orderBy('id', 'desc').limit(1).executeTakeFirst();
    if (last && last.ref === input.ref && last.sha === commit!.sha && last.tag === (input.tag ? 1 : 0) && (last.requested_status ?? last.status) === input.status) {
      return { row: last, env };
    }
    const created = await insertDeployment(
      trx,
      { project_id: project.id, environment_id: env.id, ref: input.ref, tag: input.tag, sha: commit!.sha, user_id: user.id, deployable_id: null },
      now,
    );
    const row = needsApproval(protections)
      ? await moveDeployment(trx, ctx, created, env, 'blocked', now, { requested_status: input.status })
      : await moveDeployment(trx, ctx, created, env, input.status, now);
    return { row, env };
  });
  return extended(ctx, project, row, env, protections);
}

/**
 * PUT …/deployments/:deployment_id (Developer allowed to deploy): a new status. CI
 * deployments are refused (403); a transition the state machine lacks is 400
 * `{"message":{"status":["cannot transition via \"run\""]}}`; a blocked deployment keeps
 * waiting and proceeds to the new status once approved.
 */
export async function updateDeployment(ctx: Ctx, input: UpdateDeploymentInput): Promise<DeploymentExtendedEntity> {
  const user = requireUser(ctx);
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  const deployment = await findDeployment(ctx, project, input.deployment_id);
  await authorize(ctx, 'update_deployment', { kind: 'project', project });
  const env = await environmentOf(ctx.db, deployment);
  const protections = await protectionsFor(ctx.db, project, env);
  const now = nowIso(ctx);
  if (await protectedFrom(ctx.db, protections, user, now)) throw new ForbiddenError();
  if (deployment.deployable_id !== null) throw new ForbiddenError('Deployments created using GitLab CI can not be updated using the API');
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (deployment.status === 'blocked') {
      return trx.updateTable('deployments').set({ requested_status: input.status, updated_at: now }).where('id', '=', deployment.id).returningAll().executeTakeFirstOrThrow();
    }
    if (!transitionAllowed(deployment.status, input.status)) throw transitionError(input.status);
    return moveDeployment(trx, ctx, deployment, env, input.status, now);
  });
  return extended(ctx, project, row, env, protections);
}

/**
 * DELETE …/deployments/:deployment_id (Maintainer): 204; a running deployment or the one the
 * environment currently runs cannot go (400 with GitLab's messages).
 */
export async function deleteDeployment(ctx: Ctx, input: DeploymentRefInput): Promise<void> {
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  const deployment = await findDeployment(ctx, project, input.deployment_id);
  await authorize(ctx, 'destroy_deployment', { kind: 'project', project });
  if (deployment.status === 'running') throw new BadRequestError('Cannot destroy running deployment', { raw: true });
  const current = await ctx.db
    .selectFrom('deployments')
    .select('id')
    .where('environment_id', '=', deployment.environment_id)
    .where('status', '=', 'success')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (current?.id === deployment.id) throw new BadRequestError('Deployment currently deployed to environment', { raw: true });
  const env = await environmentOf(ctx.db, deployment);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('deployments').where('id', '=', deployment.id).execute();
    if (deployment.status === 'success' && deployment.finished_at) await refreshDoraDay(trx, project.id, env.tier, deployment.finished_at.slice(0, 10));
  });
}

/**
 * GET …/deployments/:deployment_id/merge_requests: the merge requests the deployment shipped
 * (linked when it succeeded), newest first by default.
 */
export async function listDeploymentMergeRequests(ctx: Ctx, input: DeploymentMergeRequestsInput): Promise<Page<MergeRequestEntity>> {
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  const deployment = await findDeployment(ctx, project, input.deployment_id);
  let q = ctx.db
    .selectFrom('merge_requests as mr')
    .innerJoin('deployment_merge_requests as dm', 'dm.merge_request_id', 'mr.id')
    .selectAll('mr')
    .where('dm.deployment_id', '=', deployment.id);
  if (!(await can(ctx, 'read_merge_request', { kind: 'project', project }))) q = q.where('mr.id', '=', -1);
  if (input.state !== 'all') q = q.where('mr.state', '=', input.state);
  q = q.orderBy(`mr.${input.order_by}`, input.sort).orderBy('mr.id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentMergeRequests(ctx, rows, { project: project.id }, [project]));
}

function approvalError(message: string): BadRequestError {
  return new BadRequestError(message, { raw: true });
}

/**
 * POST …/deployments/:deployment_id/approval (EE Deployments::ApprovalService): 201 with the
 * approval. Refusals are 400 with GitLab's messages. Approvals count per rule (the caller's
 * first matching rule, or the one named by `represented_as`). When none are missing: an API
 * deployment proceeds to the status it asked for; a CI job held by approval rules stays
 * manual for a deployer to run, one held by a plain required approval count runs at once.
 * A rejection fails the deployment (and its job, `deployment_rejected`).
 */
export async function approveDeployment(ctx: Ctx, input: DeploymentApprovalInput): Promise<DeploymentApprovalEntity> {
  const user = requireUser(ctx);
  const project = await findDeliveryProject(ctx, input.id, 'read_deployment');
  const deployment = await findDeployment(ctx, project, input.deployment_id);
  const env = await environmentOf(ctx.db, deployment);
  const protections = await protectionsFor(ctx.db, project, env);
  const now = nowIso(ctx);
  if (!protections.length) throw approvalError('This environment is not protected.');
  if (deployment.user_id === user.id && input.status === 'approved') {
    throw approvalError('You cannot approve your own deployment. This configuration can be adjusted in the protected environment settings.');
  }
  if (!needsApproval(protections)) throw approvalError('Deployment approvals is not configured for this environment.');
  if (deployment.status !== 'blocked') throw approvalError('This deployment is not waiting for approvals.');
  const rules = approvalRulesOf(protections);
  let permitted = await can(ctx, 'read_deployment', { kind: 'project', project });
  if (permitted) {
    if (rules.length) {
      permitted = false;
      for (const r of rules) if (await checkAccess(ctx.db, r.rule, r.protection, user, now)) permitted = true;
    } else {
      permitted = await can(ctx, 'update_deployment', { kind: 'project', project });
      for (const p of protections) if (permitted && !(await accessibleTo(ctx.db, p, user, now))) permitted = false;
    }
  }
  if (!permitted) throw approvalError("You don't have permission to approve this deployment. Contact the project or group owner for help.");
  const rule = rules.length ? await findApprovalRuleFor(ctx.db, protections, user, input.represented_as, now) : undefined;
  if (rules.length && input.represented_as && !rule) {
    throw approvalError('There are no approval rules for the given `represent_as` parameter. Use a valid User/Group/Role name instead.');
  }
  const ruleId = rule?.rule.id ?? null;

  const approval = await ctx.db.transaction().execute(async (trx) => {
    const job = deployment.deployable_id !== null ? await trx.selectFrom('ci_jobs').selectAll().where('id', '=', deployment.deployable_id).executeTakeFirst() : undefined;
    if (job) await lockPipeline(trx, job.pipeline_id);
    const current = await trx.selectFrom('deployments').selectAll().where('id', '=', deployment.id).executeTakeFirstOrThrow();
    if (current.status !== 'blocked') throw approvalError('This deployment is not waiting for approvals.');
    let mine = await trx
      .selectFrom('deployment_approvals')
      .selectAll()
      .where('deployment_id', '=', deployment.id)
      .where('user_id', '=', user.id)
      .where((eb) => (ruleId === null ? eb('approval_rule_id', 'is', null) : eb('approval_rule_id', '=', ruleId)))
      .executeTakeFirst();
    if (mine && mine.status === input.status) return mine;
    if (mine) {
      mine = await trx
        .updateTable('deployment_approvals')
        .set({ status: input.status, comment: input.comment ?? null, updated_at: now })
        .where('id', '=', mine.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    } else {
      mine = await trx
        .insertInto('deployment_approvals')
        .values({ deployment_id: deployment.id, user_id: user.id, approval_rule_id: ruleId, status: input.status, comment: input.comment ?? null, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    if (input.status === 'rejected') {
      if (job) {
        const dropped = await trx
          .updateTable('ci_jobs')
          .set({ status: 'failed', failure_reason: 'deployment_rejected', queued_at: null, finished_at: now, updated_at: now })
          .where('id', '=', job.id)
          .where('status', 'in', ['manual', 'created', 'pending'])
          .executeTakeFirst();
        const change = pipelineChange(ctx);
        if (Number(dropped.numUpdatedRows) > 0) noteJob(change, job.id, job.status);
        await processPipeline(trx, job.pipeline_id, now, change);
      } else await moveDeployment(trx, ctx, current, env, 'failed', now);
      return mine;
    }
    const approvals = await trx.selectFrom('deployment_approvals').selectAll().where('deployment_id', '=', deployment.id).execute();
    if (pendingApprovalCount(protections, approvals) > 0) return mine;
    if (job) {
      // Approval rules: the job stays manual, for someone allowed to deploy to run it.
      if (rules.length) return mine;
      // A plain required approval count: the job runs at once (EE ApprovalService enqueues it).
      await moveDeployment(trx, ctx, current, env, 'created', now);
      const queued = await trx.updateTable('ci_jobs').set({ status: 'pending', queued_at: now, updated_at: now }).where('id', '=', job.id).where('status', '=', 'manual').executeTakeFirst();
      const change = pipelineChange(ctx);
      if (Number(queued.numUpdatedRows) > 0) noteJob(change, job.id, 'manual');
      await processPipeline(trx, job.pipeline_id, now, change);
      return mine;
    }
    const unblocked = await moveDeployment(trx, ctx, current, env, 'created', now, { requested_status: null });
    const target = current.requested_status;
    if (target && transitionAllowed('created', target)) await moveDeployment(trx, ctx, unblocked, env, target, now);
    return mine;
  });
  return (await presentApprovals(ctx, [approval]))[0]!;
}
