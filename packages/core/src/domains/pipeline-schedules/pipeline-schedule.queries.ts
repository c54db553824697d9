/** The pipeline schedule domain's queries: schedules, their variables and inputs, and their run jobs. */
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../storage/database.js';
import type {
  CiPipelineScheduleInputRow,
  CiPipelineScheduleRow,
  CiPipelineScheduleTable,
  CiPipelineScheduleVariableRow,
  CiPipelineScheduleVariableTable,
} from './pipeline-schedule.table.js';

type Db = Kysely<Database>;

/** The scheduled run of one schedule: at most one pending job, due at `next_run_at`. */
export const RUN_JOB = 'pipeline_schedules.run';
export const runJobKey = (scheduleId: number) => `${RUN_JOB}:${scheduleId}`;

/** A run started with `play`, as the caller; GitLab deduplicates it per schedule and user until it ran. */
export const PLAY_JOB = 'pipeline_schedules.play';
export const playJobKey = (scheduleId: number, userId: number) => `${PLAY_JOB}:${scheduleId}:${userId}`;

export function selectScheduleOf(db: Db, projectId: number, id: number): Promise<CiPipelineScheduleRow | undefined> {
  return db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst();
}

export function selectScheduleById(db: Db, id: number): Promise<CiPipelineScheduleRow | undefined> {
  return db.selectFrom('ci_pipeline_schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

export function insertSchedule(db: Db, row: Insertable<CiPipelineScheduleTable>): Promise<CiPipelineScheduleRow> {
  return db.insertInto('ci_pipeline_schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateScheduleById(db: Db, id: number, set: Updateable<CiPipelineScheduleTable>): Promise<CiPipelineScheduleRow> {
  return db.updateTable('ci_pipeline_schedules').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes the schedule with its variables and inputs; its pipelines stay, unlinked (GitLab nullifies them). */
export async function deleteScheduleById(db: Db, id: number): Promise<void> {
  await db.updateTable('ci_pipelines').set({ pipeline_schedule_id: null }).where('pipeline_schedule_id', '=', id).execute();
  await db.deleteFrom('ci_pipeline_schedule_variables').where('pipeline_schedule_id', '=', id).execute();
  await db.deleteFrom('ci_pipeline_schedule_inputs').where('pipeline_schedule_id', '=', id).execute();
  await db.deleteFrom('ci_pipeline_schedules').where('id', '=', id).execute();
}

export function selectInputsOf(db: Db, scheduleIds: number[]): Promise<CiPipelineScheduleInputRow[]> {
  if (!scheduleIds.length) return Promise.resolve([]);
  return db.selectFrom('ci_pipeline_schedule_inputs').selectAll().where('pipeline_schedule_id', 'in', scheduleIds).orderBy('id').execute();
}

export function selectVariablesOf(db: Db, scheduleId: number): Promise<CiPipelineScheduleVariableRow[]> {
  return db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('pipeline_schedule_id', '=', scheduleId).orderBy('id').execute();
}

export function selectVariable(db: Db, scheduleId: number, key: string): Promise<CiPipelineScheduleVariableRow | undefined> {
  return db
    .selectFrom('ci_pipeline_schedule_variables')
    .selectAll()
    .where('pipeline_schedule_id', '=', scheduleId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export function insertVariable(db: Db, row: Insertable<CiPipelineScheduleVariableTable>): Promise<CiPipelineScheduleVariableRow> {
  return db.insertInto('ci_pipeline_schedule_variables').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateVariableById(db: Db, id: number, set: Updateable<CiPipelineScheduleVariableTable>): Promise<CiPipelineScheduleVariableRow> {
  return db.updateTable('ci_pipeline_schedule_variables').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteVariableById(db: Db, id: number): Promise<void> {
  await db.deleteFrom('ci_pipeline_schedule_variables').where('id', '=', id).execute();
}

/** The newest pipeline of each schedule (GitLab's `last_pipeline`: `pipelines.last`). */
export async function selectLastPipelines(db: Db, scheduleIds: number[]) {
  if (!scheduleIds.length) return [];
  const latest = db
    .selectFrom('ci_pipelines')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('pipeline_schedule_id', 'in', scheduleIds)
    .groupBy('pipeline_schedule_id');
  return db.selectFrom('ci_pipelines').selectAll().where('id', 'in', latest).execute();
}
