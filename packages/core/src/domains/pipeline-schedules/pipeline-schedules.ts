/**
 * The pipeline schedule use cases: list, get, create, update, take ownership, delete, play.
 * Every save recomputes `next_run_at` (GitLab's `before_save :set_next_run_at`) and moves the
 * schedule's run job to it in the same transaction.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ValidationError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { requireUser } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { selectBranch, selectTag } from '../repository/index.js';
import { isValidCron, resolveTimeZone } from './cron.js';
import type { PipelineScheduleDetailsEntity, PipelineScheduleEntity } from './pipeline-schedule.entity.js';
import { deleteScheduleById, insertSchedule, selectInputsOf, updateScheduleById } from './pipeline-schedule.queries.js';
import type {
  CreatePipelineScheduleInput,
  InputValue,
  ListPipelineSchedulesInput,
  PipelineScheduleRefInput,
  UpdatePipelineScheduleInput,
} from './pipeline-schedule.schema.js';
import type { CiPipelineScheduleRow } from './pipeline-schedule.table.js';
import { presentScheduleDetails, presentSchedules } from './present-schedules.js';
import { computeNextRunAt, dropRunJob, enqueuePlay, syncRunJob } from './run-schedules.js';
import {
  authorizeProject,
  authorizeSchedule,
  BRANCH_PREFIX,
  canOnSchedule,
  findSchedule,
  findScheduleProject,
  FULL_REF_RE,
  TAG_PREFIX,
} from './schedule-access.js';

/** `Ci::Pipeline::INPUTS_LIMIT`. */
export const INPUTS_LIMIT = 20;

type ModelErrors = Record<string, string[]>;

