import type { JobEntity, ListProjectJobsInput, PlayJobInput } from '@forgelet/core';
import { ApiError } from '../infrastructure/api-error.js';
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

  /**
   * The log from byte `offset` on (`Range: bytes=<offset>-`, answered 206), to follow a running
   * job without downloading its log again: `text` is the new part, `size` the log's whole size in
   * bytes (the next offset), `received` the bytes this call downloaded. Nothing new (416): `text`
   * is empty. A `size` below `offset` means the log was replaced: read it again from 0.
   */
  async traceFrom(projectId: ResourceId, jobId: number, offset: number): Promise<{ text: string; size: number; received: number }> {
    const path = endpoint`projects/${projectId}/jobs/${jobId}/trace`;
    try {
      const r = await this.requester.request<string | undefined>('GET', path, { headers: { Range: `bytes=${offset}-` } });
      const text = r.data ?? '';
      const whole = utf8.encode(text);
      const total = rangeTotal(r.headers.get('content-range'));
      if (r.status === 206 && total !== null) return { text, size: total, received: whole.length };
      // A whole log (200: the server ignored the range): the part past `offset`.
      return { text: new TextDecoder().decode(whole.subarray(Math.min(offset, whole.length))), size: whole.length, received: whole.length };
    } catch (err) {
      if (ApiError.is(err, 416)) return { text: '', size: rangeTotal(err.headers?.get('content-range') ?? null) ?? offset, received: 0 };
      throw err;
    }
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

const utf8 = new TextEncoder();

/** The complete length of `Content-Range: bytes a-b/<length>` or `bytes *\/<length>`. */
function rangeTotal(header: string | null): number | null {
  const m = /\/(\d+)\s*$/.exec(header ?? '');
  return m ? Number(m[1]) : null;
}
