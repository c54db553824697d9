/**
 * One Forgelet per test file and dialect: an in-process server on port 0 over a fresh
 * database, a root token, and small helpers for raw HTTP calls.
 */
import { startForgelet, type RunningForgelet, type StartOptions } from '@forgelet/server';
import { createTestDatabaseUrl, type Dialect } from './databases.js';
import { createMigratedTestDatabase } from './pg-template.js';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Raw body (sent as is, with the given headers). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestForgelet extends RunningForgelet {
  dialect: Dialect;
  rootToken: string;
  /** Calls `/api/v4<path>` (or an absolute URL) as root unless another token (or null) is given. */
  api<T = any>(method: string, path: string, options?: CallOptions): Promise<ApiResponse<T>>;
  /** Creates a user and a personal access token for them (`api` scope unless given). */
  createUser(username: string, options?: { admin?: boolean; scopes?: string[] }): Promise<{ id: number; username: string; token: string }>;
}

/**
 * What a test that speaks only HTTP needs: an in-process server (startTestServer) or the
 * served binary (served.ts startServed) both fit.
 */
export type ForgeletHttp = Pick<TestForgelet, 'url' | 'rootToken' | 'api' | 'createUser'>;

export async function startTestServer(dialect: Dialect, options: StartOptions = {}): Promise<TestForgelet> {
  const database = dialect === 'postgres' ? await createMigratedTestDatabase() : await createTestDatabaseUrl(dialect);
  // The test's client shares this process's event loop with the server: a long synchronous write
  // (a 1,000-file commit on a busy machine) delays the server's keep-alive timer and the client's
  // idle accounting alike, and a pooled connection the server closes on waking resets the next
  // POST. A keep-alive longer than any test keeps that race out; the served binary keeps the 5 s.
  const running = await startForgelet({
    databaseUrl: database.url,
    allowLocalEgress: true,
    ...options,
    connections: { keepAliveTimeoutMs: 120_000, ...options.connections },
  });
  const rootToken = running.rootToken!;
  const api = async <T>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    const token = opts.token === undefined ? rootToken : opts.token;
    if (token) headers['PRIVATE-TOKEN'] = token;
    let body: string | Uint8Array | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const url = path.startsWith('http') ? path : `${running.url}/api/v4${path}`;
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return {
    ...running,
    dialect,
    rootToken,
    api,
    async createUser(username, opts = {}) {
      const user = await api<any>('POST', '/users', { body: { username, name: username, email: `${username}@example.com`, admin: opts.admin ?? false } });
      if (user.status !== 201) throw new Error(`createUser ${username}: ${user.status} ${user.text}`);
      const pat = await api<any>('POST', `/users/${user.body.id}/personal_access_tokens`, { body: { name: 'test', scopes: opts.scopes ?? ['api'] } });
      if (pat.status !== 201) throw new Error(`token for ${username}: ${pat.status} ${pat.text}`);
      return { id: user.body.id, username, token: pat.body.token };
    },
    async stop() {
      await running.stop();
      await database.drop();
    },
  };
}
