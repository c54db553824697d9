import type { JobEntity, ListProjectJobsInput, PlayJobInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListJobsParams = Partial<Omit<ListProjectJobsInput, 'id'>>;
export type PlayJobParams = Partial<Omit<PlayJobInput, 'id' | 'job_id'>>;

/** Jobs of a project: `/projects/:id/jobs`, and `/job` for a CI job token. */
export class Jobs {
  constructor(private readonly requester: Requester) {}

  /** Newest first; `scope` one or more statuses. The server does not count them (no totals). */
  all(projectId: ResourceId, params: ListJobsParams = {}): Paginated<JobEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/jobs`, params);
  }

  show(projectId: ResourceId, jobId: number): Promise<JobEntity> {
    return this.requester.get(endpoint`projects/${projectId}/jobs/${jobId}`);
  }

  /** The job's log as text. */
  async trace(projectId: ResourceId, jobId: number): Promise<string> {
    return (await this.requester.get<string | undefined>(endpoint`projects/${projectId}/jobs/${jobId}/trace`)) ?? '';
  }

  cancel(projectId: ResourceId, jobId: number, params: { force?: boolean } = {}): Promise<JobEntity> {
    return this.requester.post(endpoint`projects/${projectId}/jobs/${jobId}/cancel`, params);
  }

  /** Runs a finished job again: the new job. */
  retry(projectId: ResourceId, jobId: number): Promise<JobEntity> {
    return this.requester.post(endpoint`projects/${projectId}/jobs/${jobId}/retry`, {});
  }

  /** Starts a manual job. */
  play(projectId: ResourceId, jobId: number, params: PlayJobParams = {}): Promise<JobEntity> {
    return this.requester.post(endpoint`projects/${projectId}/jobs/${jobId}/play`, params);
  }

  /** The job of the client's CI job token (`new Forgelet({ url, jobToken })`). */
  current(): Promise<JobEntity> {
    return this.requester.get('job');
  }
}
