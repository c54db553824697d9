import { accepted, created, ok, paged, route, type Route } from '../../kernel/route.js';
import {
  createPipelineSchedule,
  deletePipelineSchedule,
  getPipelineSchedule,
  listPipelineSchedules,
  playPipelineSchedule,
  takePipelineScheduleOwnership,
  updatePipelineSchedule,
} from './pipeline-schedules.js';
import {
  CreatePipelineScheduleInput,
  CreateScheduleVariableInput,
  ListPipelineSchedulesInput,
  ListSchedulePipelinesInput,
  PipelineScheduleRefInput,
  ScheduleVariableRefInput,
  UpdatePipelineScheduleInput,
  UpdateScheduleVariableInput,
} from './pipeline-schedule.schema.js';
import { listSchedulePipelines } from './schedule-pipelines.js';
import { createScheduleVariable, deleteScheduleVariable, getScheduleVariable, updateScheduleVariable } from './schedule-variables.js';

const tag = 'pipeline_schedules';

export const pipelineSchedulesRoutes: Route[] = [
  route('GET', '/projects/:id/pipeline_schedules', { auth: 'required', params: ListPipelineSchedulesInput, tag, summary: 'List pipeline schedules (Reporter)' },
    async (ctx, input) => paged(await listPipelineSchedules(ctx, input))),
  route('GET', '/projects/:id/pipeline_schedules/:pipeline_schedule_id', { auth: 'required', params: PipelineScheduleRefInput, tag, summary: 'Get a pipeline schedule with its last pipeline, variables and inputs' },
    async (ctx, input) => ok(await getPipelineSchedule(ctx, input))),
  route('GET', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/pipelines', { auth: 'required', params: ListSchedulePipelinesInput, tag, summary: 'List the pipelines a schedule created' },
    async (ctx, input) => paged(await listSchedulePipelines(ctx, input))),
  route('POST', '/projects/:id/pipeline_schedules', { auth: 'required', params: CreatePipelineScheduleInput, tag, summary: 'Create a pipeline schedule (Developer); the caller owns it' },
    async (ctx, input) => created(await createPipelineSchedule(ctx, input))),
  route('PUT', '/projects/:id/pipeline_schedules/:pipeline_schedule_id', { auth: 'required', params: UpdatePipelineScheduleInput, tag, summary: "Update a pipeline schedule (its owner); reschedules it" },
    async (ctx, input) => ok(await updatePipelineSchedule(ctx, input))),
  route('POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership', { auth: 'required', params: PipelineScheduleRefInput, tag, summary: 'Take ownership of a pipeline schedule (Maintainer)' },
    async (ctx, input) => {
      const { status, schedule } = await takePipelineScheduleOwnership(ctx, input);
      return status === 201 ? created(schedule) : ok(schedule);
    }),
  route('DELETE', '/projects/:id/pipeline_schedules/:pipeline_schedule_id', { auth: 'required', params: PipelineScheduleRefInput, tag, summary: 'Delete a pipeline schedule (Maintainer or its owner); answers it' },
    async (ctx, input) => accepted(await deletePipelineSchedule(ctx, input))),
  route('POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/play', { auth: 'required', params: PipelineScheduleRefInput, tag, summary: 'Run a pipeline schedule now, as the caller' },
    async (ctx, input) => {
      await playPipelineSchedule(ctx, input);
      return created({ message: '201 Created' });
    }),
  route('POST', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables', { auth: 'required', params: CreateScheduleVariableInput, tag, summary: 'Create a pipeline schedule variable' },
    async (ctx, input) => created(await createScheduleVariable(ctx, input))),
  route('GET', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key', { auth: 'required', params: ScheduleVariableRefInput, tag, summary: 'Get a pipeline schedule variable' },
    async (ctx, input) => ok(await getScheduleVariable(ctx, input))),
  route('PUT', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key', { auth: 'required', params: UpdateScheduleVariableInput, tag, summary: 'Update a pipeline schedule variable' },
    async (ctx, input) => ok(await updateScheduleVariable(ctx, input))),
  route('DELETE', '/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key', { auth: 'required', params: ScheduleVariableRefInput, tag, summary: 'Delete a pipeline schedule variable (202 with the variable)' },
    async (ctx, input) => accepted(await deleteScheduleVariable(ctx, input))),
];
