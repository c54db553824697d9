/** Turning schedule rows into GitLab's JSON, with owners, inputs and last pipelines loaded per page. */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import { presentSchedulePipelines } from './schedule-pipelines.js';
import {
  toInputEntity,
  toScheduleEntity,
  toVariableEntity,
  type PipelineScheduleDetailsEntity,
  type PipelineScheduleEntity,
  type ScheduleInputEntity,
} from './pipeline-schedule.entity.js';
import { selectInputsOf, selectLastPipelines, selectVariablesOf } from './pipeline-schedule.queries.js';
import type { CiPipelineScheduleRow } from './pipeline-schedule.table.js';
import { canOnSchedule } from './schedule-access.js';

async function ownersOf(ctx: Ctx, rows: CiPipelineScheduleRow[]): Promise<Map<number, UserBasicEntity>> {
  const ids = [...new Set(rows.map((r) => r.owner_id).filter((id): id is number => id !== null))];
  if (!ids.length) return new Map();
  const users = await selectUsersByIds(ctx.db, ids);
  return new Map(users.map((u) => [u.id, toUserBasicEntity(u, ctx.urls)]));
}

async function inputsOf(ctx: Ctx, project: ProjectRow, rows: CiPipelineScheduleRow[]): Promise<Map<number, ScheduleInputEntity[] | undefined>> {
  const visible: number[] = [];
  for (const row of rows) if (await canOnSchedule(ctx, project, row, 'read_pipeline_schedule_variables')) visible.push(row.id);
  const byId = new Map<number, ScheduleInputEntity[] | undefined>(visible.map((id) => [id, []]));
  for (const input of await selectInputsOf(ctx.db, visible)) byId.get(input.pipeline_schedule_id)!.push(toInputEntity(input));
  return byId;
}

/** `Ci::PipelineSchedule` for each row (the list). */
export async function presentSchedules(ctx: Ctx, project: ProjectRow, rows: CiPipelineScheduleRow[]): Promise<PipelineScheduleEntity[]> {
  const [owners, inputs] = await Promise.all([ownersOf(ctx, rows), inputsOf(ctx, project, rows)]);
  return rows.map((row) => toScheduleEntity(row, row.owner_id === null ? null : (owners.get(row.owner_id) ?? null), inputs.get(row.id)));
}

/**
 * `Ci::PipelineScheduleDetails`: with `last_pipeline`, and `variables` when `withVariables`
 * (GitLab shows them on `GET` only) and the caller may see them.
 */
export async function presentScheduleDetails(
  ctx: Ctx,
  project: ProjectRow,
  row: CiPipelineScheduleRow,
  options: { withVariables?: boolean } = {},
): Promise<PipelineScheduleDetailsEntity> {
  const [base] = await presentSchedules(ctx, project, [row]);
  const [last] = await selectLastPipelines(ctx.db, [row.id]);
  const details: PipelineScheduleDetailsEntity = { ...base, last_pipeline: last ? (await presentSchedulePipelines(ctx, project, [last]))[0] : null };
  if (options.withVariables && base.inputs !== undefined) {
    details.variables = (await selectVariablesOf(ctx.db, row.id)).map((v) => toVariableEntity(v, (s) => ctx.secrets.decrypt(s)));
  }
  return details;
}
