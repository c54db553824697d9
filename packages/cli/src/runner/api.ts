/**
 * The runner side of GitLab's runner protocol (`/api/v4/runners/verify`, `/api/v4/jobs/…`)
 * and the job-token calls a job makes (repository tree, raw files, artifacts), on undici.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import type { JobPayload, TreeEntry } from './types.js';

export const RUNNER_NAME = 'forgelet-runner';

/** A non-success answer from the server. */
export class RunnerApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    what: string,
  ) {
    super(`${what}: ${status} ${messageOf(body)}`);
    this.name = 'RunnerApiError';
  }
}

/** The runner token was refused (401/403 on verify or jobs/request). */
export class RunnerAuthError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RunnerAuthError';
  }
}

/** The server could not be reached or the connection broke. */
export class RunnerNetworkError extends Error {
  constructor(
    readonly url: string,
    override readonly cause: unknown,
  ) {
    const c = cause as { code?: string; message?: string } | undefined;
    super(`cannot reach ${url}: ${c?.code ?? c?.message ?? String(cause)}`);
    this.name = 'RunnerNetworkError';
  }
}

function messageOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    const m = parsed.message ?? parsed.error;
    if (m !== undefined) return typeof m === 'string' ? m : JSON.stringify(m);
  } catch {
    // not JSON
  }
  return body.length > 200 ? `${body.slice(0, 200)}…` : body;
}