function addError(errors: ModelErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

const blank = (v: string) => v.trim() === '';

/** The model validations of a schedule, in GitLab's declaration order (cron, cron_timezone, description, inputs). */
function validateSchedule(values: { cron: string; cron_timezone: string; description: string; inputs: { name: string }[] }): ModelErrors {
  const errors: ModelErrors = {};
  if (!isValidCron(values.cron)) addError(errors, 'cron', ' is invalid syntax');
  if (blank(values.cron)) addError(errors, 'cron', "can't be blank");
  if (!resolveTimeZone(values.cron_timezone)) addError(errors, 'cron_timezone', ' is invalid syntax');
  if (blank(values.cron_timezone)) addError(errors, 'cron_timezone', "can't be blank");
  if (blank(values.description)) addError(errors, 'description', "can't be blank");
  const names = values.inputs.map((i) => i.name);
  if (names.some(blank)) addError(errors, 'inputs.name', "can't be blank");
  const duplicates = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
  if (duplicates.length) addError(errors, 'inputs', `have duplicate values (${duplicates.join(', ')})`);
  if (values.inputs.length > INPUTS_LIMIT) addError(errors, 'inputs', `exceeds the limit of ${INPUTS_LIMIT}.`);
  return errors;
}

function throwIfInvalid(errors: ModelErrors): void {
  if (Object.keys(errors).length) throw new BadRequestError(errors, { raw: true });
}

/**
 * A full ref for what the caller sent: full refs are kept; a short name becomes
 * `refs/heads/<name>` or `refs/tags/<name>` when exactly one of them exists. Otherwise (both
 * exist, or neither) GitLab refuses with `{"ref":["is ambiguous"]}`: send the full ref.
 */
async function expandRef(ctx: Ctx, project: ProjectRow, ref: string): Promise<string> {
  if (FULL_REF_RE.test(ref)) return ref;
  if (ref !== '') {
    const [branch, tag] = await Promise.all([selectBranch(ctx.db, project.id, ref), selectTag(ctx.db, project.id, ref)]);
    if (branch && !tag) return `${BRANCH_PREFIX}${ref}`;
    if (tag && !branch) return `${TAG_PREFIX}${ref}`;
  }
  throw new BadRequestError({ ref: ['is ambiguous'] }, { raw: true });
}

function inputRow(scheduleId: number, name: string, value: InputValue, now: string) {
  return { pipeline_schedule_id: scheduleId, name, value: JSON.stringify(value), created_at: now, updated_at: now };
}

export async function listPipelineSchedules(ctx: Ctx, input: ListPipelineSchedulesInput): Promise<Page<PipelineScheduleEntity>> {
  const project = await findScheduleProject(ctx, input.id);
  await authorizeProject(ctx, project, 'read_pipeline_schedule');
  let q = ctx.db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', project.id);
  if (input.scope === 'active') q = q.where('active', '=', 1);
  if (input.scope === 'inactive') q = q.where('active', '=', 0);
  return paginate(ctx.db, q.orderBy('id', 'desc'), input, (rows) => presentSchedules(ctx, project, rows));
}

export async function getPipelineSchedule(ctx: Ctx, input: PipelineScheduleRefInput): Promise<PipelineScheduleDetailsEntity> {
  const project = await findScheduleProject(ctx, input.id);
  const schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  return presentScheduleDetails(ctx, project, schedule, { withVariables: true });
}

export async function createPipelineSchedule(ctx: Ctx, input: CreatePipelineScheduleInput): Promise<PipelineScheduleDetailsEntity> {
  const user = requireUser(ctx);
  const project = await findScheduleProject(ctx, input.id);
  await authorizeProject(ctx, project, 'create_pipeline_schedule');
  if (!(await canOnSchedule(ctx, project, { owner_id: user.id, ref: input.ref }, 'create_pipeline_schedule'))) {
    throw new BadRequestError({ base: ['The current user is not authorized to create the pipeline schedule'] }, { raw: true });
  }
  const ref = await expandRef(ctx, project, input.ref);
  const inputs = input.inputs ?? [];
  throwIfInvalid(validateSchedule({ cron: input.cron, cron_timezone: input.cron_timezone, description: input.description, inputs }));
  const now = ctx.clock.now();
  const stamp = now.toISOString();
  const cron = input.cron.trim();
  const schedule = await ctx.db.transaction().execute(async (trx) => {
    const row = await insertSchedule(trx, {
      project_id: project.id,
      description: input.description,
      ref,
      cron,
      cron_timezone: input.cron_timezone,
      next_run_at: computeNextRunAt(ctx, cron, input.cron_timezone, now),
      active: input.active ? 1 : 0,
      owner_id: user.id,
      last_error: null,
      created_at: stamp,
      updated_at: stamp,
    });
    if (inputs.length) await trx.insertInto('ci_pipeline_schedule_inputs').values(inputs.map((i) => inputRow(row.id, i.name, i.value, stamp))).execute();
    await syncRunJob(trx, ctx.queue, row, now);
    return row;
  });
  return presentScheduleDetails(ctx, project, schedule);
}

export async function updatePipelineSchedule(ctx: Ctx, input: UpdatePipelineScheduleInput): Promise<PipelineScheduleDetailsEntity> {
  // Grape: `value` is required unless `destroy` is true (checked before the endpoint runs).
  const missing = (input.inputs ?? []).flatMap((i, n) => (i.destroy !== true && i.value === undefined ? [{ field: `inputs[${n}][value]`, message: 'is missing' }] : []));
  if (missing.length) throw new ValidationError(missing);
  const project = await findScheduleProject(ctx, input.id);
  let schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  await authorizeSchedule(ctx, project, schedule, 'update_pipeline_schedule');

  const requestedRef = input.ref ?? schedule.ref;
  if (!(await canOnSchedule(ctx, project, { owner_id: schedule.owner_id, ref: requestedRef }, 'update_pipeline_schedule'))) {
    throw new BadRequestError({ base: ['The current user is not authorized to update the pipeline schedule'] }, { raw: true });
  }
  const ref = await expandRef(ctx, project, requestedRef);

  // Inputs are upserted by name; `destroy: true` removes one.
  const current = await selectInputsOf(ctx.db, [schedule.id]);
  const next = new Map<string, InputValue>(current.map((i) => [i.name, JSON.parse(i.value) as InputValue]));
  const sent: { name: string }[] = [];
  for (const i of input.inputs ?? []) {
    if (i.destroy === true) next.delete(i.name);
    else {
      sent.push({ name: i.name });
      next.set(i.name, i.value as InputValue);
    }
  }
  const values = {
    description: input.description ?? schedule.description,
    cron: input.cron !== undefined ? input.cron.trim() : schedule.cron,
    cron_timezone: input.cron_timezone ?? schedule.cron_timezone,
    active: input.active === undefined ? schedule.active : input.active ? 1 : 0,
  };
  const errors = validateSchedule({ ...values, inputs: sent });
  if (!errors.inputs && next.size > INPUTS_LIMIT) addError(errors, 'inputs', `exceeds the limit of ${INPUTS_LIMIT}.`);
  throwIfInvalid(errors);

  const now = ctx.clock.now();
  const stamp = nowIso(ctx);
  const nextRun = computeNextRunAt(ctx, values.cron, values.cron_timezone, now);
  const changed =
    values.description !== schedule.description ||
    ref !== schedule.ref ||
    values.cron !== schedule.cron ||
    values.cron_timezone !== schedule.cron_timezone ||
    values.active !== schedule.active ||
    nextRun !== schedule.next_run_at;
  schedule = await ctx.db.transaction().execute(async (trx) => {
    const row = changed ? await updateScheduleById(trx, schedule.id, { ...values, ref, next_run_at: nextRun, updated_at: stamp }) : schedule;
    for (const i of input.inputs ?? []) {
      const existing = await trx
        .selectFrom('ci_pipeline_schedule_inputs')
        .select('id')
        .where('pipeline_schedule_id', '=', row.id)
        .where('name', '=', i.name)
        .executeTakeFirst();
      if (i.destroy === true) {
        if (existing) await trx.deleteFrom('ci_pipeline_schedule_inputs').where('id', '=', existing.id).execute();
      } else if (existing) {
        await trx.updateTable('ci_pipeline_schedule_inputs').set({ value: JSON.stringify(i.value), updated_at: stamp }).where('id', '=', existing.id).execute();
      } else {
        await trx.insertInto('ci_pipeline_schedule_inputs').values(inputRow(row.id, i.name, i.value as InputValue, stamp)).execute();
      }
    }
    await syncRunJob(trx, ctx.queue, row, now);
    return row;
  });
  return presentScheduleDetails(ctx, project, schedule);
}

/** Makes the caller the owner: 201, or 200 when they already own it. Saving recomputes `next_run_at`. */
export async function takePipelineScheduleOwnership(
  ctx: Ctx,
  input: PipelineScheduleRefInput,
): Promise<{ status: 200 | 201; schedule: PipelineScheduleDetailsEntity }> {
  const user = requireUser(ctx);
  const project = await findScheduleProject(ctx, input.id);
  const schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  await authorizeSchedule(ctx, project, schedule, 'admin_pipeline_schedule');
  if (schedule.owner_id === user.id) return { status: 200, schedule: await presentScheduleDetails(ctx, project, schedule) };
  const now = ctx.clock.now();
  const owned = await ctx.db.transaction().execute(async (trx) => {
    const row = await updateScheduleById(trx, schedule.id, {
      owner_id: user.id,
      next_run_at: computeNextRunAt(ctx, schedule.cron, schedule.cron_timezone, now),
      updated_at: now.toISOString(),
    });
    await syncRunJob(trx, ctx.queue, row, now);
    return row;
  });
  return { status: 201, schedule: await presentScheduleDetails(ctx, project, owned) };
}

/** Deletes the schedule and answers it as it was; its pipelines stay, no longer linked. */
export async function deletePipelineSchedule(ctx: Ctx, input: PipelineScheduleRefInput): Promise<PipelineScheduleDetailsEntity> {
  const project = await findScheduleProject(ctx, input.id);
  const schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  await authorizeSchedule(ctx, project, schedule, 'admin_pipeline_schedule');
  const entity = await presentScheduleDetails(ctx, project, schedule);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await deleteScheduleById(trx, schedule.id);
    await dropRunJob(trx, schedule.id, now);
  });
  return entity;
}

/** Queues a run now as the caller (201); the next scheduled run stays as it is. */
export async function playPipelineSchedule(ctx: Ctx, input: PipelineScheduleRefInput): Promise<void> {
  const user = requireUser(ctx);
  const project = await findScheduleProject(ctx, input.id);
  const schedule: CiPipelineScheduleRow = await findSchedule(ctx, project, input.pipeline_schedule_id);
  await authorizeSchedule(ctx, project, schedule, 'play_pipeline_schedule');
  await enqueuePlay(ctx.db, ctx.queue, schedule.id, user.id, ctx.clock.now());
}
