import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface CiPipelineScheduleTable {
  id: Generated<number>;
  project_id: number;
  description: string;
  /** Always a full ref: `refs/heads/x` or `refs/tags/x`. */
  ref: string;
  cron: string;
  cron_timezone: Generated<string>;
  next_run_at: string | null;
  active: Generated<number>;
  owner_id: number | null;
  /** Why the last firing did not create a pipeline (owner lost access, ref gone ...). */
  last_error: string | null;
  created_at: string;
  updated_at: string;
}
export type CiPipelineScheduleRow = Selectable<CiPipelineScheduleTable>;
export type NewCiPipelineScheduleRow = Insertable<CiPipelineScheduleTable>;
export type CiPipelineScheduleUpdate = Updateable<CiPipelineScheduleTable>;

export interface CiPipelineScheduleVariableTable {
  id: Generated<number>;
  pipeline_schedule_id: number;
  key: string;
  value_encrypted: string;
  variable_type: Generated<string>; // env_var | file
  raw: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type CiPipelineScheduleVariableRow = Selectable<CiPipelineScheduleVariableTable>;

export interface CiPipelineScheduleInputTable {
  id: Generated<number>;
  pipeline_schedule_id: number;
  name: string;
  value: string; // JSON
  created_at: string;
  updated_at: string;
}
export type CiPipelineScheduleInputRow = Selectable<CiPipelineScheduleInputTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    ci_pipeline_schedules: CiPipelineScheduleTable;
    ci_pipeline_schedule_variables: CiPipelineScheduleVariableTable;
    ci_pipeline_schedule_inputs: CiPipelineScheduleInputTable;
  }
}
