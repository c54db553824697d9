/**
 * A tiny REST helper for the admin commands until they move to @forgelet/client: one
 * server URL and token, path parameters encoded by `endpoint`, GitLab's error bodies turned
 * into the server's message.
 */
import { CliError, UsageError } from './errors.js';

export interface RemoteFlags {
  url?: string;
  token?: string;
}

export interface Remote {
  url: string;
  token: string;
}

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export function resolveRemote(flags: RemoteFlags, env: NodeJS.ProcessEnv): Remote {
  const url = (flags.url ?? (env.FORGELET_URL || DEFAULT_URL)).replace(/\/+$/, '');
  const token = flags.token ?? env.FORGELET_TOKEN;
  if (!token) throw new UsageError('an admin token is needed: pass --token or set FORGELET_TOKEN');
  if (!/^https?:\/\/[^/]/.test(url)) throw new UsageError(`--url (FORGELET_URL) must be an http:// or https:// URL, got "${url}"`);
  return { url, token };
}

/** A path with every interpolated value URL-encoded: endpoint`/users/${id}`. */
export function endpoint(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((path, part, i) => path + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/** The server answered with an error status; the message is the server's. */
export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(messageOf(status, body));
    this.name = 'ApiError';
  }
}

function messageOf(status: number, body: unknown): string {
  const b = (body ?? {}) as Record<string, unknown>;
  const raw = typeof body === 'string' ? body : (b.message ?? b.error_description ?? b.error ?? '');
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (!text) return `${status} (no message)`;
  return text.startsWith(String(status)) ? text : `${status} ${text}`;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RemoteResponse<T> {
  body: T;
  headers: Headers;
}

export async function request<T>(remote: Remote, method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<RemoteResponse<T>> {
  const url = new URL(`${remote.url}/api/v4${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { 'PRIVATE-TOKEN': remote.token, Accept: 'application/json' };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(`cannot reach Forgelet at ${remote.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown = text;
  if (text && (res.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
  }
  if (!res.ok) throw new ApiError(res.status, body);
  return { body: body as T, headers: res.headers };
}

/** Every page of a list (follows X-Next-Page). */
export async function requestAll<T>(remote: Remote, path: string, query: Query = {}): Promise<T[]> {
  const all: T[] = [];
  for (let page: string | null = '1'; page; ) {
    const res: RemoteResponse<T[]> = await request<T[]>(remote, 'GET', path, { query: { ...query, per_page: 100, page } });
    all.push(...res.body);
    page = res.headers.get('x-next-page') || null;
  }
  return all;
}
