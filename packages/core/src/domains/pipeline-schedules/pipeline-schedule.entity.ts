/** GitLab's JSON for pipeline schedules (`Ci::PipelineSchedule`, `Ci::PipelineScheduleDetails`), their variables and inputs. */
import type { UserBasicEntity } from '../../access/user.entity.js';
import type { PipelineBasicEntity } from '../ci/index.js';
import type { InputValue } from './pipeline-schedule.schema.js';
import type { CiPipelineScheduleInputRow, CiPipelineScheduleRow, CiPipelineScheduleVariableRow } from './pipeline-schedule.table.js';

/** `Ci::Input`. */
export interface ScheduleInputEntity {
  name: string;
  value: InputValue;
}

/** `Ci::Variable` as a schedule variable shows it. */
export interface ScheduleVariableEntity {
  variable_type: 'env_var' | 'file';
  key: string;
  value: string;
  raw: boolean;
}

/** `Ci::PipelineBasic`, the pipeline shape of `last_pipeline` and of a schedule's pipelines. */
export type SchedulePipelineEntity = PipelineBasicEntity;

export interface PipelineScheduleEntity {
  id: number;
  description: string;
  /** The full ref (`refs/heads/main`), as GitLab stores and shows it. */
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string | null;
  active: boolean;
  created_at: string;
  updated_at: string;
  owner: UserBasicEntity | null;
  /**
   * Forgelet extension: why the last run did not create a pipeline (the owner lost access,
   * the ref is protected ...), null after a run that did.
   */
  last_error: string | null;
  /** Only for Maintainers, Owners, admins and the schedule's owner. */
  inputs?: ScheduleInputEntity[];
}

export interface PipelineScheduleDetailsEntity extends PipelineScheduleEntity {
  last_pipeline: SchedulePipelineEntity | null;
  /** Only on `GET …/pipeline_schedules/:id`, for the callers who see inputs. */
  variables?: ScheduleVariableEntity[];
}

export function toInputEntity(row: CiPipelineScheduleInputRow): ScheduleInputEntity {
  return { name: row.name, value: JSON.parse(row.value) as InputValue };
}

export function toVariableEntity(row: CiPipelineScheduleVariableRow, decrypt: (sealed: string) => string): ScheduleVariableEntity {
  return {
    variable_type: row.variable_type === 'file' ? 'file' : 'env_var',
    key: row.key,
    value: decrypt(row.value_encrypted),
    raw: row.raw === 1,
  };
}

export function toScheduleEntity(
  row: CiPipelineScheduleRow,
  owner: UserBasicEntity | null,
  inputs: ScheduleInputEntity[] | undefined,
): PipelineScheduleEntity {
  const entity: PipelineScheduleEntity = {
    id: row.id,
    description: row.description,
    ref: row.ref,
    cron: row.cron,
    cron_timezone: row.cron_timezone,
    next_run_at: row.next_run_at,
    active: row.active === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
    owner,
    last_error: row.last_error,
  };
  if (inputs) entity.inputs = inputs;
  return entity;
}
