/**
 * The transport: auth headers, query strings, JSON and multipart bodies, streamed downloads,
 * retries, errors. One instance per client.
 *
 * Retries: an answer 429 (GitLab's throttle) or 503 (unavailable, maintenance) means the
 * server did not run the request, so it is sent again, for every method, up to `retries`
 * times: after the `Retry-After` it gave (seconds or an HTTP date), else after an exponential
 * backoff with jitter (`retryDelayMs` · 2^attempt, between half and all of it, capped at
 * `maxRetryDelayMs`). A `Retry-After` longer than `maxRetryDelayMs` is not waited for: the
 * error is thrown at once. Bodies that cannot be read twice (an upload from a stream the
 * caller gave) are sent once. Network errors and other statuses are never retried.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { fetch as undiciFetch } from 'undici';
import { ApiError, type ApiErrorBody } from './api-error.js';
import { encodeMultipart, isReplayable, type MultipartBody } from './multipart.js';

/** The part of a fetch Response the client reads (undici's and the global fetch both fit). */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  /** Read by downloads when there is no `body` stream. */
  arrayBuffer?(): Promise<ArrayBuffer>;
  /** A web ReadableStream (or a Node Readable) of the body: downloads stream it. */
  body?: unknown;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  /** JSON text, bytes, or a multipart stream (then `duplex: 'half'`). */
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  duplex?: 'half';
  /** `manual` for calls that read a redirect's `Location` instead of following it. */
  redirect?: 'manual';
  /** Aborts the request (the caller's `RequestOptions.signal`). */
  signal?: AbortSignal;
}

/** A fetch function: undici's by default; inject another to trace or replay requests. */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface RequesterOptions {
  /** Instance URL, e.g. `http://localhost:8080` (a trailing `/api/v4` is accepted). */
  url: string;
  /** Personal, project or group access token, sent as `PRIVATE-TOKEN`. */
  token?: string;
  /** CI job token, sent as `JOB-TOKEN`. */
  jobToken?: string;
  /** Act as this user (username or id); needs an admin token with the `sudo` scope. */
  sudo?: string | number;
  /** Sent as `User-Agent` (e.g. a runner's `name version (platform)`); default: the fetch's own. */
  userAgent?: string;
  fetch?: FetchLike;
  /** Headers sent with every request (the web console's `X-CSRF-Token`). */
  headers?: Record<string, string>;
  /** Times a request answered 429 or 503 is sent again (default 3; 0 turns retries off). */
  retries?: number;
  /** Base of the exponential backoff in ms (default 500). */
  retryDelayMs?: number;
  /** Longest wait before a retry in ms (default 60000); a longer `Retry-After` is not waited for. */
  maxRetryDelayMs?: number;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
/** Query params: values are scalars, arrays (`k[]=v`), dates or hashes (`k[sub]=v`). */
export type QueryParams = object;

export interface ApiResponse<T> {
  data: T;
  status: number;
  headers: FetchResponse['headers'];
  /** The URL that was requested. */
  url: string;
}

/** A streamed download: consume `body` once. */
export interface StreamResponse {
  body: Readable;
  status: number;
  headers: FetchResponse['headers'];
  url: string;
  /** Content-Length, when the server sent one. */
  size: number | null;
  contentType: string | null;
  /** The `filename` of `Content-Disposition`. */
  filename: string | null;
}

/** A download read into memory. */
export interface BytesResponse {
  data: Buffer;
  status: number;
  headers: FetchResponse['headers'];
  contentType: string | null;
  filename: string | null;
}

export interface RequestOptions {
  query?: QueryParams;
  /** Extra headers (e.g. `X-NuGet-ApiKey`, `Symbolchecksum`). */
  headers?: Record<string, string>;
  /** A JSON body. */
  body?: object;
  /** A multipart/form-data body (files streamed). */
  multipart?: MultipartBody;
  /** A body sent as is (e.g. a job log chunk). */
  raw?: { data: string | Uint8Array; contentType: string };
  /** Answer a redirect instead of following it. */
  redirect?: 'manual';
  /** Aborts the request, a wait before a retry included (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

const RETRY_STATUSES = new Set([429, 503]);

/** `Retry-After` (delta seconds or an HTTP date) in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The wait before retry number `attempt` (0-based), or null when the server asks for longer than `max`. */
export function retryDelay(attempt: number, retryAfter: string | null, options: { base: number; max: number; random?: () => number; now?: number }): number | null {
  const asked = parseRetryAfter(retryAfter, options.now);
  if (asked !== null && asked > options.max) return null;
  const ceiling = Math.min(options.max, options.base * 2 ** attempt);
  const backoff = Math.round(ceiling / 2 + (ceiling / 2) * (options.random ?? Math.random)());
  return Math.max(asked ?? 0, backoff);
}

export function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1]!);
  const plain = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition) ?? /filename=([^;\s]+)/.exec(disposition);
  return plain ? plain[1]!.replace(/\\(.)/g, '$1') : null;
}

