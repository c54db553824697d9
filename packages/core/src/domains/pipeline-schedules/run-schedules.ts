/**
 * Running schedules through the durable queue.
 *
 * Each active schedule has one pending `pipeline_schedules.run` job (unique key per schedule),
 * due at its `next_run_at`. When it runs, the pipeline is created as the schedule's owner with
 * the schedule's variables and inputs, and in the same transaction a conditional UPDATE moves
 * `next_run_at` past now: only the worker that still sees the old value wins, so several
 * processes on one database fire each due run exactly once, and a process that dies half-way
 * (or a database error) leaves the run due, for the job to run again once its lease expires.
 * Then the job asks to run again at the new `next_run_at`. As in GitLab, a clock that jumped over several periods fires once, then waits
 * for the next future instant. A run that cannot create a pipeline (owner gone, blocked or
 * below Developer, protected ref, pipeline error) records why in `last_error`.
 *
 * `play` enqueues a `pipeline_schedules.play` job that runs the schedule once now as the
 * caller, leaving `next_run_at` alone (GitLab's RunPipelineScheduleWorker without `scheduling`).
 */
import { selectUserById } from '../../access/users.js';
import { sql, type Kysely } from 'kysely';
import { contextFor, type Deps } from '../../access/context.js';
import { isDomainError } from '../../kernel/errors.js';
import { can } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { Queue } from '../../storage/queue.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import { createPipeline } from '../ci/index.js';
import { nextRunAt, type ScheduleTiming } from './cron.js';
import { PLAY_JOB, playJobKey, RUN_JOB, runJobKey, selectScheduleById } from './pipeline-schedule.queries.js';
import type { CiPipelineScheduleRow } from './pipeline-schedule.table.js';
import { refName, refProtectedFor } from './schedule-access.js';

/** A run job retries a database failure many times: a schedule must not stop for good. */
const RUN_MAX_ATTEMPTS = 100;

export function timingOf(deps: Pick<Deps, 'config'>): ScheduleTiming {
  return deps.config.scheduleTiming ?? 'exact';
}

/** `next_run_at` as stored, from the schedule's cron and zone at `now`; null when they are not valid. */
export function computeNextRunAt(deps: Pick<Deps, 'config'>, cron: string, timeZone: string, now: Date): string | null {
  return nextRunAt(cron, timeZone, now, timingOf(deps))?.toISOString() ?? null;
}

/**
 * Makes the schedule's run job match the row, in the transaction of the write that changed it:
 * due at `next_run_at` when the schedule is active, gone when it is not. A job a worker holds
 * right now is left alone; it re-reads the schedule when it finishes.
 */
export async function syncRunJob(trx: Kysely<Database>, queue: Queue, schedule: CiPipelineScheduleRow, now: Date): Promise<void> {
  const key = runJobKey(schedule.id);
  const at = now.toISOString();
  const free = sql<boolean>`(lease_expires_at is null or lease_expires_at < ${at})`;
  if (schedule.active !== 1 || schedule.next_run_at === null) {
    await trx.deleteFrom('queue_jobs').where('unique_key', '=', key).where('status', '=', 'pending').where(free).execute();
    return;
  }
  await trx
    .updateTable('queue_jobs')
    .set({ run_at: schedule.next_run_at, attempts: 0 })
    .where('unique_key', '=', key)
    .where('status', '=', 'pending')
    .where(free)
    .execute();
  await queue.enqueue(trx, RUN_JOB, { schedule_id: schedule.id }, { runAt: new Date(schedule.next_run_at), uniqueKey: key, maxAttempts: RUN_MAX_ATTEMPTS });
}

/** Removes the pending run job of a deleted schedule. */
export async function dropRunJob(trx: Kysely<Database>, scheduleId: number, now: Date): Promise<void> {
  await trx
    .deleteFrom('queue_jobs')
    .where('unique_key', '=', runJobKey(scheduleId))
    .where('status', '=', 'pending')
    .where(sql<boolean>`(lease_expires_at is null or lease_expires_at < ${now.toISOString()})`)
    .execute();
}

/** Queues a run of the schedule now as `userId` (play); a run already waiting for the same user absorbs it. */
export async function enqueuePlay(trx: Kysely<Database>, queue: Queue, scheduleId: number, userId: number, now: Date): Promise<void> {
  await queue.enqueue(trx, PLAY_JOB, { schedule_id: scheduleId, user_id: userId }, { runAt: now, uniqueKey: playJobKey(scheduleId, userId) });
}

export type RunOutcome = { created: true; pipelineId: number } | { created: false; reason: string };

/**
 * Creates the schedule's pipeline as `user` (source `schedule`), after checking what GitLab's
 * pipeline creation checks of that user; never throws for a refusal, it returns the reason.
 * `inTransaction` runs first in the pipeline's transaction (see CreatePipelineInput); what it
 * throws, and errors that are not refusals (a database failure), are thrown.
 */
