import { Readable } from 'node:stream';
import type { ArtifactTreeEntryEntity, KeptJobEntity } from '@forgelet/core';
import { fetch as undiciFetch } from 'undici';
import { ApiError, type ApiErrorBody } from '../infrastructure/api-error.js';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { FetchLike, Requester, RequesterOptions } from '../infrastructure/requester.js';

/** What a download needs of a fetch response beyond FetchResponse: the bytes. */
interface BinaryResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  body: unknown;
}

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
  return path.split('/').map(encodeURIComponent).join('/');
}

function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1]!);
  const plain = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition);
  return plain ? plain[1]!.replace(/\\(.)/g, '$1') : null;
}

/**
 * Job artifacts (`/projects/:id/jobs/…/artifacts`): archives, single files and the tree of an
 * archive, by job or by ref (latest successful pipeline); keep and delete. Reads work with a
 * CI job token (`new Forgelet({ url, jobToken })`).
 */
export class JobArtifacts {
  private readonly headers: Record<string, string> = {};
  private readonly fetch: FetchLike | undefined;

  /** Downloads go through `options.fetch` when it answers with bytes (undici's and the global fetch do). */
  constructor(
    private readonly requester: Requester,
    options: Pick<RequesterOptions, 'token' | 'jobToken' | 'sudo' | 'fetch'>,
  ) {
    this.fetch = options.fetch;
    if (options.token) this.headers['PRIVATE-TOKEN'] = options.token;
    if (options.jobToken) this.headers['JOB-TOKEN'] = options.jobToken;
    if (options.sudo !== undefined && options.sudo !== '') this.headers.Sudo = String(options.sudo);
  }

  /** The archive of a job, streamed. */
  streamArchive(projectId: ResourceId, jobId: number): Promise<ArtifactStream> {
    return this.stream(endpoint`projects/${projectId}/jobs/${jobId}/artifacts`);
  }

  /** The archive of a job, in memory. */
  downloadArchive(projectId: ResourceId, jobId: number): Promise<ArtifactBytes> {
    return this.bytes(endpoint`projects/${projectId}/jobs/${jobId}/artifacts`);
  }

  /** One file of a job's archive (`dir/file.txt`), typed by its extension. */
  downloadFile(projectId: ResourceId, jobId: number, artifactPath: string): Promise<ArtifactBytes> {
    return this.bytes(`${endpoint`projects/${projectId}/jobs/${jobId}/artifacts`}/${pathSegments(artifactPath)}`);
  }

  /** One file of a job's archive, streamed. */
  streamFile(projectId: ResourceId, jobId: number, artifactPath: string): Promise<ArtifactStream> {
    return this.stream(`${endpoint`projects/${projectId}/jobs/${jobId}/artifacts`}/${pathSegments(artifactPath)}`);
  }

  /** The archive of job `job` in the latest successful pipeline of `ref`. */
  downloadArchiveByRef(projectId: ResourceId, ref: string, job: string, params: ByRefParams = {}): Promise<ArtifactBytes> {
    return this.bytes(endpoint`projects/${projectId}/jobs/artifacts/${ref}/download`, this.byRefQuery(job, params));
  }

  /** One file of that archive, its type detected from its content (text is `text/plain`). */
  downloadFileByRef(projectId: ResourceId, ref: string, artifactPath: string, job: string, params: ByRefParams = {}): Promise<ArtifactBytes> {
    return this.bytes(`${endpoint`projects/${projectId}/jobs/artifacts/${ref}/raw`}/${pathSegments(artifactPath)}`, this.byRefQuery(job, params));
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

  private byRefQuery(job: string, params: ByRefParams): Record<string, unknown> {
    const query: Record<string, unknown> = { job };
    if (params.searchRecentSuccessfulPipelines !== undefined) query.search_recent_successful_pipelines = params.searchRecentSuccessfulPipelines;
    return query;
  }

  private async open(path: string, query: Record<string, unknown> = {}): Promise<BinaryResponse> {
    const url = this.requester.url(path, query);
    const init = { method: 'GET', headers: { ...this.headers } };
    const injected = this.fetch ? ((await this.fetch(url, init)) as Partial<BinaryResponse>) : null;
    const res = injected && typeof injected.arrayBuffer === 'function' ? (injected as BinaryResponse) : ((await undiciFetch(url, init)) as BinaryResponse);
    if (res.status >= 400) {
      const text = await res.text();
      let body: ApiErrorBody = text;
      if ((res.headers.get('content-type') ?? '').includes('json')) {
        try {
          body = JSON.parse(text) as ApiErrorBody;
        } catch {
          // the text is the error
        }
      }
      throw new ApiError(res.status, body, { method: 'GET', url });
    }
    return res;
  }

  private async bytes(path: string, query?: Record<string, unknown>): Promise<ArtifactBytes> {
    const res = await this.open(path, query);
    return {
      data: Buffer.from(await res.arrayBuffer()),
      contentType: res.headers.get('content-type'),
      filename: filenameOf(res.headers.get('content-disposition')),
    };
  }

  private async stream(path: string, query?: Record<string, unknown>): Promise<ArtifactStream> {
    const res = await this.open(path, query);
    const length = res.headers.get('content-length');
    return {
      body: res.body ? Readable.fromWeb(res.body as import('node:stream/web').ReadableStream) : Readable.from([]),
      size: length === null ? null : Number(length),
      contentType: res.headers.get('content-type'),
      filename: filenameOf(res.headers.get('content-disposition')),
    };
  }
}
