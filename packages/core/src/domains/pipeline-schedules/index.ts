/** Pipeline schedules: cron-driven pipelines with variables and inputs, fired through the queue. */
export { pipelineSchedulesRoutes } from './pipeline-schedules.routes.js';
export {
  listPipelineSchedules,
  getPipelineSchedule,
  createPipelineSchedule,
  updatePipelineSchedule,
  takePipelineScheduleOwnership,
  deletePipelineSchedule,
  playPipelineSchedule,
  INPUTS_LIMIT,
} from './pipeline-schedules.js';
export { listSchedulePipelines } from './schedule-pipelines.js';
export { createScheduleVariable, getScheduleVariable, updateScheduleVariable, deleteScheduleVariable } from './schedule-variables.js';
export { registerPipelineScheduleJobs, fireDueSchedule, runScheduleAs, computeNextRunAt, type RunOutcome } from './run-schedules.js';
export { nextRunAt, nextCronInstant, isValidCron, resolveTimeZone, GITLAB_WORKER_CRON, SCHEDULE_TIMINGS, type ScheduleTiming } from './cron.js';
export { RUN_JOB, PLAY_JOB, runJobKey, playJobKey } from './pipeline-schedule.queries.js';
export type {
  PipelineScheduleEntity,
  PipelineScheduleDetailsEntity,
  ScheduleInputEntity,
  ScheduleVariableEntity,
  SchedulePipelineEntity,
} from './pipeline-schedule.entity.js';
export type {
  CreatePipelineScheduleInput,
  CreateScheduleVariableInput,
  InputValue,
  ListPipelineSchedulesInput,
  ListSchedulePipelinesInput,
  PipelineScheduleRefInput,
  ScheduleVariableRefInput,
  UpdatePipelineScheduleInput,
  UpdateScheduleVariableInput,
} from './pipeline-schedule.schema.js';
export type { CiPipelineScheduleRow, CiPipelineScheduleVariableRow, CiPipelineScheduleInputRow } from './pipeline-schedule.table.js';
export { pipelineSchedulesGraphql } from './pipeline-schedules.graphql.js';
