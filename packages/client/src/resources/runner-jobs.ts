import type { JobPayload, RequestJobInput, UpdateJobInput } from '@forgelet/core';
import { ApiError } from '../infrastructure/api-error.js';
import { endpoint } from '../infrastructure/endpoint.js';
import type { UploadSource } from '../infrastructure/multipart.js';
import type { FetchResponse, Requester, StreamResponse } from '../infrastructure/requester.js';

/** `POST /jobs/request` params; `token` is the runner's authentication token (`glrt-…`). */
export type RequestJobParams = RequestJobInput;
/** `PUT /jobs/:id` params (the job token is sent by the method). */
export type UpdateJobParams = Omit<UpdateJobInput, 'id' | 'token'>;

export interface RunnerCallOptions {
  /** Aborts the call (a runner shutting down while it waits for a job). */
  signal?: AbortSignal;
}

/** `POST /jobs/request` with what the answer says beside the job. */
export interface JobRequestAnswer {
  /** The job, now running for this runner; null when none is pending (204, or 409: another runner took it first). */
  job: JobPayload | null;
  /** `X-GitLab-Last-Update`: send it back as `last_update` so the server can answer at once when nothing changed. */
  lastUpdate: string | null;
}

/** What the server says back to a runner's report (`PUT /jobs/:id`, `PATCH /jobs/:id/trace`). */
export interface JobReportAnswer {
  /** 200, or 202: accepted, and the server still waits for more of the log (send the final state again). */
  status: number;
  /** `Job-Status`: `canceling` or `canceled` tells the runner to stop the job. */
  jobStatus: string | null;
  /** `X-GitLab-Trace-Update-Interval` in seconds: how often the server wants the log. */
  updateInterval: number | null;
}

export interface TraceAppendAnswer extends JobReportAnswer {
  /** The log's length in bytes after the append (from `Range: 0-<length>`). */
  size: number;
}

export interface UploadJobArtifactsParams {
  /** Default `archive`. */
  artifact_type?: string;
  /** `zip` (default), `gzip` or `raw`. */
  artifact_format?: 'zip' | 'gzip' | 'raw';
  /** e.g. `1 week`; default: the job's `artifacts:expire_in`. */
  expire_in?: string;
  /** The file name stored (default: the path's base name, else `artifacts.zip`). */
  filename?: string;
}

/**
 * `Range: 0-<length>` (also `bytes=0-<length>`, `bytes 0-<length>` or a bare `<length>`), the
 * log's length a trace PATCH answers (with 202, or with 416 when the offset was not it); null
 * when absent or unreadable.
 */
export function traceLength(range: string | null | undefined): number | null {
  if (!range) return null;
  const m = /^(?:bytes[= ])?\d+-(\d+)$/.exec(range.trim()) ?? /^(\d+)$/.exec(range.trim());
  return m ? Number(m[1]) : null;
}

function reportAnswer(status: number, headers: FetchResponse['headers']): JobReportAnswer {
  const interval = Number(headers.get('x-gitlab-trace-update-interval'));
  return { status, jobStatus: headers.get('job-status'), updateInterval: Number.isFinite(interval) && interval > 0 ? interval : null };
}

/**
 * The runner side of CI jobs (GitLab's runner protocol, `/jobs/…`): take a job, report its
 * state, append to its log, upload and download artifacts. Every call but `request` is
 * authenticated by the job's own token (`JobPayload.token`), in the `JOB-TOKEN` header (and
 * the body where GitLab requires it). Registering and verifying runners is `api.runners`.
 * Refusals throw `ApiError`, whose `headers` hold `Job-Status` (403 once the job is no longer
 * running) and `Range` (416).
 */
export class RunnerJobs {
  constructor(private readonly requester: Requester) {}

  /** A pending job for the runner, now running (201), or null when there is none. */
  async request(params: RequestJobParams, options: RunnerCallOptions = {}): Promise<JobPayload | null> {
    return (await this.poll(params, options)).job;
  }

