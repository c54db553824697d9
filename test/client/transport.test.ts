/**
 * The requester with a fake fetch: retries on 429/503 (backoff, Retry-After, limits), typed
 * errors, multipart bodies streamed from disk, streamed downloads.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError, Forgelet, parseRetryAfter, retryDelay, traceLength, type FetchInit, type FetchLike, type FetchResponse } from '@forgelet/client';

interface Call {
  url: string;
  init: FetchInit;
  at: number;
  /** The body as sent (a multipart stream is read here). */
  body: Buffer | null;
  chunks: number;
}

type Answer = { status: number; body?: string; headers?: Record<string, string> };

/** Answers the scripted statuses in order (the last one repeats); records every call. */
function scripted(answers: Answer[]): { fetch: FetchLike; calls: Call[] } {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    let body: Buffer | null = null;
    let chunks = 0;
    if (typeof init.body === 'string' || init.body instanceof Uint8Array) body = Buffer.from(init.body);
    else if (init.body) {
      const parts: Buffer[] = [];
      for await (const c of init.body) {
        parts.push(Buffer.from(c));
        chunks++;
      }
      body = Buffer.concat(parts);
    }
    calls.push({ url, init, at: Date.now(), body, chunks });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    const text = a.body ?? (a.status < 300 ? '{"ok":true}' : JSON.stringify({ message: `${a.status} Error` }));
    const res: FetchResponse = {
      status: a.status,
      headers: new Headers({ 'content-type': a.body === undefined ? 'application/json' : 'text/plain', ...a.headers }),
      text: async () => text,
      body: Readable.toWeb(Readable.from([Buffer.from(text)])),
    };
    return res;
  };
  return { fetch, calls };
}

const client = (fetch: FetchLike, options: { retries?: number; retryDelayMs?: number; maxRetryDelayMs?: number } = {}) =>
  new Forgelet({ url: 'http://forge.test', token: 'glpat-x', fetch, retryDelayMs: 1, ...options });

async function failure(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail('expected an ApiError');
}

