/** The transport: auth headers, query strings, JSON bodies, errors. One instance per client. */
import { fetch as undiciFetch } from 'undici';
import { ApiError, type ApiErrorBody } from './api-error.js';

/** The part of a fetch Response the client reads (undici's and the global fetch both fit). */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
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
  fetch?: FetchLike;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** Query params: values are scalars, arrays (`k[]=v`), dates or hashes (`k[sub]=v`). */
export type QueryParams = object;

export interface ApiResponse<T> {
  data: T;
  status: number;
  headers: FetchResponse['headers'];
  /** The URL that was requested. */
  url: string;
}

export class Requester {
  readonly apiUrl: string;
  private readonly headers: Record<string, string>;
  private readonly fetch: FetchLike;

  constructor(options: RequesterOptions) {
    this.apiUrl = `${options.url.replace(/\/+$/, '').replace(/\/api\/v4$/, '')}/api/v4`;
    this.headers = { Accept: 'application/json' };
    if (options.token) this.headers['PRIVATE-TOKEN'] = options.token;
    if (options.jobToken) this.headers['JOB-TOKEN'] = options.jobToken;
    if (options.sudo !== undefined && options.sudo !== '') this.headers.Sudo = String(options.sudo);
    this.fetch = options.fetch ?? undiciFetch;
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

  /** DELETE, sent without a body. */
  async delete(path: string): Promise<void> {
    await this.send('DELETE', this.url(path));
  }

  /** Sends one request to an absolute URL (a `Link` URL is used as given). */
  async send<T>(method: Method, url: string, body?: object): Promise<ApiResponse<T>> {
    const init: FetchInit = { method, headers: { ...this.headers } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await this.fetch(url, init);
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    let parsed: unknown = text;
    if (isJson && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        // a broken JSON body is reported as its text
      }
    }
    if (res.status >= 400) {
      const errorBody: ApiErrorBody = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as ApiErrorBody) : text;
      throw new ApiError(res.status, errorBody, { method, url });
    }
    return { data: (text === '' ? undefined : parsed) as T, status: res.status, headers: res.headers, url };
  }
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
