/**
 * Variables of a pipeline schedule (`…/pipeline_schedules/:id/variables[/:key]`). Values are
 * encrypted at rest and passed to the pipelines the schedule creates.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toVariableEntity, type ScheduleVariableEntity } from './pipeline-schedule.entity.js';
import { deleteVariableById, insertVariable, selectVariable, updateVariableById } from './pipeline-schedule.queries.js';
import type { CreateScheduleVariableInput, ScheduleVariableRefInput, UpdateScheduleVariableInput } from './pipeline-schedule.schema.js';
import type { CiPipelineScheduleRow, CiPipelineScheduleVariableRow } from './pipeline-schedule.table.js';
import { authorizeProject, authorizeSchedule, findSchedule, findScheduleProject, variablesGrantedByRole, type ScheduleAbility } from './schedule-access.js';

const KEY_RE = /^[a-zA-Z0-9_]+$/;
export const KEY_MAX_LENGTH = 255;

/** `Ci::HasVariable`'s key validations, then uniqueness per schedule. */
function keyErrors(key: string, taken: boolean): string[] {
  const errors: string[] = [];
  if (key === '') errors.push("can't be blank");
  if (key.length > KEY_MAX_LENGTH) errors.push(`is too long (maximum is ${KEY_MAX_LENGTH} characters)`);
  if (!KEY_RE.test(key)) errors.push("can contain only letters, digits and '_'.");
  if (taken) errors.push('has already been taken');
  return errors;
}

function present(ctx: Ctx, row: CiPipelineScheduleVariableRow): ScheduleVariableEntity {
  return toVariableEntity(row, (s) => ctx.secrets.decrypt(s));
}

/**
 * The project and schedule of a variable route, checked in GitLab's order: the project (404),
 * `set_pipeline_variables` on it when writing (403), the schedule (404), then `ability` on it (403).
 */
async function scheduleFor(
  ctx: Ctx,
  input: { id: string; pipeline_schedule_id: number },
  ability: ScheduleAbility,
  writes: boolean,
): Promise<{ project: ProjectRow; schedule: CiPipelineScheduleRow }> {
  const project = await findScheduleProject(ctx, input.id);
  if (writes) await authorizeProject(ctx, project, 'set_pipeline_variables');
  const schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  if (!(writes && (await variablesGrantedByRole(ctx, project)))) await authorizeSchedule(ctx, project, schedule, ability);
  return { project, schedule };
}

async function findVariable(ctx: Ctx, schedule: CiPipelineScheduleRow, key: string): Promise<CiPipelineScheduleVariableRow> {
  const row = await selectVariable(ctx.db, schedule.id, key);
  if (!row) throw new NotFoundError('Pipeline Schedule Variable');
  return row;
}

export async function createScheduleVariable(ctx: Ctx, input: CreateScheduleVariableInput): Promise<ScheduleVariableEntity> {
  const { schedule } = await scheduleFor(ctx, input, 'update_pipeline_schedule', true);
  const key = input.key.trim();
  const taken = KEY_RE.test(key) && Boolean(await selectVariable(ctx.db, schedule.id, key));
  const errors = keyErrors(key, taken);
  if (errors.length) throw new BadRequestError({ key: errors }, { raw: true });
  const stamp = nowIso(ctx);
  try {
    const row = await insertVariable(ctx.db, {
      pipeline_schedule_id: schedule.id,
      key,
      value_encrypted: ctx.secrets.encrypt(input.value),
      variable_type: input.variable_type ?? 'env_var',
      created_at: stamp,
      updated_at: stamp,
    });
    return present(ctx, row);
  } catch (err) {
    // A concurrent create of the same key lost the race on the unique index.
    if (await selectVariable(ctx.db, schedule.id, key)) throw new BadRequestError({ key: ['has already been taken'] }, { raw: true });
    throw err;
  }
}

export async function getScheduleVariable(ctx: Ctx, input: ScheduleVariableRefInput): Promise<ScheduleVariableEntity> {
  const { schedule } = await scheduleFor(ctx, input, 'read_pipeline_schedule_variables', false);
  return present(ctx, await findVariable(ctx, schedule, input.key));
}

export async function updateScheduleVariable(ctx: Ctx, input: UpdateScheduleVariableInput): Promise<ScheduleVariableEntity> {
  const { schedule } = await scheduleFor(ctx, input, 'update_pipeline_schedule', true);
  const row = await findVariable(ctx, schedule, input.key);
  if (input.value === undefined && input.variable_type === undefined) return present(ctx, row);
  const updated = await updateVariableById(ctx.db, row.id, {
    ...(input.value !== undefined && { value_encrypted: ctx.secrets.encrypt(input.value) }),
    ...(input.variable_type !== undefined && { variable_type: input.variable_type }),
    updated_at: nowIso(ctx),
  });
  return present(ctx, updated);
}

/** Deletes the variable and answers it (GitLab: 202 with the variable). */
export async function deleteScheduleVariable(ctx: Ctx, input: ScheduleVariableRefInput): Promise<ScheduleVariableEntity> {
  const { schedule } = await scheduleFor(ctx, input, 'admin_pipeline_schedule', true);
  const row = await findVariable(ctx, schedule, input.key);
  await deleteVariableById(ctx.db, row.id);
  return present(ctx, row);
}
