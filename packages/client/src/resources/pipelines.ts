import type {
  CreatePipelineRequest,
  JobEntity,
  ListPipelineJobsInput,
  ListPipelinesInput,
  PipelineEntity,
  PipelineListEntity,
  PipelineVariableEntity,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };

export type ListPipelinesParams = Datetimes<ListParams<ListPipelinesInput>>;
export type CreatePipelineParams = Omit<CreatePipelineRequest, 'id' | 'ref' | 'variables' | 'inputs'> & {
  variables?: { key: string; value?: string; variable_type?: 'env_var' | 'file' }[];
  /** Values for the CI file's `spec:inputs` (strings, numbers, booleans, arrays). */
  inputs?: Record<string, unknown>;
};
export type ListPipelineJobsParams = Partial<Omit<ListPipelineJobsInput, 'id' | 'pipeline_id'>>;

/** Pipelines of a project: `/projects/:id/pipeline(s)`. */
export class Pipelines {
  constructor(private readonly requester: Requester) {}

  /** Newest first by default; filters `scope`, `status`, `ref`, `sha`, `username`, `source`, dates … */
  all(projectId: ResourceId, params: ListPipelinesParams = {}): Paginated<PipelineListEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/pipelines`, params);
  }

  show(projectId: ResourceId, pipelineId: number): Promise<PipelineEntity> {
    return this.requester.get(endpoint`projects/${projectId}/pipelines/${pipelineId}`);
  }

  /** The newest pipeline of the ref's current commit (default branch by default); 403 when none. */
  latest(projectId: ResourceId, params: { ref?: string } = {}): Promise<PipelineEntity> {
    return this.requester.get(endpoint`projects/${projectId}/pipelines/latest`, params);
  }

  /** Runs the project's `.gitlab-ci.yml` on a branch or tag; a broken file is a 400 naming the problem. */
  create(projectId: ResourceId, ref: string, params: CreatePipelineParams = {}): Promise<PipelineEntity> {
    return this.requester.post(endpoint`projects/${projectId}/pipeline`, { ref, ...params });
  }

  /** Cancels what still runs or waits (manual jobs stay playable). */
  cancel(projectId: ResourceId, pipelineId: number): Promise<PipelineEntity> {
    return this.requester.post(endpoint`projects/${projectId}/pipelines/${pipelineId}/cancel`, {});
  }

  /** Runs the failed and canceled jobs again. */
  retry(projectId: ResourceId, pipelineId: number): Promise<PipelineEntity> {
    return this.requester.post(endpoint`projects/${projectId}/pipelines/${pipelineId}/retry`, {});
  }

  /** Owners only: the pipeline with its jobs, logs and artifacts (204). */
  remove(projectId: ResourceId, pipelineId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/pipelines/${pipelineId}`);
  }

  /** The variables the pipeline was created with (Developers, or who created it). */
  variables(projectId: ResourceId, pipelineId: number): Promise<PipelineVariableEntity[]> {
    return this.requester.get(endpoint`projects/${projectId}/pipelines/${pipelineId}/variables`);
  }

  /** The pipeline's jobs, newest first (retried ones with `include_retried`). */
  jobs(projectId: ResourceId, pipelineId: number, params: ListPipelineJobsParams = {}): Paginated<JobEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/pipelines/${pipelineId}/jobs`, params);
  }
}
