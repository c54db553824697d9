/**
 * Raw HTTP for the server tests: exact control over headers and body framing (no body vs
 * `Content-Length: 0`, chunked, gzip), which fetch does not give. Plus small helpers that
 * keep the tests readable.
 */
import assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders } from 'node:http';
import type { ApiResponse, ForgeletHttp, TestForgelet } from '../support/server.js';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
}

export interface RawOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in chunks with `Transfer-Encoding: chunked` (no Content-Length). */
  chunked?: boolean;
  /** The client's address (e.g. another loopback address, 127.0.0.2). */
  localAddress?: string;
}

/** One request to `base + path` (path is sent verbatim, encoded as given). */
export function rawRequest(base: string, method: string, path: string, options: RawOptions = {}): Promise<RawResponse> {
  const url = new URL(base);
  const headers: Record<string, string> = { ...options.headers };
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  if (body && !options.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) {
    headers['Content-Length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const req = request({ host, port: url.port, method, path, headers, localAddress: options.localAddress }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if ((res.headers['content-type'] ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
      });
      res.on('error', reject);
    });
    // The server may answer (413) before it has read the whole body; that is not a failure.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (body && options.chunked) {
      for (let i = 0; i < body.length; i += 64) req.write(body.subarray(i, i + 64));
      req.end();
    } else req.end(body);
  });
}

/** Asserts the status, showing the body when it differs. */
export function expectStatus<T>(r: ApiResponse<T> | RawResponse, status: number): void {
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
}

/** `X-Total` of a list endpoint, read as root. */
export async function totalOf(f: ForgeletHttp, path: string): Promise<number> {
  const r = await f.api('GET', `${path}${path.includes('?') ? '&' : '?'}per_page=1`);
  expectStatus(r, 200);
  const total = r.headers.get('x-total');
  assert.ok(total !== null, `no X-Total on ${path}`);
  return Number(total);
}

/** Counts of everything the accounts domain writes, as root sees them through the API. */
export async function snapshotCounts(f: ForgeletHttp): Promise<Record<string, number>> {
  const [users, groups, projects, tokens] = await Promise.all([
    totalOf(f, '/users'),
    totalOf(f, '/groups?all_available=true'),
    totalOf(f, '/projects'),
    totalOf(f, '/personal_access_tokens'),
  ]);
  return { users, groups, projects, tokens };
}

let seq = 0;
/** A unique, path-safe suffix (servers are shared by all tests of a file). */
export function uniq(prefix: string): string {
  seq += 1;
  return `${prefix}${seq}${Math.random().toString(36).slice(2, 6)}`;
}

/** Creates users one after another, so their ids follow the given order. */
export async function createUsers(f: ForgeletHttp, names: string[]): Promise<{ id: number; username: string; token: string }[]> {
  const out = [];
  for (const name of names) out.push(await f.createUser(name));
  return out;
}

export async function createGroup(f: ForgeletHttp, token: string | null, body: Record<string, unknown>): Promise<any> {
  const r = await f.api('POST', '/groups', { token, body });
  expectStatus(r, 201);
  return r.body;
}

export async function createProject(f: ForgeletHttp, token: string | null, body: Record<string, unknown>): Promise<any> {
  const r = await f.api('POST', '/projects', { token, body });
  expectStatus(r, 201);
  return r.body;
}

export async function addMember(f: ForgeletHttp, kind: 'projects' | 'groups', id: number | string, userId: number, level: number): Promise<any> {
  const r = await f.api('POST', `/${kind}/${encodeURIComponent(String(id))}/members`, { body: { user_id: userId, access_level: level } });
  expectStatus(r, 201);
  return r.body;
}

/**
 * Re-protects a branch so Developers may merge into it (pushes stay Maintainers'): GitLab's
 * "Allowed to merge: Developers + Maintainers", which suites that merge as Developers need
 * once the default branch carries its default protection.
 */
export async function allowDevelopersToMerge(f: ForgeletHttp, projectId: number, branch = 'main'): Promise<void> {
  const base = `/projects/${projectId}/protected_branches`;
  const del = await f.api('DELETE', `${base}/${encodeURIComponent(branch)}`);
  if (del.status !== 204 && del.status !== 404) expectStatus(del, 204);
  expectStatus(await f.api('POST', base, { body: { name: branch, push_access_level: 40, merge_access_level: 30 } }), 201);
}

/**
 * An open issue and merge request with the given iid, written straight to the tables: suites
 * that test what reads them (reactions, state events) start from rows with no history, which
 * the issue and MR APIs would not give (they record events, notes, labels).
 */
export async function insertIssueAndMergeRequest(
  f: TestForgelet,
  projectId: number,
  authorId: number,
  iid: number,
): Promise<{ issue: number; mr: number }> {
  const db = f.forge.database.db;
  const now = new Date().toISOString();
  const stamps = { created_at: now, updated_at: now };
  const issue = await db
    .insertInto('issues')
    .values({ project_id: projectId, iid, title: `Issue ${iid}`, description: null, state: 'opened', author_id: authorId, ...stamps })
    .returning('id')
    .executeTakeFirstOrThrow();
  const mr = await db
    .insertInto('merge_requests')
    .values({
      project_id: projectId, iid, title: `MR ${iid}`, description: null, state: 'opened', source_branch: `feature-${iid}`, target_branch: 'main',
      source_project_id: projectId, author_id: authorId, sha: 'a'.repeat(40), ...stamps,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { issue: issue.id, mr: mr.id };
}