/** Waits `ms`; rejects with the signal's reason as soon as it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class Requester {
  readonly apiUrl: string;
  private readonly headers: Record<string, string>;
  private readonly fetch: FetchLike;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(options: RequesterOptions) {
    this.apiUrl = `${options.url.replace(/\/+$/, '').replace(/\/api\/v4$/, '')}/api/v4`;
    this.headers = { Accept: 'application/json' };
    if (options.token) this.headers['PRIVATE-TOKEN'] = options.token;
    if (options.jobToken) this.headers['JOB-TOKEN'] = options.jobToken;
    if (options.sudo !== undefined && options.sudo !== '') this.headers.Sudo = String(options.sudo);
    if (options.userAgent) this.headers['User-Agent'] = options.userAgent;
    Object.assign(this.headers, options.headers);
    this.fetch = options.fetch ?? (undiciFetch as unknown as FetchLike);
    this.retries = Math.max(0, Math.floor(options.retries ?? 3));
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 500);
    this.maxRetryDelayMs = Math.max(0, options.maxRetryDelayMs ?? 60_000);
  }

  /** The absolute URL of an API path (as built by `endpoint`) with its query string. */
  url(path: string, query: QueryParams = {}): string {
    const qs = toQueryString(query);
    return `${this.apiUrl}/${path}${qs ? `?${qs}` : ''}`;
  }

  get<T>(path: string, query?: QueryParams): Promise<T> {
    return this.send<T>('GET', this.url(path, query)).then((r) => r.data);
  }

  post<T>(path: string, body?: object): Promise<T> {
    return this.send<T>('POST', this.url(path), body).then((r) => r.data);
  }

  put<T>(path: string, body?: object): Promise<T> {
    return this.send<T>('PUT', this.url(path), body).then((r) => r.data);
  }

  patch<T>(path: string, body?: object): Promise<T> {
    return this.send<T>('PATCH', this.url(path), body).then((r) => r.data);
  }

  /** DELETE, sent without a body. */
  async delete(path: string): Promise<void> {
    await this.send('DELETE', this.url(path));
  }

  /** Sends one request to an absolute URL (a `Link` URL is used as given); JSON answers parsed, others as text. */
  async send<T>(method: Method, url: string, body?: object): Promise<ApiResponse<T>> {
    return this.request<T>(method, url, { body });
  }

  /** A request with every option (query, headers, JSON or multipart body) to a path or an absolute URL. */
  async request<T>(method: Method, pathOrUrl: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const url = this.absolute(pathOrUrl, options.query);
    const res = await this.dispatch(method, url, options);
    const text = await res.text();
    const parsed = parseBody(text, res.headers);
    if (res.status >= 400) throw errorOf(res, parsed, text, method, url);
    return { data: (text === '' ? undefined : parsed) as T, status: res.status, headers: res.headers, url };
  }

  /** A multipart/form-data request (files read from their path or stream as they are sent). */
  upload<T>(method: Method, path: string, multipart: MultipartBody, options: Omit<RequestOptions, 'body' | 'multipart'> = {}): Promise<ApiResponse<T>> {
    return this.request<T>(method, path, { ...options, multipart });
  }

  /** Where a GET redirects to (the `Location` of its 3xx answer), without following it; null when it does not redirect. */
  async location(path: string, query?: QueryParams): Promise<string | null> {
    const res = await this.request<unknown>('GET', path, { query, redirect: 'manual' });
    return res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
  }

  /**
   * A download as a stream (archives and packages can be gigabytes): consume `body` once.
   * A GET or HEAD follows up to 5 redirects itself: the token goes to the API's origin only,
   * never to a redirect elsewhere (a signed storage URL). `size` is the Content-Length of
   * an unencoded body (fetch decodes a `Content-Encoding`, so it is null then).
   */
  async stream(method: Method, path: string, options: RequestOptions = {}): Promise<StreamResponse> {
    let url = this.absolute(path, options.query);
    const follow = !options.redirect && (method === 'GET' || method === 'HEAD');
    let res = await this.dispatch(method, url, follow ? { ...options, redirect: 'manual' } : options);
    const origin = new URL(url).origin;
    for (let hops = 0; follow && hops < 5 && res.status >= 300 && res.status < 400 && res.headers.get('location'); hops++) {
      await res.text().catch(() => '');
      url = new URL(res.headers.get('location')!, url).toString();
      const elsewhere = new URL(url).origin !== origin;
      res = await this.dispatch(method, url, { headers: options.headers, redirect: 'manual', signal: options.signal }, elsewhere);
    }
    if (res.status >= 400) {
      const text = await res.text();
      throw errorOf(res, parseBody(text, res.headers), text, method, url);
    }
    const length = res.headers.get('content-length');
    const encoded = !['', 'identity'].includes((res.headers.get('content-encoding') ?? '').trim().toLowerCase());
    return {
      body: await readableOf(res),
      status: res.status,
      headers: res.headers,
      url,
      size: length === null || !/^\d+$/.test(length) || encoded ? null : Number(length),
      contentType: res.headers.get('content-type'),
      filename: filenameOf(res.headers.get('content-disposition')),
    };
  }

  /** A download read into memory. */
  async bytes(method: Method, path: string, options: RequestOptions = {}): Promise<BytesResponse> {
    const res = await this.stream(method, path, options);
    const chunks: Buffer[] = [];
    for await (const chunk of res.body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return { data: Buffer.concat(chunks), status: res.status, headers: res.headers, contentType: res.contentType, filename: res.filename };
  }

  private absolute(pathOrUrl: string, query?: QueryParams): string {
    if (!/^https?:\/\//.test(pathOrUrl)) return this.url(pathOrUrl, query);
    const qs = query ? toQueryString(query) : '';
    return qs ? `${pathOrUrl}${pathOrUrl.includes('?') ? '&' : '?'}${qs}` : pathOrUrl;
  }

  /** Sends, and sends again on 429/503 as the class comment says; answers the last response unread. */
  private async dispatch(method: Method, url: string, options: RequestOptions, anonymous = false): Promise<FetchResponse> {
    const replayable = options.multipart ? isReplayable(options.multipart) : true;
    for (let attempt = 0; ; attempt++) {
      options.signal?.throwIfAborted();
      // `anonymous`: a redirect to another origin gets no credentials (token, job token, sudo).
      const headers = anonymous ? { Accept: '*/*', ...(this.headers['User-Agent'] ? { 'User-Agent': this.headers['User-Agent'] } : {}) } : this.headers;
      const init: FetchInit = { method, headers: { ...headers, ...options.headers } };
      if (options.multipart) {
        const encoded = await encodeMultipart(options.multipart);
        init.headers['Content-Type'] = encoded.contentType;
        if (encoded.length !== null) init.headers['Content-Length'] = String(encoded.length);
        init.body = encoded.body;
        init.duplex = 'half';
      } else if (options.raw) {
        init.headers['Content-Type'] = options.raw.contentType;
        init.body = options.raw.data;
      } else if (options.body !== undefined) {
        init.headers['Content-Type'] = 'application/json';
        init.body = JSON.stringify(options.body);
      }
      if (options.redirect) init.redirect = options.redirect;
      if (options.signal) init.signal = options.signal;
      const res = await this.fetch(url, init);
      if (RETRY_STATUSES.has(res.status) && replayable && attempt < this.retries) {
        const wait = retryDelay(attempt, res.headers.get('retry-after'), { base: this.retryDelayMs, max: this.maxRetryDelayMs });
        if (wait !== null) {
          await res.text().catch(() => '');
          await sleep(wait, options.signal);
          continue;
        }
      }
      return res;
    }
  }
}

function parseBody(text: string, headers: FetchResponse['headers']): unknown {
  const isJson = (headers.get('content-type') ?? '').includes('json');
  if (isJson && text !== '') {
    try {
      return JSON.parse(text);
    } catch {
      // a broken JSON body is reported as its text
    }
  }
  return text;
}

function errorOf(res: FetchResponse, parsed: unknown, text: string, method: string, url: string): ApiError {
  const body: ApiErrorBody = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ApiErrorBody) : text;
  return new ApiError(res.status, body, { method, url }, res.headers);
}

async function readableOf(res: FetchResponse): Promise<Readable> {
  const body = res.body;
  if (body instanceof Readable) return body;
  if (body && typeof (body as WebReadableStream).getReader === 'function') return Readable.fromWeb(body as WebReadableStream);
  if (typeof res.arrayBuffer === 'function') return Readable.from([Buffer.from(await res.arrayBuffer())]);
  return Readable.from([Buffer.from(await res.text())]);
}

/** Rack-style query string: arrays as `k[]=v`, hashes as `k[sub]=v`, dates as ISO-8601. */
export function toQueryString(params: QueryParams): string {
  const pairs: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) for (const v of value) add(`${key}[]`, v);
    else if (value instanceof Date) add(key, value.toISOString());
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v);
    else pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries(params)) add(key, value);
  return pairs.join('&');
}
