/**
 * The `artifacts` case: a 2 GB job artifacts archive (BENCH_ARTIFACT_MB) generated while it
 * is uploaded — yazl, store-only entries, zip64 records — through the runner API into a
 * Forgelet child (bench/artifacts-child.mjs, the built packages when present). A second child
 * on the same data, left idle first, then serves the reads a user makes of it: the tree (first
 * page, every page recursively, one directory), small files, and the 1 GB file by job and by
 * ref, each streamed to the end. Its RSS is sampled every 20 ms during the reads and its peak
 * (VmHWM, reset through /proc/<pid>/clear_refs just before) read at the end: the budget is
 * 100 MB. The uploading process's RSS, the archive download's and both children's
 * process.memoryUsage() are reported alongside.
 */
import { existsSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { BENCH_DIR, memoryOf, ROOT, sleep, spawnLines, stopChild, tsxArgs, type LineChild, type Mem } from './proc.js';

export interface ArtifactsOptions {
  work: string;
  databaseUrl?: string;
  /** `--blob-url` of the server children (default: the data directory's folder). */
  blobUrl?: string;
  rootToken: string;
  /** Archive size in MiB (default 2048): 1024 files of 1 MiB plus one large file holding the rest. */
  sizeMb: number;
  /** Idle seconds of the reading process before the reads (V8's memory reducer needs some). */
  settleSeconds: number;
}

export interface ReadTiming {
  name: string;
  ms: number;
  bytes: number;
}

export interface ArtifactsResult {
  dialect: string;
  sources: boolean;
  archiveBytes: number;
  entries: number;
  uploadMs: number;
  /** The upload process: RSS peak while receiving, RSS after, process.memoryUsage() after. */
  uploadPeak: Mem | null;
  afterUpload: Mem | null;
  uploadMemoryUsage: string;
  /** The reading process, after its idle settle. */
  beforeReads: Mem | null;
  reads: ReadTiming[];
  /** Highest RSS sampled during the reads, and the kernel's peak since the reset (when the reset worked). */
  readsSampledPeakMb: number;
  readsHwmMb: number | null;
  archiveDownload: ReadTiming & { sampledPeakMb: number };
  memoryUsage: string;
  errors: string[];
}

const MiB = 1 << 20;
const SMALL_DIRS = 32;
const SMALL_FILES = 32;
const README = 'A 2 GB artifacts archive for the benchmark.\n';

/** A block of bytes that is not all zeros (a pattern the reads can check). */
function block(): Buffer {
  const b = Buffer.alloc(MiB);
  for (let i = 0; i < b.length; i++) b[i] = (i * 31 + 7) & 0xff;
  return b;
}

/** The archive, generated as it is read: store-only, zip64 everywhere. */
function archiveStream(sizeMb: number): { stream: Readable; bigBytes: number } {
  const zip = new yazl.ZipFile();
  const data = block();
  const options = { compress: false, forceZip64Format: true, mtime: new Date('2024-01-01T00:00:00Z') };
  zip.addBuffer(Buffer.from(README), 'docs/readme.txt', options);
  for (let d = 0; d < SMALL_DIRS; d++) {
    for (let f = 0; f < SMALL_FILES; f++) zip.addBuffer(data, `data/d${String(d).padStart(2, '0')}/f${String(f).padStart(2, '0')}.bin`, options);
  }
  const bigMb = Math.max(1, sizeMb - SMALL_DIRS * SMALL_FILES);
  async function* big() {
    for (let i = 0; i < bigMb; i++) yield data;
  }
  zip.addReadStream(Readable.from(big()), 'big/blob.bin', { ...options, size: bigMb * MiB });
  zip.end({ forceZip64Format: true, comment: '' });
  return { stream: zip.outputStream as unknown as Readable, bigBytes: bigMb * MiB };
}

/** The runner API's artifacts upload body (multipart: type, format, the archive as yazl writes it). */
export function artifactsUploadBody(sizeMb: number): { contentType: string; body: Readable; bigBytes: number; archiveBytes: () => number } {
  const boundary = `----forgelet-bench-${Date.now()}`;
  const field = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    `${field('artifact_type', 'archive')}${field('artifact_format', 'zip')}` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="artifacts.zip"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const archive = archiveStream(sizeMb);
  let archiveBytes = 0;
  async function* body() {
    yield head;
    for await (const chunk of archive.stream) {
      archiveBytes += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Readable.from(body()), bigBytes: archive.bigBytes, archiveBytes: () => archiveBytes };
}

function request(url: string, init: { method: string; headers?: Record<string, string> }, body?: Readable): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method, headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body) pipeline(body, req).catch(reject);
    else req.end();
  });
}

