import type { Readable } from 'node:stream';
import type { ArtifactTreeEntryEntity, KeptJobEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export interface ArtifactTreeParams extends PaginationParams {
  /** Directory to list (default: the root). */
  path?: string;
  /** Every entry below `path`, not only its children. */
  recursive?: boolean;
}

export interface ByRefParams {
  /** Search up to 100 recent successful pipelines of the ref, not only the latest. */
  searchRecentSuccessfulPipelines?: boolean;
}

/** A downloaded file or archive: its bytes and the headers that describe them. */
export interface ArtifactBytes {
  data: Buffer;
  contentType: string | null;
  /** The `filename` of `Content-Disposition`. */
  filename: string | null;
}

/** A streamed download (archives can be gigabytes): consume `body` once. */
export interface ArtifactStream {
  body: Readable;
  size: number | null;
  contentType: string | null;
  filename: string | null;
}

/** `a/b c.txt` → `a/b%20c.txt`: slashes stay (the server takes them raw and %2F-encoded alike). */
function pathSegments(path: string): string {
  return String(path).split('/').map(encodeURIComponent).join('/');
}

/**
 * Job artifacts (`/projects/:id/jobs/…/artifacts`): archives, single files and the tree of an
 * archive, by job or by ref (latest successful pipeline); keep and delete. Reads work with a
 * CI job token (`new Forgelet({ url, jobToken })`).
 */
export class JobArtifacts {
  /** Downloads go through the requester (its fetch, headers and retries), as every resource's calls. */
  constructor(private readonly requester: Requester) {}

  /** The archive of a job, streamed. */
  streamArchive(projectId: ResourceId, jobId: number): Promise<ArtifactStream> {
    return this.#stream(endpoint`projects/${projectId}/jobs/${jobId}/artifacts`);
  }

  /** The archive of a job, in memory. */
  downloadArchive(projectId: ResourceId, jobId: number): Promise<ArtifactBytes> {
    return this.#bytes(endpoint`projects/${projectId}/jobs/${jobId}/artifacts`);
  }

  /** One file of a job's archive (`dir/file.txt`), typed by its extension. */
  downloadFile(projectId: ResourceId, jobId: number, artifactPath: string): Promise<ArtifactBytes> {
    return this.#bytes(`${endpoint`projects/${projectId}/jobs/${jobId}/artifacts`}/${pathSegments(artifactPath)}`);
  }

  /** One file of a job's archive, streamed. */
  streamFile(projectId: ResourceId, jobId: number, artifactPath: string): Promise<ArtifactStream> {
    return this.#stream(`${endpoint`projects/${projectId}/jobs/${jobId}/artifacts`}/${pathSegments(artifactPath)}`);
  }

  /** The archive of job `job` in the latest successful pipeline of `ref`. */
  downloadArchiveByRef(projectId: ResourceId, ref: string, job: string, params: ByRefParams = {}): Promise<ArtifactBytes> {
    return this.#bytes(endpoint`projects/${projectId}/jobs/artifacts/${ref}/download`, this.#byRefQuery(job, params));
  }

  /** The archive of job `job` in the latest successful pipeline of `ref`, streamed. */
  streamArchiveByRef(projectId: ResourceId, ref: string, job: string, params: ByRefParams = {}): Promise<ArtifactStream> {
    return this.#stream(endpoint`projects/${projectId}/jobs/artifacts/${ref}/download`, this.#byRefQuery(job, params));
  }

  /** One file of that archive, streamed. */
  streamFileByRef(projectId: ResourceId, ref: string, artifactPath: string, job: string, params: ByRefParams = {}): Promise<ArtifactStream> {
    return this.#stream(`${endpoint`projects/${projectId}/jobs/artifacts/${ref}/raw`}/${pathSegments(artifactPath)}`, this.#byRefQuery(job, params));
  }

  /** One file of that archive, its type detected from its content (text is `text/plain`). */
  downloadFileByRef(projectId: ResourceId, ref: string, artifactPath: string, job: string, params: ByRefParams = {}): Promise<ArtifactBytes> {
    return this.#bytes(`${endpoint`projects/${projectId}/jobs/artifacts/${ref}/raw`}/${pathSegments(artifactPath)}`, this.#byRefQuery(job, params));
  }

  /** Entries of a directory of the archive (directories first), or every entry below it (`recursive`). */
  tree(projectId: ResourceId, jobId: number, params: ArtifactTreeParams = {}): Paginated<ArtifactTreeEntryEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/jobs/${jobId}/artifacts/tree`, params);
  }

  /** Keeps the job's artifacts from expiring (Developer); the job. */
  keep(projectId: ResourceId, jobId: number): Promise<KeptJobEntity> {
    return this.requester.post(endpoint`projects/${projectId}/jobs/${jobId}/artifacts/keep`, {});
  }

  /** Deletes the job's artifacts, not its log (Maintainer). */
  remove(projectId: ResourceId, jobId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/jobs/${jobId}/artifacts`);
  }

  /** Expires every deletable artifact of the project now; the server's worker removes them (Maintainer). */
  removeAll(projectId: ResourceId): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/artifacts`);
  }

  #byRefQuery(job: string, params: ByRefParams): Record<string, unknown> {
    const query: Record<string, unknown> = { job };
    if (params.searchRecentSuccessfulPipelines !== undefined) query.search_recent_successful_pipelines = params.searchRecentSuccessfulPipelines;
    return query;
  }

  async #bytes(path: string, query?: Record<string, unknown>): Promise<ArtifactBytes> {
    const res = await this.requester.bytes('GET', path, { query });
    return { data: res.data, contentType: res.contentType, filename: res.filename };
  }

  async #stream(path: string, query?: Record<string, unknown>): Promise<ArtifactStream> {
    const res = await this.requester.stream('GET', path, { query });
    return { body: res.body, size: res.size, contentType: res.contentType, filename: res.filename };
  }
}
