import type {
  CreatePipelineScheduleInput,
  CreateScheduleVariableInput,
  ListPipelineSchedulesInput,
  ListSchedulePipelinesInput,
  PipelineScheduleDetailsEntity,
  PipelineScheduleEntity,
  SchedulePipelineEntity,
  ScheduleVariableEntity,
  UpdatePipelineScheduleInput,
  UpdateScheduleVariableInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId, WithOptional } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListPipelineSchedulesParams = ListParams<ListPipelineSchedulesInput>;
export type ListSchedulePipelinesParams = Partial<Omit<ListSchedulePipelinesInput, 'id' | 'pipeline_schedule_id'>>;
export type CreatePipelineScheduleParams = WithOptional<Omit<CreatePipelineScheduleInput, 'id'>, 'cron_timezone' | 'active'>;
export type EditPipelineScheduleParams = Omit<UpdatePipelineScheduleInput, 'id' | 'pipeline_schedule_id'>;
export type CreateScheduleVariableParams = Omit<CreateScheduleVariableInput, 'id' | 'pipeline_schedule_id'>;
export type EditScheduleVariableParams = Omit<UpdateScheduleVariableInput, 'id' | 'pipeline_schedule_id' | 'key'>;

/** `/projects/:id/pipeline_schedules`: cron-driven pipelines, run as the schedule's owner. */
export class PipelineSchedules {
  constructor(private readonly requester: Requester) {}

  /** Newest first; `scope` active or inactive. */
  all(id: ResourceId, params: ListPipelineSchedulesParams = {}): Paginated<PipelineScheduleEntity> {
    return new Paginated(this.requester, endpoint`projects/${id}/pipeline_schedules`, params);
  }

  /** With `last_pipeline`; `variables` and `inputs` for Maintainers and the schedule's owner. */
  show(id: ResourceId, scheduleId: number): Promise<PipelineScheduleDetailsEntity> {
    return this.requester.get(endpoint`projects/${id}/pipeline_schedules/${scheduleId}`);
  }

  /** The pipelines the schedule created (`sort` asc by default). */
  allTriggeredPipelines(id: ResourceId, scheduleId: number, params: ListSchedulePipelinesParams = {}): Paginated<SchedulePipelineEntity> {
    return new Paginated(this.requester, endpoint`projects/${id}/pipeline_schedules/${scheduleId}/pipelines`, params);
  }

  /** `ref` may be short (`main`); it is stored as `refs/heads/main` or `refs/tags/main`. The caller owns the schedule. */
  create(id: ResourceId, params: CreatePipelineScheduleParams): Promise<PipelineScheduleDetailsEntity> {
    return this.requester.post(endpoint`projects/${id}/pipeline_schedules`, params);
  }

  /** Reschedules (`next_run_at` is recomputed); an input is removed with `{ name, destroy: true }`. */
  edit(id: ResourceId, scheduleId: number, params: EditPipelineScheduleParams): Promise<PipelineScheduleDetailsEntity> {
    return this.requester.put(endpoint`projects/${id}/pipeline_schedules/${scheduleId}`, params);
  }

  takeOwnership(id: ResourceId, scheduleId: number): Promise<PipelineScheduleDetailsEntity> {
    return this.requester.post(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/take_ownership`, {});
  }

  /** Deletes the schedule and returns it as it was. */
  async remove(id: ResourceId, scheduleId: number): Promise<PipelineScheduleDetailsEntity> {
    const res = await this.requester.send<PipelineScheduleDetailsEntity>('DELETE', this.requester.url(endpoint`projects/${id}/pipeline_schedules/${scheduleId}`));
    return res.data;
  }

  /** Runs the schedule now, as the caller (asynchronously); `next_run_at` is unchanged. */
  run(id: ResourceId, scheduleId: number): Promise<{ message: string }> {
    return this.requester.post(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/play`, {});
  }
}

/** `/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables[/:key]`. */
export class PipelineScheduleVariables {
  constructor(private readonly requester: Requester) {}

  /** `key`: at most 255 characters of A-Z, a-z, 0-9 and `_`. */
  create(id: ResourceId, scheduleId: number, params: CreateScheduleVariableParams): Promise<ScheduleVariableEntity> {
    return this.requester.post(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/variables`, params);
  }

  show(id: ResourceId, scheduleId: number, key: string): Promise<ScheduleVariableEntity> {
    return this.requester.get(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/variables/${key}`);
  }

  edit(id: ResourceId, scheduleId: number, key: string, params: EditScheduleVariableParams): Promise<ScheduleVariableEntity> {
    return this.requester.put(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/variables/${key}`, params);
  }

  /** Deletes the variable and returns it. */
  async remove(id: ResourceId, scheduleId: number, key: string): Promise<ScheduleVariableEntity> {
    const res = await this.requester.send<ScheduleVariableEntity>('DELETE', this.requester.url(endpoint`projects/${id}/pipeline_schedules/${scheduleId}/variables/${key}`));
    return res.data;
  }
}