export async function runScheduleAs(
  deps: Deps,
  schedule: CiPipelineScheduleRow,
  user: UserRow | null,
  inTransaction?: (trx: Kysely<Database>) => Promise<void>,
): Promise<RunOutcome> {
  const project = (await deps.db.selectFrom('projects').selectAll().where('id', '=', schedule.project_id).executeTakeFirst()) as ProjectRow | undefined;
  if (!project) return { created: false, reason: 'The project no longer exists' };
  if (!user) return { created: false, reason: 'The schedule has no owner: its owner was deleted. Take ownership of the schedule to run it again.' };
  if (user.state !== 'active') return { created: false, reason: `Insufficient permissions to create a new pipeline: the user ${user.username} is ${user.state}` };
  const ctx = contextFor(deps, { kind: 'user', user, token: null, isAdmin: user.is_admin === 1 });
  const subject = { kind: 'project' as const, project };
  if (project.jobs_enabled === 0 || !(await can(ctx, 'create_pipeline', subject))) {
    return { created: false, reason: `Insufficient permissions to create a new pipeline: ${user.username} may not run pipelines in this project` };
  }
  if (await refProtectedFor(ctx, project, schedule.ref)) {
    return {
      created: false,
      reason: `You do not have sufficient permission to run a pipeline on '${refName(schedule.ref)}'. Please select a different branch or contact your administrator for assistance.`,
    };
  }
  const [variables, inputs] = await Promise.all([
    deps.db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', '=', schedule.id).orderBy('id').execute(),
    deps.db.selectFrom('ci_pipeline_schedule_inputs').selectAll().where('pipeline_schedule_id', '=', schedule.id).orderBy('id').execute(),
  ]);
  try {
    const pipeline = await createPipeline(ctx, project, {
      ref: schedule.ref,
      source: 'schedule',
      variables: variables.map((v) => ({ key: v.key, value: deps.secrets.decrypt(v.value_encrypted), variable_type: v.variable_type === 'file' ? 'file' : 'env_var' })),
      inputs: Object.fromEntries(inputs.map((i) => [i.name, JSON.parse(i.value) as unknown])),
      pipelineScheduleId: schedule.id,
      inTransaction,
    });
    return { created: true, pipelineId: pipeline.id };
  } catch (err) {
    if (isDomainError(err)) return { created: false, reason: errorText((err.body as { message?: unknown }).message ?? err.message) };
    throw err;
  }
}

/** GitLab's error body as one line: `{"base":["Reference not found"]}` is `Reference not found`. */
function errorText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message && typeof message === 'object' && !Array.isArray(message)) {
    return Object.entries(message as Record<string, unknown>)
      .flatMap(([field, list]) => (Array.isArray(list) ? list : [list]).map((m) => (field === 'base' ? String(m) : `${field} ${String(m)}`)))
      .join(', ');
  }
  return JSON.stringify(message);
}

async function recordOutcome(deps: Deps, scheduleId: number, outcome: RunOutcome): Promise<void> {
  await deps.db
    .updateTable('ci_pipeline_schedules')
    .set({ last_error: outcome.created ? null : outcome.reason.slice(0, 2000) })
    .where('id', '=', scheduleId)
    .execute();
}

async function userById(deps: Deps, id: number | null): Promise<UserRow | null> {
  if (id === null) return null;
  return (await selectUserById(deps.db, id)) ?? null;
}

/** Thrown in the pipeline's transaction when another worker fired this run first: the pipeline is rolled back. */
class RunTakenError extends Error {}

/**
 * Fires the schedule if it is active and due at `now`: creates the pipeline as the owner and,
 * in the same transaction, claims the run by moving `next_run_at` forward with a conditional
 * UPDATE (a refused run is claimed on its own, with the reason). Returns null when there was
 * nothing to fire (inactive, not due, or another worker fired this run); throws on a database
 * failure, leaving the run due.
 */
export async function fireDueSchedule(deps: Deps, scheduleId: number, now: Date): Promise<RunOutcome | null> {
  const schedule = await selectScheduleById(deps.db, scheduleId);
  if (!schedule || schedule.active !== 1 || schedule.next_run_at === null) return null;
  if (Date.parse(schedule.next_run_at) > now.getTime()) return null;
  const claim = async (db: Kysely<Database>): Promise<boolean> => {
    const claimed = await db
      .updateTable('ci_pipeline_schedules')
      .set({ next_run_at: computeNextRunAt(deps, schedule.cron, schedule.cron_timezone, now), updated_at: now.toISOString() })
      .where('id', '=', schedule.id)
      .where('active', '=', 1)
      .where('next_run_at', '=', schedule.next_run_at)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  };
  let outcome: RunOutcome;
  try {
    outcome = await runScheduleAs(deps, schedule, await userById(deps, schedule.owner_id), async (trx) => {
      if (!(await claim(trx))) throw new RunTakenError();
    });
  } catch (err) {
    if (err instanceof RunTakenError) return null;
    throw err;
  }
  if (!outcome.created && !(await claim(deps.db))) return null;
  await recordOutcome(deps, schedule.id, outcome);
  return outcome;
}

/** Registers the schedule jobs on the queue (call once per forge). */
export function registerPipelineScheduleJobs(deps: Deps): void {
  deps.queue.register(RUN_JOB, async (payload: { schedule_id: number }, { now }) => {
    await fireDueSchedule(deps, payload.schedule_id, now);
    // The same job waits for the next run; it ends when the schedule is gone or inactive.
    const schedule = await selectScheduleById(deps.db, payload.schedule_id);
    if (schedule && schedule.active === 1 && schedule.next_run_at !== null) return { retryAt: new Date(schedule.next_run_at) };
  });
  deps.queue.register(PLAY_JOB, async (payload: { schedule_id: number; user_id: number }) => {
    const schedule = await selectScheduleById(deps.db, payload.schedule_id);
    const user = await userById(deps, payload.user_id);
    // As GitLab's worker: nothing to do when the schedule or the user is gone.
    if (!schedule || !user) return;
    await recordOutcome(deps, schedule.id, await runScheduleAs(deps, schedule, user));
  });
}