export interface RunnerInfo {
  name: string;
  version: string;
  revision: string;
  platform: string;
  architecture: string;
  executor: string;
  shell: string;
  features: Record<string, boolean>;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

function header(reply: { headers: Reply['headers'] }, name: string): string | undefined {
  const v = reply.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** `Range: 0-<size>` (or `<size>`) → size. */
export function parseRangeEnd(value: string | undefined): number | null {
  if (!value) return null;
  const m = /^(?:bytes[= ])?(\d+)-(\d+)$/.exec(value.trim()) ?? /^(\d+)$/.exec(value.trim());
  if (!m) return null;
  return Number(m[m.length - 1]);
}

export interface TracePatchReply {
  status: number;
  /** The server's log size after the patch (or what it expects on 416). */
  remoteSize: number | null;
  jobStatus: string | undefined;
  updateInterval: number | null;
}

export interface UpdateJobReply {
  status: number;
  body: string;
  jobStatus: string | undefined;
  updateInterval: number | null;
}

export interface UploadOptions {
  artifactType: string;
  artifactFormat: string;
  expireIn?: string | null;
  filename: string;
}

export class RunnerApi {
  readonly base: string;

  constructor(
    url: string,
    readonly token: string,
    readonly userAgent: string,
    private readonly dispatcher?: Dispatcher,
  ) {
    this.base = `${url.replace(/\/+$/, '')}/api/v4`;
  }

  private async send(
    method: Dispatcher.HttpMethod,
    path: string,
    options: { json?: unknown; headers?: Record<string, string>; body?: Readable | Buffer | string; signal?: AbortSignal } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, accept: 'application/json', ...options.headers };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    const url = `${this.base}${path}`;
    try {
      const res = await request(url, {
        method,
        headers,
        body,
        dispatcher: this.dispatcher,
        signal: options.signal,
        headersTimeout: 120_000,
        bodyTimeout: 300_000,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new RunnerNetworkError(url, err);
    }
  }

  private async text(reply: Reply): Promise<string> {
    try {
      return await reply.body.text();
    } catch {
      return '';
    }
  }

  /** `POST /runners/verify`: resolves when the token is valid. */
  async verify(systemId: string): Promise<void> {
    const reply = await this.send('POST', '/runners/verify', { json: { token: this.token, system_id: systemId } });
    const body = await this.text(reply);
    if (reply.status === 200 || reply.status === 201) return;
    if (reply.status === 401 || reply.status === 403) {
      throw new RunnerAuthError(reply.status, `the runner token was refused (${reply.status} ${messageOf(body)}): check --token (a glrt- runner authentication token)`);
    }
    throw new RunnerApiError(reply.status, body, 'POST /runners/verify');
  }

  /** `POST /jobs/request`: a job, or null when none is pending (204, or 409 on a race). */
  async requestJob(info: RunnerInfo, systemId: string, lastUpdate: string | undefined, signal?: AbortSignal): Promise<{ job: JobPayload | null; lastUpdate: string | undefined }> {
    const reply = await this.send('POST', '/jobs/request', {
      json: { token: this.token, system_id: systemId, info, ...(lastUpdate ? { last_update: lastUpdate } : {}) },
      signal,
    });
    const body = await this.text(reply);
    const next = header(reply, 'x-gitlab-last-update') ?? lastUpdate;
    if (reply.status === 201) {
      let job: JobPayload;
      try {
        job = JSON.parse(body) as JobPayload;
      } catch {
        throw new RunnerApiError(reply.status, body, 'POST /jobs/request returned a job that is not JSON');
      }
      if (typeof job?.id !== 'number' || typeof job.token !== 'string') throw new RunnerApiError(reply.status, body, 'POST /jobs/request returned a job without id or token');
      return { job, lastUpdate: next };
    }
    if (reply.status === 204 || reply.status === 409) return { job: null, lastUpdate: next };
    if (reply.status === 401 || reply.status === 403) {
      throw new RunnerAuthError(reply.status, `the runner token was refused (${reply.status} ${messageOf(body)})`);
    }
    throw new RunnerApiError(reply.status, body, 'POST /jobs/request');
  }

  /** `PATCH /jobs/:id/trace` with the bytes from `offset` (Content-Range as gitlab-runner sends it). */
  async patchTrace(jobId: number, jobToken: string, offset: number, bytes: Buffer): Promise<TracePatchReply> {
    const reply = await this.send('PATCH', `/jobs/${jobId}/trace`, {
      headers: {
        'job-token': jobToken,
        'content-type': 'text/plain',
        // gitlab-runner sends `<offset>-<offset + length>`; GitLab reads only the start and
        // takes the end from the body (gitlab-runner#3275).
        'content-range': `${offset}-${offset + bytes.length}`,
      },
      body: bytes,
    });
    await this.text(reply);
    const interval = Number(header(reply, 'x-gitlab-trace-update-interval'));
    return {
      status: reply.status,
      remoteSize: parseRangeEnd(header(reply, 'range')),
      jobStatus: header(reply, 'job-status'),
      updateInterval: Number.isFinite(interval) && interval > 0 ? interval : null,
    };
  }

  /** `PUT /jobs/:id`: the final state (or `running` as a keep-alive). */
  async updateJob(jobId: number, jobToken: string, body: Record<string, unknown>): Promise<UpdateJobReply> {
    const reply = await this.send('PUT', `/jobs/${jobId}`, { headers: { 'job-token': jobToken }, json: { token: jobToken, ...body } });
    const text = await this.text(reply);
    if (reply.status >= 500) throw new RunnerApiError(reply.status, text, `PUT /jobs/${jobId}`);
    const interval = Number(header(reply, 'x-gitlab-trace-update-interval'));
    return { status: reply.status, body: text, jobStatus: header(reply, 'job-status'), updateInterval: Number.isFinite(interval) && interval > 0 ? interval : null };
  }

  /**
   * `POST /jobs/:id/artifacts`: multipart `file` streamed from disk (the size is known, so
   * the request has a Content-Length); type, format and expiry go both in the query string
   * (as gitlab-runner sends them) and as form fields.
   */
  async uploadArtifact(jobId: number, jobToken: string, file: string, size: number, options: UploadOptions): Promise<{ status: number; message: string }> {
    const boundary = `----forgelet-runner-${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
    const fields: [string, string][] = [
      ['artifact_type', options.artifactType],
      ['artifact_format', options.artifactFormat],
    ];
    if (options.expireIn) fields.push(['expire_in', options.expireIn]);
    const head = Buffer.from(
      fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.filename.replace(/["\r\n]/g, '_')}"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Readable.from(
      (async function* () {
        yield head;
        for await (const chunk of createReadStream(file)) yield chunk as Buffer;
        yield tail;
      })(),
    );
    const query = new URLSearchParams(fields).toString();
    const reply = await this.send('POST', `/jobs/${jobId}/artifacts?${query}`, {
      headers: {
        'job-token': jobToken,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + size + tail.length),
      },
      body,
    });
    const text = await this.text(reply);
    return { status: reply.status, message: messageOf(text) };
  }

  /** `GET /jobs/:id/artifacts` into `dest`; returns the status (200 written, else nothing written). */
  async downloadArtifacts(jobId: number, jobToken: string, dest: string): Promise<{ status: number; message: string }> {
    const reply = await this.send('GET', `/jobs/${jobId}/artifacts`, { headers: { 'job-token': jobToken } });
    if (reply.status !== 200) return { status: reply.status, message: messageOf(await this.text(reply)) };
    await pipeline(reply.body, createWriteStream(dest, { mode: 0o600 }));
    return { status: 200, message: 'OK' };
  }

  /** Every entry of the repository tree at `ref`, following X-Next-Page (or Link rel=next). */
  async *tree(projectId: number, jobToken: string, ref: string): AsyncGenerator<TreeEntry> {
    let page: string | null = '1';
    for (let guard = 0; page && guard < 100_000; guard++) {
      const query = new URLSearchParams({ ref, recursive: 'true', per_page: '100', page });
      const reply = await this.send('GET', `/projects/${projectId}/repository/tree?${query}`, { headers: { 'job-token': jobToken } });
      const text = await this.text(reply);
      if (reply.status !== 200) throw new RunnerApiError(reply.status, text, `GET /projects/${projectId}/repository/tree (ref ${ref})`);
      const entries = JSON.parse(text) as TreeEntry[];
      if (!Array.isArray(entries)) throw new RunnerApiError(reply.status, text, 'the repository tree is not a list');
      yield* entries;
      const nextPage = header(reply, 'x-next-page');
      if (nextPage !== undefined) page = nextPage.trim() === '' ? null : nextPage.trim();
      else {
        const link = header(reply, 'link') ?? '';
        const next = /<([^>]+)>;\s*rel="next"/.exec(link)?.[1];
        page = next ? new URL(next).searchParams.get('page') : null;
      }
      if (entries.length === 0) page = null;
    }
  }

  /** `GET /projects/:id/repository/files/:path/raw?ref=` streamed into `dest`. */
  async rawFile(projectId: number, jobToken: string, path: string, ref: string, dest: string, mode: number): Promise<void> {
    const query = new URLSearchParams({ ref });
    const reply = await this.send('GET', `/projects/${projectId}/repository/files/${encodeURIComponent(path)}/raw?${query}`, {
      headers: { 'job-token': jobToken },
    });
    if (reply.status !== 200) throw new RunnerApiError(reply.status, await this.text(reply), `GET repository file ${path} (ref ${ref})`);
    await pipeline(reply.body, createWriteStream(dest, { mode }));
  }

  /** `GET /projects/:id/repository/files/:path/raw` as text (symlink targets). */
  async rawText(projectId: number, jobToken: string, path: string, ref: string): Promise<string> {
    const query = new URLSearchParams({ ref });
    const reply = await this.send('GET', `/projects/${projectId}/repository/files/${encodeURIComponent(path)}/raw?${query}`, {
      headers: { 'job-token': jobToken },
    });
    const text = await this.text(reply);
    if (reply.status !== 200) throw new RunnerApiError(reply.status, text, `GET repository file ${path} (ref ${ref})`);
    return text;
  }
}
