/**
 * Set-up for the job artifacts suites (server, client, real clients): zips built with yazl,
 * pipelines run through the runner API, archives uploaded as a runner does.
 */
import assert from 'node:assert/strict';
import yazl from 'yazl';
import type { ForgeletHttp } from '../support/server.js';
import { finishJob, multipart, requestJob } from './ci-support.js';
import { expectStatus } from './http.js';

export interface ZipItem {
  path: string;
  content?: string | Buffer;
  /** An explicit directory entry. */
  dir?: boolean;
  /** Deflate (default) or store. */
  compress?: boolean;
  mode?: number;
}

/** A zip of the items, in order (yazl: deflated unless `compress: false`). */
export async function buildZip(items: ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date('2024-01-01T00:00:00Z');
  for (const item of items) {
    if (item.dir) zip.addEmptyDirectory(item.path, { mtime, mode: item.mode });
    else zip.addBuffer(Buffer.from(item.content ?? ''), item.path, { mtime, compress: item.compress ?? true, mode: item.mode });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export interface RunningJob {
  id: number;
  token: string;
  name: string;
  pipelineId: number;
}

/** `POST /projects/:id/pipeline` on the ref; the pipeline id. */
export async function createPipeline(f: ForgeletHttp, token: string, projectId: number, ref: string): Promise<number> {
  const r = await f.api('POST', `/projects/${projectId}/pipeline`, { token, body: { ref } });
  expectStatus(r, 201);
  return r.body.id;
}

/** The runner takes the next pending job (there must be one). */
export async function takeJob(f: ForgeletHttp, runnerToken: string): Promise<RunningJob> {
  const payload = await requestJob(f, runnerToken);
  assert.ok(payload, 'the runner got no job');
  return { id: payload.id, token: payload.token, name: payload.job_info.name, pipelineId: payload.job_info.pipeline_id ?? 0 };
}

/** `POST /jobs/:id/artifacts` as the runner (multipart `file`, JOB-TOKEN). */
export async function uploadArchive(f: ForgeletHttp, job: { id: number; token: string }, zip: Buffer, fields: Record<string, string> = {}) {
  const body = multipart({ artifact_type: 'archive', artifact_format: 'zip', ...fields }, { filename: 'artifacts.zip', content: zip });
  return f.api('POST', `/jobs/${job.id}/artifacts`, { token: null, raw: body.body, headers: { 'Content-Type': body.contentType, 'JOB-TOKEN': job.token } });
}

/**
 * Runs a one-job pipeline on the ref through the runner API: the runner takes the job,
 * uploads `zip` (when given) and reports `outcome`. Returns the job and pipeline ids.
 */
export async function runPipeline(
  f: ForgeletHttp,
  token: string,
  runnerToken: string,
  projectId: number,
  ref: string,
  zip: Buffer | null,
  outcome: 'success' | 'failed' = 'success',
  fields: Record<string, string> = {},
): Promise<{ pipelineId: number; jobId: number }> {
  const pipelineId = await createPipeline(f, token, projectId, ref);
  const job = await takeJob(f, runnerToken);
  if (zip) expectStatus(await uploadArchive(f, job, zip, fields), 201);
  await finishJob(f, job, outcome);
  return { pipelineId, jobId: job.id };
}

/** The body of a GET as bytes. */
export async function bytesOf(f: ForgeletHttp, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(path.startsWith('http') ? path : `${f.url}/api/v4${path}`, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}
