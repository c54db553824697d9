/** Shared set-up for the CI suites: CI files committed through core, zips, multipart bodies, a runner. */
import assert from 'node:assert/strict';
import yazl from 'yazl';
import type { ServedForgelet } from '../support/served.js';
import type { ForgeletHttp, TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { expectStatus } from './http.js';

export async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [path, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), path, { mtime: new Date('2024-01-01T00:00:00Z') });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A multipart/form-data body with text fields and one file part named `file`. */
export function multipart(fields: Record<string, string>, file: { name?: string; filename: string; content: Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----ci-test-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file.content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Commits the CI file (and extra files) on the branch. */
export async function commitCi(f: TestForgelet | ServedForgelet, projectId: number, yaml: string, options: { branch?: string; files?: Record<string, string>; startBranch?: string } = {}): Promise<string> {
  return commitFiles(f, projectId, options.branch ?? 'main', { '.gitlab-ci.yml': yaml, ...options.files }, { startBranch: options.startBranch });
}

/** Creates a project runner through `POST /user/runners`; returns its id and token. */
export async function createRunner(f: ForgeletHttp, token: string, body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const r = await f.api('POST', '/user/runners', { token, body });
  expectStatus(r, 201);
  return r.body;
}

/** `POST /jobs/request` as the runner: the job payload, or null on 204. */
export async function requestJob(f: ForgeletHttp, runnerToken: string): Promise<any | null> {
  const r = await f.api('POST', '/jobs/request', { token: null, body: { token: runnerToken, info: { name: 'test-runner', version: '17.0.0' } } });
  if (r.status === 204) return null;
  expectStatus(r, 201);
  return r.body;
}

export async function finishJob(f: ForgeletHttp, job: { id: number; token: string }, state: 'success' | 'failed', extra: Record<string, unknown> = {}): Promise<void> {
  const r = await f.api('PUT', `/jobs/${job.id}`, { token: null, body: { token: job.token, state, ...extra } });
  expectStatus(r, 200);
  assert.equal(r.text, '200');
}

export async function patchTrace(f: ForgeletHttp, job: { id: number; token: string }, start: number, text: string) {
  const bytes = Buffer.from(text);
  return f.api('PATCH', `/jobs/${job.id}/trace`, {
    token: null,
    raw: bytes,
    headers: { 'JOB-TOKEN': job.token, 'Content-Range': `${start}-${start + bytes.length}`, 'Content-Type': 'text/plain' },
  });
}

/** Statuses of a pipeline's jobs by name. */
export async function jobStatuses(f: ForgeletHttp, projectId: number, pipelineId: number): Promise<Record<string, string>> {
  const r = await f.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?per_page=100`);
  expectStatus(r, 200);
  return Object.fromEntries((r.body as any[]).map((j) => [j.name, j.status]).sort(([a], [b]) => a.localeCompare(b)));
}
