import type { RequestJobInput, UpdateJobInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import type { UploadSource } from '../infrastructure/multipart.js';
import type { Requester, StreamResponse } from '../infrastructure/requester.js';

/** `POST /jobs/request` params; `token` is the runner's authentication token (`glrt-…`). */
export type RequestJobParams = RequestJobInput;
/** `PUT /jobs/:id` params (the job token goes in the header). */
export type UpdateJobParams = Omit<UpdateJobInput, 'id' | 'token'>;

/** A variable of a job payload. */
export interface JobPayloadVariable {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
  file?: boolean;
  raw?: boolean;
}

/** The job a runner receives (GitLab's runner protocol); the fields a runner reads are typed. */
export interface JobPayload {
  id: number;
  /** The job's CI token: every other call of the job authenticates with it. */
  token: string;
  allow_git_fetch: boolean;
  job_info: { id: number; name: string; stage: string; pipeline_id: number; project_id: number; project_name: string; project_full_path: string; [key: string]: unknown };
  git_info: { repo_url: string; ref: string; sha: string; before_sha: string; ref_type: 'branch' | 'tag'; refspecs: string[]; depth: number; [key: string]: unknown };
  runner_info: { timeout: number; runner_session_url: string | null };
  variables: JobPayloadVariable[];
  steps: { name: string; script: string[]; timeout: number; when: string; allow_failure: boolean }[];
  image: { name: string; entrypoint: string[] | null; [key: string]: unknown } | null;
  artifacts: { name: string | null; paths: string[]; exclude?: string[]; untracked?: boolean; when: string; expire_in: string | null; artifact_type: string; artifact_format: string }[];
  dependencies: { id: number; name: string; token: string; artifacts_file?: { filename: string; size: number } }[];
  [key: string]: unknown;
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
 * The runner side of CI jobs (GitLab's runner protocol, `/jobs/…`): take a job, report its
 * state, append to its log, upload and download artifacts. Every call but `request` is
 * authenticated by the job's own token (`JobPayload.token`). Registering and verifying
 * runners is `api.runners`.
 */
export class RunnerJobs {
  constructor(private readonly requester: Requester) {}

  /** A pending job for the runner, now running (201), or null when there is none (204). */
  async request(params: RequestJobParams): Promise<JobPayload | null> {
    const res = await this.requester.request<JobPayload | undefined>('POST', 'jobs/request', { body: params });
    return res.status === 201 && res.data ? res.data : null;
  }

  /** Reports the job `running`, `success` or `failed` (with a `failure_reason`). */
  async update(jobId: number, jobToken: string, params: UpdateJobParams): Promise<void> {
    await this.requester.request('PUT', endpoint`jobs/${jobId}`, { body: params, headers: { 'JOB-TOKEN': jobToken } });
  }

  /**
   * Appends `data` to the job's log at byte `offset` (the log's current length); answers the
   * length after the append. A wrong offset is a 416 ApiError whose `Range` header holds the length.
   */
  async appendTrace(jobId: number, jobToken: string, data: string | Uint8Array, offset: number): Promise<{ size: number }> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const res = await this.requester.request('PATCH', endpoint`jobs/${jobId}/trace`, {
      raw: { data: bytes, contentType: 'text/plain' },
      headers: { 'JOB-TOKEN': jobToken, 'Content-Range': `${offset}-${offset + Math.max(0, bytes.byteLength - 1)}` },
    });
    const range = /(\d+)-(\d+)/.exec(res.headers.get('range') ?? '');
    return { size: range ? Number(range[2]) : offset + bytes.byteLength };
  }

  /** Uploads the job's artifacts archive (multipart `file`, streamed from disk when `file` is a path). */
  async uploadArtifacts(jobId: number, jobToken: string, file: UploadSource, params: UploadJobArtifactsParams = {}): Promise<void> {
    const { filename, ...fields } = params;
    const name = filename ?? (typeof file === 'object' && file !== null && 'path' in file && typeof file.path === 'string' ? file.path.split(/[\\/]/).pop()! : 'artifacts.zip');
    await this.requester.upload('POST', endpoint`jobs/${jobId}/artifacts`, { fields, files: [{ field: 'file', filename: name, content: file, contentType: 'application/zip' }] }, { headers: { 'JOB-TOKEN': jobToken } });
  }

  /** The artifacts archive of job `jobId`, streamed, with the token of a job that depends on it (or its own). */
  downloadArtifacts(jobId: number, jobToken: string): Promise<StreamResponse> {
    return this.requester.stream('GET', endpoint`jobs/${jobId}/artifacts`, { headers: { 'JOB-TOKEN': jobToken } });
  }
}
