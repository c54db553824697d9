/** CI: pipelines and jobs from `.gitlab-ci.yml`, runners and the runner protocol, CI job tokens. */
export { ciRoutes } from './ci.routes.js';
export {
  createPipeline,
  presentPipeline,
  presentPipelineBasic,
  resolvePipelineRef,
  canWriteRef,
  pipelineError,
  CI_CONFIG_PATH,
  type CreatePipelineInput,
  type PipelineSource,
} from './create-pipeline.js';
export { parseCiConfig, DEFAULT_STAGES, type CiConfig, type CiConfigResult, type CiJobDefinition, type CiJobSpec } from './ci-config.js';
export { parseDuration, expiryFrom } from './durations.js';
export { compositeStatus, nextStatusOf, AVAILABLE_STATUSES, COMPLETED_STATUSES, type CiStatus } from './status.js';
export { processPipeline } from './process-pipeline.js';
export {
  registerPipelineHooks,
  pipelineChange,
  noteJob,
  type PipelineHooks,
  type ProcessedJob,
  type PipelineChange,
  type JobStatusChange,
} from './pipeline-hooks.js';
export { createWorkloadIn, type WorkloadInput } from './workload.js';
export { resolveJobToken } from './job-token.js';
export { runnerByToken } from './runner-managers.js';
export { readTrace, archiveOf } from './jobs.js';
export { parseDefinition } from './job.entity.js';
/** For the runner's artifact endpoints (artifacts): a job's token, checked as GitLab's `authenticate_job!`. */
export { authenticateJob, jobTokenOf } from './runner-api.js';
export {
  listPipelines,
  getPipeline,
  getLatestPipeline,
  createPipelineFromApi,
  cancelPipeline,
  retryPipeline,
  deletePipeline,
  listPipelineVariables,
  listPipelineJobs,
  pipelineVariablesOf,
  getPipelineByIid,
  projectIdOfCiRecord,
  listPipelineStages,
  listBranchPipelinesAt,
  type PipelineVariableEntity,
  type PipelineStageEntity,
} from './pipelines.js';
export { listProjectJobs, getJob, cancelJob, retryJob, playJob, getJobTrace, currentJob } from './jobs.js';
export { createUserRunner, registerRunner, verifyRunner, unregisterRunner, getRunner, listRunnerManagers, listProjectRunners } from './runners.js';
export type { PipelineBasicEntity, PipelineListEntity, PipelineEntity, DetailedStatusEntity } from './pipeline.entity.js';
export { detailedStatus } from './pipeline.entity.js';
export type { JobEntity, JobArtifactEntity } from './job.entity.js';
export type { RunnerEntity, RunnerDetailsEntity, RunnerManagerEntity, RunnerRegistrationEntity } from './runner.entity.js';
export type {
  JobPayload,
  JobPayloadArtifacts,
  JobPayloadCache,
  JobPayloadCredentials,
  JobPayloadDependency,
  JobPayloadGitInfo,
  JobPayloadImage,
  JobPayloadJobInfo,
  JobPayloadPort,
  JobPayloadRunnerInfo,
  JobPayloadService,
  JobPayloadStep,
  JobPayloadVariable,
} from './job-payload.js';
export type {
  ListPipelinesInput,
  PipelineRefInput,
  LatestPipelineInput,
  CreatePipelineRequest,
  ListPipelineJobsInput,
  ListProjectJobsInput,
  JobRefInput,
  CancelJobInput,
  PlayJobInput,
  CreateRunnerInput,
  RegisterRunnerInput,
  VerifyRunnerInput,
  RunnerInfoInput,
  ListProjectRunnersInput,
  RunnerRefInput,
} from './ci.schema.js';
export type { CiPipelineRow, CiJobRow, CiRunnerRow, CiRunnerManagerRow, CiJobArtifactRow } from './ci.table.js';
// for other domains
export { findCiProject, findJob } from './ci-access.js';
export { presentJobs } from './job.entity.js';
export { lockPipeline } from './process-pipeline.js';
export { CANCELABLE_STATUSES } from './status.js';
export { createPushPipeline, ciPushHooks } from './push-pipelines.js';
export { applyPipelineScope } from './pipeline-scope.js';
export type { CiArtifactEntryRow, CiArtifactEntryTable } from './ci.table.js';
export type { RequestJobInput, UpdateJobInput } from './ci.schema.js';
export { ciGraphql } from './ci.graphql.js';