  /** `request`, with the `X-GitLab-Last-Update` cursor a polling runner sends back as `last_update`. */
  async poll(params: RequestJobParams, options: RunnerCallOptions = {}): Promise<JobRequestAnswer> {
    let res;
    try {
      res = await this.requester.request<JobPayload | undefined>('POST', 'jobs/request', { body: params, signal: options.signal });
    } catch (err) {
      // GitLab's 409: the job was taken by another runner between the lookup and the claim.
      if (ApiError.is(err, 409)) return { job: null, lastUpdate: err.headers?.get('x-gitlab-last-update') ?? null };
      throw err;
    }
    return { job: res.status === 201 && res.data ? res.data : null, lastUpdate: res.headers.get('x-gitlab-last-update') };
  }

  /**
   * Reports the job `running` (a keep-alive that learns of a cancellation), `success` or
   * `failed` (with a `failure_reason`). A 202 asks for the same report again after
   * `updateInterval`: the server is still waiting for the end of the log.
   */
  async update(jobId: number, jobToken: string, params: UpdateJobParams, options: RunnerCallOptions = {}): Promise<JobReportAnswer> {
    const res = await this.requester.request('PUT', endpoint`jobs/${jobId}`, { body: { token: jobToken, ...params }, headers: { 'JOB-TOKEN': jobToken }, signal: options.signal });
    return reportAnswer(res.status, res.headers);
  }

  /**
   * Appends `data` to the job's log at byte `offset` (the log's current length), with
   * `Content-Range: <offset>-<offset + length>` as gitlab-runner sends it (the server reads the
   * start). Answers the length after the append; a wrong offset is a 416 ApiError whose
   * `Range` header holds the server's length (`traceLength(err.headers.get('range'))`).
   */
  async appendTrace(jobId: number, jobToken: string, data: string | Uint8Array, offset: number, options: RunnerCallOptions = {}): Promise<TraceAppendAnswer> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const res = await this.requester.request('PATCH', endpoint`jobs/${jobId}/trace`, {
      raw: { data: bytes, contentType: 'text/plain' },
      headers: { 'JOB-TOKEN': jobToken, 'Content-Range': `${offset}-${offset + bytes.byteLength}` },
      signal: options.signal,
    });
    return { ...reportAnswer(res.status, res.headers), size: traceLength(res.headers.get('range')) ?? offset + bytes.byteLength };
  }

  /**
   * Uploads one artifact of the job (multipart `file`, streamed from disk with its length when
   * `file` is a path, re-read for a retry). Type, format and expiry go in the query string, as
   * gitlab-runner sends them, and as form fields.
   */
  async uploadArtifacts(jobId: number, jobToken: string, file: UploadSource, params: UploadJobArtifactsParams = {}, options: RunnerCallOptions = {}): Promise<void> {
    const { filename, artifact_type, artifact_format, expire_in } = params;
    const fields = { artifact_type, artifact_format, expire_in };
    const name = filename ?? (typeof file === 'object' && file !== null && 'path' in file && typeof file.path === 'string' ? file.path.split(/[\\/]/).pop()! : 'artifacts.zip');
    await this.requester.upload('POST', endpoint`jobs/${jobId}/artifacts`, { fields, files: [{ field: 'file', filename: name, content: file }] }, {
      query: fields,
      headers: { 'JOB-TOKEN': jobToken },
      signal: options.signal,
    });
  }

  /** The artifacts archive of job `jobId`, streamed, with the token of a job that depends on it (or its own). */
  downloadArtifacts(jobId: number, jobToken: string, options: RunnerCallOptions = {}): Promise<StreamResponse> {
    return this.requester.stream('GET', endpoint`jobs/${jobId}/artifacts`, { headers: { 'JOB-TOKEN': jobToken }, signal: options.signal });
  }
}
