/**
 * A deployment's life (GitLab's Deployment state machine) and what its transitions cause:
 * a finished time, the environment made available again, the merge requests it shipped
 * (Deployments::LinkMergeRequestsService) and the DORA day it counts in. Every function
 * here runs inside the caller's transaction.
 */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { nextIid } from '../../kernel/ids.js';
import type { Database } from '../../storage/database.js';
import { ancestryCte } from '../repository/index.js';
import type { DeploymentRow, DeploymentUpdate, EnvironmentRow } from './delivery.table.js';
import { refreshDoraDay } from './dora.js';
import { recordProductionDeployment } from '../merge-requests/index.js';
import { runDeploymentStatusChanged } from './deployment-hooks.js';

type Db = Kysely<Database>;

export const FINISHED_DEPLOYMENT_STATUSES = ['success', 'failed', 'canceled'];

/** The state machine event for a target status (its name appears in transition errors). */
export const EVENT_BY_STATUS: Record<string, string> = {
  running: 'run',
  success: 'succeed',
  failed: 'drop',
  canceled: 'cancel',
  skipped: 'skip',
  blocked: 'block',
  created: 'unblock',
};

/** run: created → running; block: created → blocked; unblock: blocked → created; the others from any other status. */
export function transitionAllowed(from: string, to: string): boolean {
  switch (to) {
    case 'running':
    case 'blocked':
      return from === 'created';
    case 'created':
      return from === 'blocked';
    case 'success':
    case 'failed':
    case 'canceled':
    case 'skipped':
      return from !== to;
    default:
      return false;
  }
}

export async function insertDeployment(
  db: Db,
  values: { project_id: number; environment_id: number; ref: string; tag: boolean; sha: string; user_id: number | null; deployable_id: number | null },
  now: string,
): Promise<DeploymentRow> {
  const iid = await nextIid(db, 'deployments', `project:${values.project_id}`);
  return db
    .insertInto('deployments')
    .values({ ...values, tag: values.tag ? 1 : 0, iid, status: 'created', requested_status: null, finished_at: null, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Moves a deployment to `to` (the caller checked the transition) and applies the effects:
 * finished statuses stamp `finished_at`; running or success make a stopped environment
 * available; success links the merge requests it shipped; entering or leaving success
 * refreshes the DORA day(s) concerned; the deployment hooks hear of it (`by` made the change).
 */
export async function moveDeployment(db: Db, by: Ctx, deployment: DeploymentRow, env: EnvironmentRow, to: string, now: string, extra: DeploymentUpdate = {}): Promise<DeploymentRow> {
  const set: DeploymentUpdate = { status: to, updated_at: now, ...extra };
  // What a blocked deployment was waiting to become no longer applies once it moves on.
  if (to !== 'blocked' && deployment.requested_status !== null && !('requested_status' in extra)) set.requested_status = null;
  if (FINISHED_DEPLOYMENT_STATUSES.includes(to)) set.finished_at = now;
  const row = await db.updateTable('deployments').set(set).where('id', '=', deployment.id).returningAll().executeTakeFirstOrThrow();
  if ((to === 'running' || to === 'success') && env.state !== 'available') {
    await db.updateTable('environments').set({ state: 'available', updated_at: now }).where('id', '=', env.id).execute();
  }
  if (to === 'success') {
    const shipped = await linkMergeRequests(db, row);
    // The first successful production deployment of a merge request (GitLab's merge request metrics).
    if (env.tier === 'production') await recordProductionDeployment(db, shipped, row.finished_at!);
  }
  const days = new Set<string>();
  if (deployment.status === 'success' && deployment.finished_at) days.add(deployment.finished_at.slice(0, 10));
  if (to === 'success') days.add(row.finished_at!.slice(0, 10));
  for (const day of days) await refreshDoraDay(db, row.project_id, env.tier, day);
  await runDeploymentStatusChanged(db, { deployment: row, environment: env, from: deployment.status, at: now, by });
  return row;
}

/**
 * The merge requests a successful deployment shipped: those whose merge (or squash) commit
 * the deployed commit contains and the previous successful deployment of the environment
 * did not; for an environment's first deployment, every merge request merged into the
 * deployed ref. A merge request is linked to an environment once. Returns the ids linked now.
 */
export async function linkMergeRequests(db: Db, deployment: DeploymentRow): Promise<number[]> {
  const previous = await db
    .selectFrom('deployments')
    .select(['id', 'sha'])
    .where('environment_id', '=', deployment.environment_id)
    .where('status', '=', 'success')
    .where('id', '<', deployment.id)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const notLinked = (eb: any) =>
    eb.not(
      eb.exists(
        eb
          .selectFrom('deployment_merge_requests as l')
          .select('l.merge_request_id')
          .whereRef('l.merge_request_id', '=', 'mr.id')
          .where('l.environment_id', '=', deployment.environment_id),
      ),
    );
  let ids: { id: number }[];
  if (!previous) {
    ids = await db
      .selectFrom('merge_requests as mr')
      .select('mr.id')
      .where('mr.project_id', '=', deployment.project_id)
      .where('mr.state', '=', 'merged')
      .where('mr.target_branch', '=', deployment.ref)
      .where(notLinked)
      .execute();
  } else {
    const merged = sql<string>`coalesce(mr.merge_commit_sha, '')`;
    const squashed = sql<string>`coalesce(mr.squash_commit_sha, '')`;
    ids = await db
      .withRecursive('anc(sha)', () => ancestryCte(deployment.project_id, { sha: deployment.sha }))
      .withRecursive('anc_prev(sha)', () => ancestryCte(deployment.project_id, { sha: previous.sha }, { name: 'anc_prev' }))
      .selectFrom('merge_requests as mr')
      .select('mr.id')
      .where('mr.project_id', '=', deployment.project_id)
      .where('mr.state', '=', 'merged')
      .where((eb) => eb.or([eb(merged, 'in', eb.selectFrom('anc').select('anc.sha')), eb(squashed, 'in', eb.selectFrom('anc').select('anc.sha'))]))
      .where((eb) => eb.and([eb(merged, 'not in', eb.selectFrom('anc_prev').select('anc_prev.sha')), eb(squashed, 'not in', eb.selectFrom('anc_prev').select('anc_prev.sha'))]))
      .where(notLinked)
      .execute();
  }
  if (!ids.length) return [];
  await db
    .insertInto('deployment_merge_requests')
    .values(ids.map((r) => ({ deployment_id: deployment.id, merge_request_id: r.id, environment_id: deployment.environment_id })))
    .onConflict((oc) => oc.columns(['environment_id', 'merge_request_id']).doNothing())
    .execute();
  return ids.map((r) => r.id);
}

/** Refreshes the DORA days of an environment's successful deployments under the tiers given. */
export async function refreshEnvironmentDays(db: Db, env: Pick<EnvironmentRow, 'id' | 'project_id'>, tiers: string[]): Promise<void> {
  const rows = await db
    .selectFrom('deployments')
    .select('finished_at')
    .where('environment_id', '=', env.id)
    .where('status', '=', 'success')
    .where('finished_at', 'is not', null)
    .execute();
  const days = [...new Set(rows.map((r) => r.finished_at!.slice(0, 10)))].sort();
  for (const tier of new Set(tiers)) for (const day of days) await refreshDoraDay(db, env.project_id, tier, day);
}