/** A GET read to the end without keeping it: the byte count, the first bytes and the time. */
function drain(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; head: Buffer; ms: number; contentType: string | undefined }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let bytes = 0;
        const head: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (bytes < 64) head.push(c.subarray(0, 64 - bytes));
          bytes += c.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head: Buffer.concat(head), ms: performance.now() - t0, contentType: res.headers['content-type'] }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** RSS of a process sampled every `everyMs` while `work` runs; the highest sample in MB. */
async function sampled<T>(pid: number, work: () => Promise<T>, everyMs = 20): Promise<{ value: T; peakMb: number }> {
  let peak = memoryOf(pid)?.rssMb ?? 0;
  const timer = setInterval(() => {
    const m = memoryOf(pid);
    if (m && m.rssMb > peak) peak = m.rssMb;
  }, everyMs);
  try {
    const value = await work();
    const m = memoryOf(pid);
    if (m && m.rssMb > peak) peak = m.rssMb;
    return { value, peakMb: peak };
  } finally {
    clearInterval(timer);
  }
}

/** Resets VmHWM of a process (Linux: `5` into clear_refs); false when not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

type Ready = { url: string; pid: number; projectId: number; runnerToken: string; dialect: string; sources: boolean };

/** A Forgelet child (the built packages with plain node when they exist, else the sources under tsx). */
async function startChild(config: Record<string, unknown>) {
  const built = existsSync(join(ROOT, 'packages', 'server', 'dist', 'index.js')) && existsSync(join(ROOT, 'packages', 'core', 'dist', 'index.js'));
  const script = join(BENCH_DIR, 'artifacts-child.mjs');
  const child = spawnLines(process.execPath, built ? [script, JSON.stringify(config)] : tsxArgs(script).concat(JSON.stringify(config)));
  try {
    const ready = JSON.parse(await child.waitLine('READY ', 120_000)) as Ready;
    return { child, ready };
  } catch (err) {
    await stopChild(child.child);
    throw err;
  }
}

/** The child's process.memoryUsage() (MB), as JSON text. */
async function memLine(child: LineChild): Promise<string> {
  child.send('mem');
  return child.waitLine('MEM ', 10_000).catch(() => 'n/a');
}

async function stopLine(child: LineChild): Promise<void> {
  if (child.child.exitCode !== null) return;
  child.send('stop');
  await child.waitLine('never', 60_000).catch(() => {});
  if (child.child.exitCode === null) await stopChild(child.child);
}

/**
 * Upload in one server process; the reads in a second one started on the same data and left
 * idle `settleSeconds` first (what the upload left in the first process' heap and malloc
 * arenas is not what the reads cost).
 */
