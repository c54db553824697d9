/** Parameters of the CI endpoints, as GitLab's lib/api/ci/{pipelines,jobs,runner,runners}.rb declare them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { AVAILABLE_STATUSES } from './status.js';

export const PIPELINE_SOURCES = [
  'unknown', 'push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat', 'webide', 'merge_request_event',
  'external_pull_request_event', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation', 'security_orchestration_policy',
  'container_registry_push', 'duo_workflow', 'pipeline_execution_policy_schedule',
] as const;

export const ListPipelinesInput = params({
  id: p.string(),
  scope: p.enum(['running', 'pending', 'finished', 'branches', 'tags']).optional(),
  status: p.enum(AVAILABLE_STATUSES).optional(),
  ref: p.string().optional(),
  sha: p.string().optional(),
  yaml_errors: p.boolean().optional(),
  username: p.username().optional(),
  updated_before: p.datetime().optional(),
  updated_after: p.datetime().optional(),
  created_before: p.datetime().optional(),
  created_after: p.datetime().optional(),
  order_by: p.enum(['id', 'status', 'ref', 'updated_at', 'user_id']).default('id'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  source: p.enum(PIPELINE_SOURCES).optional(),
  name: p.string().optional(),
  ...paginationParams,
});
export type ListPipelinesInput = InferShape<typeof ListPipelinesInput.shape>;

export const PipelineRefInput = params({ id: p.string(), pipeline_id: p.integer() });
export type PipelineRefInput = InferShape<typeof PipelineRefInput.shape>;

export const LatestPipelineInput = params({ id: p.string(), ref: p.string().optional() });
export type LatestPipelineInput = InferShape<typeof LatestPipelineInput.shape>;

export const CreatePipelineRequest = params({
  id: p.string(),
  ref: p.string(),
  variables: p
    .array(
      p.object({
        key: p.string(),
        value: p.string().default(''),
        variable_type: p.enum(['env_var', 'file']).default('env_var'),
      }),
    )
    .optional(),
  inputs: p.json().optional(),
});
export type CreatePipelineRequest = InferShape<typeof CreatePipelineRequest.shape>;

const jobScope = p.array(p.enum(AVAILABLE_STATUSES)).optional();

export const ListPipelineJobsInput = params({
  id: p.string(),
  pipeline_id: p.integer(),
  include_retried: p.boolean().default(false),
  scope: jobScope,
  ...paginationParams,
});
export type ListPipelineJobsInput = InferShape<typeof ListPipelineJobsInput.shape>;

export const ListProjectJobsInput = params({ id: p.string(), scope: jobScope, ...paginationParams });
export type ListProjectJobsInput = InferShape<typeof ListProjectJobsInput.shape>;

export const JobRefInput = params({ id: p.string(), job_id: p.integer() });
export type JobRefInput = InferShape<typeof JobRefInput.shape>;

export const CancelJobInput = params({ id: p.string(), job_id: p.integer(), force: p.boolean().optional() });
export type CancelJobInput = InferShape<typeof CancelJobInput.shape>;

export const PlayJobInput = params({
  id: p.string(),
  job_id: p.integer(),
  job_variables_attributes: p.array(p.object({ key: p.string(), value: p.string() })).optional(),
});
export type PlayJobInput = InferShape<typeof PlayJobInput.shape>;

const tagList = p.array(p.string()).commaSeparated();

export const CreateRunnerInput = params({
  runner_type: p.enum(['instance_type', 'group_type', 'project_type']),
  group_id: p.id().optional(),
  project_id: p.id().optional(),
  description: p.string().optional(),
  maintenance_note: p.string().max(1024).optional(),
  paused: p.boolean().optional(),
  locked: p.boolean().optional(),
  run_untagged: p.boolean().optional(),
  tag_list: tagList.optional(),
  access_level: p.enum(['not_protected', 'ref_protected']).optional(),
  maximum_timeout: p.integer().optional(),
});
export type CreateRunnerInput = InferShape<typeof CreateRunnerInput.shape>;

/** What a runner says about itself (`info`); GitLab keeps these and drops the rest (`features`, …). */
const runnerInfo = p.object({
  name: p.string().optional(),
  version: p.string().optional(),
  revision: p.string().optional(),
  platform: p.string().optional(),
  architecture: p.string().optional(),
  executor: p.string().optional(),
  features: p.json().optional(),
  config: p.json().optional(),
});
export type RunnerInfoInput = InferShape<typeof runnerInfo.shape>;

export const RegisterRunnerInput = params(
  {
    token: p.string(),
    description: p.string().optional(),
    maintainer_note: p.string().optional(),
    maintenance_note: p.string().optional(),
    info: p.object({ name: p.string().optional() }).optional().describe('Only `name` is kept at registration: the rest comes with each job request.'),
    active: p.boolean().optional(),
    paused: p.boolean().optional(),
    locked: p.boolean().optional(),
    access_level: p.enum(['not_protected', 'ref_protected']).optional(),
    run_untagged: p.boolean().optional(),
    tag_list: tagList.optional(),
    maximum_timeout: p.integer().optional(),
  },
  { mutuallyExclusive: [['active', 'paused']] },
);
export type RegisterRunnerInput = InferShape<typeof RegisterRunnerInput.shape>;

export const RunnerTokenInput = params({ token: p.string() });
export type RunnerTokenInput = InferShape<typeof RunnerTokenInput.shape>;

export const VerifyRunnerInput = params({ token: p.string(), system_id: p.string().optional() });
export type VerifyRunnerInput = InferShape<typeof VerifyRunnerInput.shape>;

export const RequestJobInput = params({
  token: p.string(),
  last_update: p.string().optional(),
  info: runnerInfo.optional(),
  session: p.json().optional(),
  system_id: p.string().optional(),
  job_age: p.integer().optional(),
});
export type RequestJobInput = InferShape<typeof RequestJobInput.shape>;

export const UpdateJobInput = params({
  id: p.integer(),
  token: p.string().optional(),
  state: p.string().optional(),
  checksum: p.string().optional(),
  failure_reason: p.string().optional(),
  output: p.json().optional(),
  exit_code: p.integer().optional(),
});
export type UpdateJobInput = InferShape<typeof UpdateJobInput.shape>;

export const JobTraceInput = params({ id: p.integer(), token: p.string().optional() });
export type JobTraceInput = InferShape<typeof JobTraceInput.shape>;

export const RunnerRefInput = params({ id: p.integer() });
export type RunnerRefInput = InferShape<typeof RunnerRefInput.shape>;

export const ListProjectRunnersInput = params({
  id: p.string(),
  scope: p.enum(['specific', 'shared', 'active', 'paused', 'online', 'offline', 'never_contacted', 'stale']).optional(),
  type: p.enum(['instance_type', 'group_type', 'project_type']).optional(),
  paused: p.boolean().optional(),
  status: p.enum(['active', 'paused', 'online', 'offline', 'never_contacted', 'stale']).optional(),
  tag_list: tagList.optional(),
  ...paginationParams,
});
export type ListProjectRunnersInput = InferShape<typeof ListProjectRunnersInput.shape>;
