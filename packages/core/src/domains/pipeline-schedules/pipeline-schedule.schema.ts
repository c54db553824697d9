/** Parameters of the pipeline schedule endpoints, as GitLab's `API::Ci::PipelineSchedules` declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { Field, p, params, type InferShape, type JsonSchema } from '../../kernel/params.js';

export const SCHEDULE_SCOPES = ['active', 'inactive'] as const;
/** `Ci::PipelinesFinder::ALLOWED_SCOPES`. */
export const PIPELINE_SCOPES = ['running', 'pending', 'finished', 'branches', 'tags'] as const;
/** `Ci::HasStatus::AVAILABLE_STATUSES`. */
export const PIPELINE_STATUSES = [
  'created',
  'waiting_for_resource',
  'preparing',
  'waiting_for_callback',
  'pending',
  'running',
  'success',
  'failed',
  'canceling',
  'canceled',
  'skipped',
  'manual',
  'scheduled',
] as const;
export const VARIABLE_TYPES = ['env_var', 'file'] as const;

/** A JSON value an input may hold. */
export type InputValue = string | number | boolean | unknown[];

/**
 * Grape's `types: [String, Array, Numeric, TrueClass, FalseClass]`: a string, a number, a
 * boolean or an array (of anything); a hash is `X is invalid`. Values from query strings and
 * forms stay strings, as Grape keeps them.
 */
class InputValueField extends Field<InputValue> {
  protected coerce(raw: unknown): { ok: true; value: InputValue } | { ok: false; message: string } {
    if (typeof raw === 'string' || typeof raw === 'boolean' || Array.isArray(raw)) return { ok: true, value: raw as InputValue };
    if (typeof raw === 'number' && Number.isFinite(raw)) return { ok: true, value: raw };
    return { ok: false, message: 'is invalid' };
  }
  schema(): JsonSchema {
    return this.withMeta({ oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: {} }] });
  }
}
const inputValue = () => new InputValueField();

const projectId = { id: p.string() };
const scheduleId = { ...projectId, pipeline_schedule_id: p.integer().describe('ID of the pipeline schedule') };

export const ListPipelineSchedulesInput = params({
  ...projectId,
  scope: p.enum(SCHEDULE_SCOPES).optional().describe('active or inactive'),
  ...paginationParams,
});
export type ListPipelineSchedulesInput = InferShape<typeof ListPipelineSchedulesInput.shape>;

export const PipelineScheduleRefInput = params(scheduleId);
export type PipelineScheduleRefInput = InferShape<typeof PipelineScheduleRefInput.shape>;

export const ListSchedulePipelinesInput = params({
  ...scheduleId,
  scope: p.enum(PIPELINE_SCOPES).optional(),
  status: p.enum(PIPELINE_STATUSES).optional(),
  updated_before: p.datetime().optional().describe('Pipelines updated on or before this time.'),
  updated_after: p.datetime().optional().describe('Pipelines updated on or after this time.'),
  created_before: p.datetime().optional().describe('Pipelines created on or before this time.'),
  created_after: p.datetime().optional().describe('Pipelines created on or after this time.'),
  sort: p.enum(['asc', 'desc']).default('asc'),
  ...paginationParams,
});
export type ListSchedulePipelinesInput = InferShape<typeof ListSchedulePipelinesInput.shape>;

export const CreatePipelineScheduleInput = params({
  ...projectId,
  description: p.string(),
  ref: p.string().nonBlank().describe('A short name (`main`, expanded to `refs/heads/main` or `refs/tags/main`) or a full ref.'),
  cron: p.string().describe('Five-field cron line, e.g. `0 1 * * *`.'),
  cron_timezone: p.string().default('UTC').describe('An ActiveSupport name (`Pacific Time (US & Canada)`) or an IANA id (`America/Los_Angeles`).'),
  active: p.boolean().default(true),
  inputs: p.array(p.object({ name: p.string(), value: inputValue() })).optional(),
});
export type CreatePipelineScheduleInput = InferShape<typeof CreatePipelineScheduleInput.shape>;

export const UpdatePipelineScheduleInput = params({
  ...scheduleId,
  description: p.string().optional(),
  ref: p.string().optional(),
  cron: p.string().optional(),
  cron_timezone: p.string().optional(),
  active: p.boolean().optional(),
  inputs: p.array(p.object({ name: p.string(), destroy: p.boolean().optional(), value: inputValue().optional() })).optional().describe('Upserts inputs by name; `destroy: true` removes one (its `value` may then be omitted).'),
});
export type UpdatePipelineScheduleInput = InferShape<typeof UpdatePipelineScheduleInput.shape>;

export const CreateScheduleVariableInput = params({
  ...scheduleId,
  key: p.string().describe('At most 255 characters of A-Z, a-z, 0-9 and `_`.'),
  value: p.string(),
  variable_type: p.enum(VARIABLE_TYPES).optional(),
});
export type CreateScheduleVariableInput = InferShape<typeof CreateScheduleVariableInput.shape>;

export const ScheduleVariableRefInput = params({ ...scheduleId, key: p.string() });
export type ScheduleVariableRefInput = InferShape<typeof ScheduleVariableRefInput.shape>;

export const UpdateScheduleVariableInput = params({
  ...scheduleId,
  key: p.string(),
  value: p.string().optional(),
  variable_type: p.enum(VARIABLE_TYPES).optional(),
});
export type UpdateScheduleVariableInput = InferShape<typeof UpdateScheduleVariableInput.shape>;