describe('client transport: retries', () => {
  it('503 and 429 are retried until an answer, for every method', async () => {
    const { fetch, calls } = scripted([{ status: 503 }, { status: 429, body: 'Retry later\n', headers: { 'Retry-After': '0' } }, { status: 201 }]);
    const created = await client(fetch).requester.post<{ ok: boolean }>('projects', { name: 'x' });
    assert.deepEqual(created, { ok: true });
    assert.deepEqual(calls.map((c) => [c.init.method, c.url, c.body?.toString()]), Array(3).fill(['POST', 'http://forge.test/api/v4/projects', '{"name":"x"}']));
  });

  it('gives up after `retries` (default 3: four calls) with the last error', async () => {
    const { fetch, calls } = scripted([{ status: 503 }]);
    const err = await failure(client(fetch).projects.show(1));
    assert.equal(calls.length, 4);
    assert.deepEqual([err.status, err.body, err.method, err.url, err.isRetryable, err.isNotFound], [503, { message: '503 Error' }, 'GET', 'http://forge.test/api/v4/projects/1', true, false]);
  });

  it('retries: 0 sends once; other statuses are never retried', async () => {
    const off = scripted([{ status: 429, body: 'Retry later\n', headers: { 'Retry-After': '1', 'RateLimit-Remaining': '0' } }]);
    const err = await failure(client(off.fetch, { retries: 0 }).projects.show(1));
    assert.equal(off.calls.length, 1);
    assert.deepEqual([err.status, err.body, err.message, err.headers?.get('ratelimit-remaining')], [429, 'Retry later\n', 'Retry later', '0']);
    for (const status of [400, 404, 500, 502]) {
      const other = scripted([{ status }]);
      assert.equal((await failure(client(other.fetch).projects.show(1))).status, status);
      assert.equal(other.calls.length, 1, `status ${status}`);
    }
  });

  it('waits the exponential backoff, or Retry-After when it is longer', async () => {
    const backoff = scripted([{ status: 503 }, { status: 503 }, { status: 200 }]);
    await client(backoff.fetch, { retryDelayMs: 40 }).projects.show(1);
    const gaps = [backoff.calls[1]!.at - backoff.calls[0]!.at, backoff.calls[2]!.at - backoff.calls[1]!.at];
    assert.ok(gaps[0]! >= 19 && gaps[0]! < 200, `first wait ${gaps[0]} in [20, 40]`);
    assert.ok(gaps[1]! >= 39 && gaps[1]! < 250, `second wait ${gaps[1]} in [40, 80]`);

    const asked = scripted([{ status: 429, body: 'Retry later\n', headers: { 'Retry-After': '1' } }, { status: 200 }]);
    await client(asked.fetch).projects.show(1);
    assert.ok(asked.calls[1]!.at - asked.calls[0]!.at >= 990, 'Retry-After: 1 is a second');
  });

  it('a Retry-After beyond maxRetryDelayMs is not waited for', async () => {
    const later = new Date(Date.now() + 120_000).toUTCString();
    const { fetch, calls } = scripted([{ status: 503, headers: { 'Retry-After': later } }]);
    const started = Date.now();
    const err = await failure(client(fetch, { maxRetryDelayMs: 60_000 }).projects.show(1));
    assert.deepEqual([err.status, calls.length], [503, 1]);
    assert.ok(Date.now() - started < 1000);
  });

  it('parses Retry-After as seconds or an HTTP date; the delay is jittered and capped', () => {
    const now = Date.parse('2024-06-15T12:00:00Z');
    assert.equal(parseRetryAfter('7', now), 7000);
    assert.equal(parseRetryAfter('Sat, 15 Jun 2024 12:00:30 GMT', now), 30_000);
    assert.equal(parseRetryAfter('Sat, 15 Jun 2024 11:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), null);
    assert.equal(parseRetryAfter(null, now), null);
    const opts = { base: 100, max: 1000, now };
    assert.deepEqual([0, 1, 2, 3, 4].map((a) => retryDelay(a, null, { ...opts, random: () => 0 })), [50, 100, 200, 400, 500]);
    assert.deepEqual([0, 1, 2, 3, 4].map((a) => retryDelay(a, null, { ...opts, random: () => 1 })), [100, 200, 400, 800, 1000]);
    assert.equal(retryDelay(0, '0', { ...opts, random: () => 0 }), 50);
    assert.equal(retryDelay(0, '1', { ...opts, random: () => 0 }), 1000);
    assert.equal(retryDelay(0, '2', { ...opts, random: () => 0 }), null);
    assert.equal(retryDelay(0, 'Sat, 15 Jun 2024 12:00:00 GMT', { ...opts, random: () => 1 }), 100);
  });
});

describe('client transport: uploads and downloads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-client-'));
  const big = Buffer.alloc(1024 * 1024 + 17, 7);
  const file = join(dir, 'My.Pkg.1.0.0.nupkg');
  writeFileSync(file, big);

  it('a multipart upload from a path is streamed with its length, and re-sent on a retry', async () => {
    const { fetch, calls } = scripted([{ status: 503 }, { status: 201 }]);
    await client(fetch).nugetFeed.uploadPackageFile(42, { path: file });
    assert.equal(calls.length, 2);
    for (const call of calls) {
      assert.deepEqual([call.init.method, call.url, call.init.duplex], ['PUT', 'http://forge.test/api/v4/projects/42/packages/nuget', 'half']);
      assert.ok(call.chunks > 2, `streamed in ${call.chunks} chunks`);
      const boundary = /boundary=(.+)$/.exec(call.init.headers['Content-Type']!)![1]!;
      assert.equal(Number(call.init.headers['Content-Length']), call.body!.length);
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="package"; filename="My.Pkg.1.0.0.nupkg"\r\nContent-Type: application/octet-stream\r\n\r\n`;
      assert.equal(call.body!.subarray(0, head.length).toString(), head);
      assert.deepEqual(call.body!.subarray(head.length, head.length + big.length), big);
      assert.equal(call.body!.subarray(head.length + big.length).toString(), `\r\n--${boundary}--\r\n`);
    }
  });

  it('an upload from a stream is sent once (it cannot be replayed) and without a length', async () => {
    const { fetch, calls } = scripted([{ status: 503 }, { status: 201 }]);
    const err = await failure(client(fetch).nugetFeed.uploadPackageFile(42, Readable.from([Buffer.from('abc')]), { filename: 'a.nupkg' }));
    assert.deepEqual([err.status, calls.length, calls[0]!.init.headers['Content-Length']], [503, 1, undefined]);
    assert.match(calls[0]!.body!.toString(), /filename="a\.nupkg"\r\nContent-Type: application\/octet-stream\r\n\r\nabc\r\n/);
  });

  it('fields come before files; a download streams with its headers; errors are ApiErrors', async () => {
    const { fetch, calls } = scripted([{ status: 201 }]);
    await client(fetch).runnerJobs.uploadArtifacts(5, 'glcbt-job', Buffer.from('zipbytes'), { expire_in: '1 week', artifact_format: 'zip' });
    assert.equal(calls[0]!.init.headers['JOB-TOKEN'], 'glcbt-job');
    const text = calls[0]!.body!.toString();
    assert.ok(text.indexOf('name="expire_in"\r\n\r\n1 week\r\n') < text.indexOf('name="file"; filename="artifacts.zip"'), text);

    const dl = scripted([{ status: 200, body: 'PK-bytes', headers: { 'Content-Disposition': 'attachment; filename="a b.zip"', 'Content-Length': '8' } }]);
    const res = await client(dl.fetch).jobArtifacts.streamArchive('g/p', 3);
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(Buffer.from(c));
    assert.deepEqual([Buffer.concat(chunks).toString(), res.size, res.filename, dl.calls[0]!.url], ['PK-bytes', 8, 'a b.zip', 'http://forge.test/api/v4/projects/g%2Fp/jobs/3/artifacts']);

    const byRef = scripted([{ status: 200, body: 'hi' }]);
    await client(byRef.fetch).jobArtifacts.streamFileByRef('g/p', 'release/1', 'dir/a b.txt', 'build', { searchRecentSuccessfulPipelines: true });
    await client(byRef.fetch).jobArtifacts.streamArchiveByRef(7, 'main', 'unit test');
    assert.deepEqual(byRef.calls.map((c) => [c.url, c.init.redirect]), [
      ['http://forge.test/api/v4/projects/g%2Fp/jobs/artifacts/release%2F1/raw/dir/a%20b.txt?job=build&search_recent_successful_pipelines=true', 'manual'],
      ['http://forge.test/api/v4/projects/7/jobs/artifacts/main/download?job=unit%20test', 'manual'],
    ]);

    const missing = scripted([{ status: 404 }]);
    const err = await failure(client(missing.fetch).nugetFeed.downloadPackageFile(1, 'A', '1.0.0', 'a.1.0.0.nupkg'));
    assert.deepEqual([err.status, err.isNotFound, ApiError.is(err, 404), ApiError.is(err, 403), ApiError.is(new Error('x'))], [404, true, true, false, false]);
  });

  it('upload progress per file (again on a retry) and the push answer', async () => {
    const { fetch } = scripted([{ status: 503 }, { status: 201, body: '{"message":"201 Created"}', headers: { 'content-type': 'application/json' } }]);
    const seen: [number, number | null][] = [];
    const answer = await client(fetch).nugetFeed.uploadPackageFile(42, { path: file }, { onProgress: (sent, total) => seen.push([sent, total]) });
    assert.deepEqual(answer, { status: 201, message: '201 Created' });
    assert.ok(seen.length > 4, `${seen.length} progress calls`);
    assert.ok(seen.every(([sent, total]) => total === big.length && sent > 0));
    assert.equal(seen.filter(([sent], i) => i > 0 && sent <= seen[i - 1]![0]).length, 1, 'growing, starting over once (the retry)');
    assert.equal(seen.filter(([sent]) => sent === big.length).length, 2, 'the whole file, once per attempt');

    const symbols = scripted([{ status: 201, body: '' }]);
    const streamed: [number, number | null][] = [];
    const noMessage = await client(symbols.fetch).nugetFeed.uploadSymbolPackage(42, Readable.from([Buffer.from('ab'), Buffer.from('cde')]), { onProgress: (s, t) => streamed.push([s, t]) });
    assert.deepEqual([noMessage, streamed, symbols.calls[0]!.url], [{ status: 201, message: null }, [[2, null], [5, null]], 'http://forge.test/api/v4/projects/42/packages/nuget/symbolpackage']);
  });

  it('a download follows redirects itself: the token only to the API origin; size is null for an encoded body', async () => {
    const { fetch, calls } = scripted([
      { status: 302, headers: { location: '/api/v4/projects/1/jobs/2/artifacts/moved' } },
      { status: 307, headers: { location: 'https://storage.test/signed?sig=1' } },
      { status: 200, body: 'PK', headers: { 'content-length': '2' } },
    ]);
    const res = await new Forgelet({ url: 'http://forge.test', token: 'glpat-x', sudo: 'alice', fetch }).requester.stream('GET', 'projects/1/jobs/2/artifacts');
    assert.deepEqual([res.size, res.status], [2, 200]);
    assert.deepEqual(calls.map((c) => [c.url, c.init.redirect, c.init.headers['PRIVATE-TOKEN'], c.init.headers.Sudo]), [
      ['http://forge.test/api/v4/projects/1/jobs/2/artifacts', 'manual', 'glpat-x', 'alice'],
      ['http://forge.test/api/v4/projects/1/jobs/2/artifacts/moved', 'manual', 'glpat-x', 'alice'],
      ['https://storage.test/signed?sig=1', 'manual', undefined, undefined],
    ]);

    const loop = scripted([{ status: 302, headers: { location: '/again' } }]);
    const stuck = await client(loop.fetch).requester.stream('GET', 'projects/1/jobs/2/artifacts');
    assert.deepEqual([stuck.status, loop.calls.length], [302, 6], 'five redirects at most');

    const gz = scripted([{ status: 200, body: 'x', headers: { 'content-encoding': 'gzip', 'content-length': '20' } }]);
    assert.equal((await client(gz.fetch).jobArtifacts.streamArchive(1, 2)).size, null);
  });
});

describe('client transport: the runner protocol', () => {
  const runnerClient = (fetch: FetchLike) => new Forgelet({ url: 'http://forge.test', fetch, userAgent: 'forgelet-runner 1.2.3 (linux/x64)', retries: 0 });

  it('jobs/request: the job and the X-GitLab-Last-Update cursor; 204 and 409 are no job', async () => {
    const job = { id: 5, token: 'glcbt-5' };
    const { fetch, calls } = scripted([
      { status: 201, body: JSON.stringify(job), headers: { 'content-type': 'application/json' } },
      { status: 204, body: '', headers: { 'X-GitLab-Last-Update': 'cursor-2' } },
      { status: 409, headers: { 'X-GitLab-Last-Update': 'cursor-3' } },
    ]);
    const api = runnerClient(fetch);
    assert.deepEqual(await api.runnerJobs.poll({ token: 'glrt-r', system_id: 's_1' }), { job, lastUpdate: null });
    assert.deepEqual(await api.runnerJobs.poll({ token: 'glrt-r', last_update: 'cursor-1' }), { job: null, lastUpdate: 'cursor-2' });
    assert.equal(await api.runnerJobs.request({ token: 'glrt-r' }), null);
    assert.deepEqual(JSON.parse(calls[1]!.body!.toString()), { token: 'glrt-r', last_update: 'cursor-1' });
    assert.deepEqual(calls.map((c) => [c.init.headers['User-Agent'], c.init.headers['PRIVATE-TOKEN']]), Array(3).fill(['forgelet-runner 1.2.3 (linux/x64)', undefined]));
  });

  it('a trace PATCH sends Content-Range as gitlab-runner does and reads Range, Job-Status and the update interval', async () => {
    const { fetch, calls } = scripted([
      { status: 202, body: '', headers: { Range: '0-17', 'Job-Status': 'canceling', 'X-GitLab-Trace-Update-Interval': '30' } },
      { status: 416, headers: { Range: '0-12' } },
    ]);
    const api = runnerClient(fetch);
    assert.deepEqual(await api.runnerJobs.appendTrace(5, 'glcbt-5', 'hello', 12), { status: 202, size: 17, jobStatus: 'canceling', updateInterval: 30 });
    assert.deepEqual([calls[0]!.init.method, calls[0]!.init.headers['Content-Range'], calls[0]!.init.headers['JOB-TOKEN'], calls[0]!.init.headers['Content-Type']], ['PATCH', '12-17', 'glcbt-5', 'text/plain']);
    const behind = await failure(api.runnerJobs.appendTrace(5, 'glcbt-5', Buffer.from('x'), 20));
    assert.deepEqual([behind.status, traceLength(behind.headers?.get('range'))], [416, 12]);
  });

  it('a job update sends the token in the body and the header, and answers 200 or 202 with Job-Status', async () => {
    const { fetch, calls } = scripted([
      { status: 202, body: '202', headers: { 'X-GitLab-Trace-Update-Interval': '3' } },
      { status: 200, body: '200', headers: { 'Job-Status': 'running' } },
      { status: 403, headers: { 'Job-Status': 'canceled' } },
    ]);
    const api = runnerClient(fetch);
    assert.deepEqual(await api.runnerJobs.update(5, 'glcbt-5', { state: 'success', checksum: 'crc32:0' }), { status: 202, jobStatus: null, updateInterval: 3 });
    assert.deepEqual(await api.runnerJobs.update(5, 'glcbt-5', { state: 'running' }), { status: 200, jobStatus: 'running', updateInterval: null });
    const gone = await failure(api.runnerJobs.update(5, 'glcbt-5', { state: 'running' }));
    assert.deepEqual([gone.status, gone.headers?.get('job-status')], [403, 'canceled']);
    assert.deepEqual(JSON.parse(calls[0]!.body!.toString()), { token: 'glcbt-5', state: 'success', checksum: 'crc32:0' });
    assert.equal(calls[0]!.init.headers['JOB-TOKEN'], 'glcbt-5');
  });

  it('an artifact upload streams from disk with its length; type, format and expiry in the query and the form', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-runner-upload-'));
    const file = join(dir, 'artifact-archive.zip');
    const bytes = Buffer.alloc(200_000, 7);
    writeFileSync(file, bytes);
    const { fetch, calls } = scripted([{ status: 201, body: '201' }]);
    await runnerClient(fetch).runnerJobs.uploadArtifacts(5, 'glcbt-5', { path: file }, { artifact_type: 'archive', artifact_format: 'zip', expire_in: '1 week', filename: 'build output.zip' });
    const call = calls[0]!;
    assert.equal(call.url, 'http://forge.test/api/v4/jobs/5/artifacts?artifact_type=archive&artifact_format=zip&expire_in=1%20week');
    assert.ok(call.chunks > 2, `streamed in ${call.chunks} chunks`);
    assert.equal(Number(call.init.headers['Content-Length']), call.body!.length);
    const text = call.body!.toString('latin1');
    const fields = [...text.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(fields, [['artifact_type', 'archive'], ['artifact_format', 'zip'], ['expire_in', '1 week']]);
    assert.match(text, /name="file"; filename="build output\.zip"\r\nContent-Type: application\/octet-stream\r\n\r\n/);
    assert.ok(call.body!.includes(bytes));
  });

  it('a signal aborts a request, and a wait before a retry', async () => {
    const hanging: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(init.signal!.reason), { once: true }));
    const stop = new AbortController();
    const pending = runnerClient(hanging).runnerJobs.poll({ token: 'glrt-r' }, { signal: stop.signal });
    stop.abort();
    await assert.rejects(pending, { name: 'AbortError' });

    const { fetch, calls } = scripted([{ status: 503, headers: { 'Retry-After': '30' } }]);
    const later = new AbortController();
    const waiting = new Forgelet({ url: 'http://forge.test', fetch, maxRetryDelayMs: 60_000 }).runnerJobs.request({ token: 'glrt-r' }, { signal: later.signal });
    setTimeout(() => later.abort(), 20);
    const started = Date.now();
    await assert.rejects(waiting, { name: 'AbortError' });
    assert.ok(Date.now() - started < 5_000);
    assert.equal(calls.length, 1);
  });
});