export async function runArtifacts(opts: ArtifactsOptions): Promise<ArtifactsResult> {
  const base = { dataDir: join(opts.work, 'artifacts'), databaseUrl: opts.databaseUrl, blobUrl: opts.blobUrl, rootToken: opts.rootToken };
  const errors: string[] = [];
  const auth = { 'PRIVATE-TOKEN': opts.rootToken };
  const json = { ...auth, 'Content-Type': 'application/json' };

  // 1. The upload.
  const first = await startChild(base);
  let ready = first.ready;
  let api = `${ready.url}/api/v4`;
  let job: { id: number; token: string };
  let archiveBytes = 0;
  let bigBytes = 0;
  let uploadMs = 0;
  let uploadPeak: Mem | null = null;
  let afterUpload: Mem | null = null;
  let uploadMemoryUsage = 'n/a';
  try {
    const pipeline = await request(`${api}/projects/${ready.projectId}/pipeline`, { method: 'POST', headers: json }, Readable.from([JSON.stringify({ ref: 'main' })]));
    if (pipeline.status !== 201) throw new Error(`POST pipeline: ${pipeline.status} ${pipeline.text}`);
    const taken = await request(`${api}/jobs/request`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, Readable.from([JSON.stringify({ token: ready.runnerToken })]));
    if (taken.status !== 201) throw new Error(`POST /jobs/request: ${taken.status} ${taken.text}`);
    job = JSON.parse(taken.text) as { id: number; token: string };

    const uploadBody = artifactsUploadBody(opts.sizeMb);
    bigBytes = uploadBody.bigBytes;
    const t0 = performance.now();
    const upload = await sampled(
      ready.pid,
      () => request(`${api}/jobs/${job.id}/artifacts`, { method: 'POST', headers: { 'Content-Type': uploadBody.contentType, 'JOB-TOKEN': job.token } }, uploadBody.body),
      100,
    );
    uploadMs = performance.now() - t0;
    archiveBytes = uploadBody.archiveBytes();
    if (upload.value.status !== 201) throw new Error(`upload: ${upload.value.status} ${upload.value.text}`);
    const m = memoryOf(ready.pid);
    uploadPeak = m ? { rssMb: Math.max(m.rssMb, upload.peakMb), hwmMb: m.hwmMb } : null;
    const done = await request(`${api}/jobs/${job.id}`, { method: 'PUT', headers: { 'Content-Type': 'application/json' } }, Readable.from([JSON.stringify({ token: job.token, state: 'success' })]));
    if (done.status !== 200) throw new Error(`PUT job: ${done.status} ${done.text}`);
    afterUpload = memoryOf(ready.pid);
    uploadMemoryUsage = await memLine(first.child);
  } finally {
    await stopLine(first.child);
  }

  // 2. The reads, in a fresh process.
  const second = await startChild({ ...base, reuse: { projectId: ready.projectId, runnerToken: ready.runnerToken } });
  ready = second.ready;
  api = `${ready.url}/api/v4`;
  try {
    await sleep(opts.settleSeconds * 1000);
    const beforeReads = memoryOf(ready.pid);
    const reset = resetPeak(ready.pid);
    const reads: ReadTiming[] = [];
    const jobBase = `${api}/projects/${ready.projectId}/jobs/${job!.id}/artifacts`;
    let entries = 0;
    const readsRun = await sampled(ready.pid, async () => {
      const timed = async (name: string, url: string, check: (r: Awaited<ReturnType<typeof drain>>) => string | null) => {
        const r = await drain(url, auth);
        const problem = r.status !== 200 ? `status ${r.status}` : check(r);
        if (problem) errors.push(`${name}: ${problem}`);
        reads.push({ name, ms: r.ms, bytes: r.bytes });
      };
      await timed('tree, root (first page)', `${jobBase}/tree`, () => null);
      // every entry, page by page
      const t = performance.now();
      let bytes = 0;
      for (let page = 1; ; page++) {
        const r = await request(`${jobBase}/tree?recursive=true&per_page=100&page=${page}`, { method: 'GET', headers: auth });
        if (r.status !== 200) {
          errors.push(`tree page ${page}: ${r.status} ${r.text.slice(0, 200)}`);
          break;
        }
        bytes += r.text.length;
        entries += (JSON.parse(r.text) as unknown[]).length;
        if (!r.headers['x-next-page']) break;
      }
      reads.push({ name: 'tree, recursive, every page of 100', ms: performance.now() - t, bytes });
      await timed('tree, one directory', `${jobBase}/tree?path=data/d07`, () => null);
      await timed('file by job, docs/readme.txt', `${jobBase}/docs/readme.txt`, (r) => (r.head.toString() === README ? null : 'wrong content'));
      await timed('file by job, data/d31/f31.bin (1 MiB)', `${jobBase}/data/d31/f31.bin`, (r) => (r.bytes === MiB ? null : `${r.bytes} bytes`));
      const pattern = block().subarray(0, 64);
      await timed(`file by job, big/blob.bin (${Math.round(bigBytes / MiB)} MiB)`, `${jobBase}/big/blob.bin`, (r) =>
        r.bytes === bigBytes && r.head.equals(pattern) ? null : `${r.bytes} bytes`,
      );
      await timed(`file by ref, big/blob.bin (${Math.round(bigBytes / MiB)} MiB, content sniffed)`, `${api}/projects/${ready.projectId}/jobs/artifacts/main/raw/big/blob.bin?job=bundle`, (r) =>
        r.bytes === bigBytes && r.contentType === 'application/octet-stream' ? null : `${r.bytes} bytes, ${r.contentType}`,
      );
    });
    const hwm = memoryOf(ready.pid)?.hwmMb ?? null;
    const expectedEntries = 1 + 1 + SMALL_DIRS * SMALL_FILES + SMALL_DIRS + 1 + 1 + 1; // docs/, readme, files, data/dNN/, data/, big/, blob
    if (entries !== expectedEntries) errors.push(`tree: ${entries} entries, expected ${expectedEntries}`);

    // The whole archive, streamed (informational).
    const dl = await sampled(ready.pid, () => drain(jobBase, auth));
    if (dl.value.status !== 200 || dl.value.bytes !== archiveBytes) errors.push(`archive download: ${dl.value.status}, ${dl.value.bytes} of ${archiveBytes} bytes`);
    const memoryUsage = await memLine(second.child);
    return {
      dialect: ready.dialect,
      sources: ready.sources,
      archiveBytes,
      entries,
      uploadMs,
      uploadPeak,
      afterUpload,
      uploadMemoryUsage,
      beforeReads,
      reads,
      readsSampledPeakMb: readsRun.peakMb,
      readsHwmMb: reset ? hwm : null,
      archiveDownload: { name: 'archive download', ms: dl.value.ms, bytes: dl.value.bytes, sampledPeakMb: dl.peakMb },
      memoryUsage,
      errors,
    };
  } finally {
    await stopLine(second.child);
  }
}
