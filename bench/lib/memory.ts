/**
 * The `memory` case (issue 25): resident memory of `forgelet serve` as users start it (the built
 * bin, with the environment and node flags of its shebang), on SQLite:
 *  - after start, then 1, 5 and 10 s after a read load and a write load (target: < 100 MB at 10 s);
 *  - then a job artifacts archive (BENCH_ARTIFACT_MB, 2 GB, generated while it is uploaded)
 *    through the runner API into the same process: its RSS just before, its peak during, and
 *    1, 5 and 10 s after (target: no more than 20 MB left at 10 s).
 * Each sample splits RSS into anonymous memory (V8 heap, malloc) and file-backed pages (the
 * node binary, mapped code), from /proc/<pid>/smaps_rollup.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { artifactsUploadBody } from './artifacts.js';
import { describeLoad, runLoad } from './load.js';
import { getOnce, memoryOf, sleep, startServeBin, stopChild } from './proc.js';

export interface MemoryOptions {
  work: string;
  rootToken: string;
  /** Archive size in MiB. */
  sizeMb: number;
  connections: number;
  loadSeconds: number;
}

export interface MemSample {
  /** Seconds after the load or upload ended (or after start). */
  at: number;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** The process's threads (the SQLite checkpointer's worker comes and goes with the writes). */
  threads: number;
}

export interface MemoryResult {
  afterStart: MemSample;
  loads: string[];
  afterLoad: MemSample[];
  beforeUpload: MemSample;
  uploadMs: number;
  archiveBytes: number;
  uploadPeakMb: number;
  afterUpload: MemSample[];
  errors: string[];
}

const SETTLE_AT = [0, 1, 5, 10];

/** RSS of a process split into anonymous and file-backed pages (MB). */
function sample(pid: number, at: number): MemSample {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  const rss = kb('Rss') / 1024;
  const anon = kb('Anonymous') / 1024;
  const threads = Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return { at, rssMb: rss, anonMb: anon, fileMb: rss - anon, threads };
}

/** Samples at 0, 1, 5 and 10 s from now. */
async function settle(pid: number): Promise<MemSample[]> {
  const t0 = performance.now();
  const out: MemSample[] = [];
  for (const at of SETTLE_AT) {
    const wait = t0 + at * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
    out.push(sample(pid, at));
  }
  return out;
}

export function formatSample(s: MemSample): string {
  return `${s.rssMb.toFixed(1)} MB (anonymous ${s.anonMb.toFixed(1)}, file-backed ${s.fileMb.toFixed(1)}; ${s.threads} threads)`;
}

function request(url: string, method: string, headers: Record<string, string>, body?: Readable | string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body instanceof Readable) pipeline(body, req).catch(reject);
    else req.end(body);
  });
}


export async function runMemory(opts: MemoryOptions): Promise<MemoryResult> {
  const dataDir = join(opts.work, 'memory');
  mkdirSync(dataDir);
  const errors: string[] = [];
  const { child, origin } = await startServeBin(dataDir, opts.rootToken);
  const pid = child.pid!;
  const auth = { 'PRIVATE-TOKEN': opts.rootToken };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = json) => {
    const r = await request(`${origin}/api/v4${path}`, method, headers, body === undefined ? undefined : JSON.stringify(body));
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return JSON.parse(r.text || 'null');
  };
  try {
    await sleep(1000);
    const afterStart = sample(pid, 1);

    // 1. A read load, then a write load.
    const project = (await api('POST', '/projects', { name: 'memory' })) as { id: number };
    for (let i = 0; i < 20; i++) await api('POST', `/projects/${project.id}/issues`, { title: `issue ${i}`, description: 'bench' });
    const o = { origin, headers: auth, connections: opts.connections, warmupSeconds: 1, seconds: opts.loadSeconds };
    const reads = await runLoad({ ...o, paths: [`/api/v4/projects/${project.id}`, `/api/v4/projects/${project.id}/issues?per_page=20`, `/api/v4/projects?per_page=20`] });
    const writes = await runLoad({ ...o, paths: [`/api/v4/projects/${project.id}/issues`], method: 'POST', body: JSON.stringify({ title: 'bench', description: 'memory' }), expectStatus: 201 });
    for (const [name, r] of [['reads', reads], ['writes', writes]] as const) if (r.errors) errors.push(`${name}: ${r.errors} errors (first: ${r.firstError})`);
    const loads = [`reads (GET a project, a page of issues, a page of projects): ${describeLoad(reads)}`, `writes (POST issues): ${describeLoad(writes)}`];
    const afterLoad = await settle(pid);

    // 2. A job's artifacts archive through the runner API, into the same process.
    await api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { branch: 'main', content: 'bundle:\n  script: make\n  artifacts:\n    paths: [out/]\n', commit_message: 'CI' });
    const runner = (await api('POST', '/user/runners', { runner_type: 'project_type', project_id: project.id })) as { token: string };
    await api('POST', `/projects/${project.id}/pipeline`, { ref: 'main' });
    const job = (await api('POST', '/jobs/request', { token: runner.token }, { 'Content-Type': 'application/json' })) as { id: number; token: string };
    const archive = artifactsUploadBody(opts.sizeMb);
    const beforeUpload = sample(pid, 0);
    let peak = beforeUpload.rssMb;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(pid)?.rssMb ?? 0)), 100);
    const t0 = performance.now();
    const upload = await request(`${origin}/api/v4/jobs/${job.id}/artifacts`, 'POST', { 'Content-Type': archive.contentType, 'JOB-TOKEN': job.token }, archive.body).finally(() => clearInterval(sampler));
    const uploadMs = performance.now() - t0;
    if (upload.status !== 201) errors.push(`upload: ${upload.status} ${upload.text.slice(0, 300)}`);
    const afterUpload = await settle(pid);
    return { afterStart, loads, afterLoad, beforeUpload, uploadMs, archiveBytes: archive.archiveBytes(), uploadPeakMb: peak, afterUpload, errors };
  } finally {
    await stopChild(child);
  }
}

type Status = 'PASS' | 'FAIL' | 'SKIP';

/** Prints the figures and the two results against their targets. */
export function reportMemory(r: MemoryResult, out: { info: (line: string) => void; result: (name: string, value: string, target: string, status: Status) => void }): void {
  const { info, result } = out;
  const series = (xs: MemSample[]) => xs.map((s) => `+${s.at}s ${s.rssMb.toFixed(1)}`).join(', ');
  info(`after start (+1 s): ${formatSample(r.afterStart)}`);
  for (const line of r.loads) info(`load: ${line}`);
  info(`RSS (MB) after the load: ${series(r.afterLoad)}; at +10 s ${formatSample(r.afterLoad.at(-1)!)}`);
  const mib = r.archiveBytes / 1048576;
  info(`upload: ${mib.toFixed(0)} MiB in ${(r.uploadMs / 1000).toFixed(1)} s (${(mib / (r.uploadMs / 1000)).toFixed(0)} MiB/s); RSS before ${formatSample(r.beforeUpload)}, peak ${r.uploadPeakMb.toFixed(1)} MB (sampled every 100 ms)`);
  info(`RSS (MB) after the upload: ${series(r.afterUpload)}; at +10 s ${formatSample(r.afterUpload.at(-1)!)}`);
  for (const e of r.errors) info(`ERROR ${e}`);
  const idle = r.afterLoad.at(-1)!.rssMb;
  result('idle_rss_10s_after_load_mb', `${idle.toFixed(1)} MB (${r.afterStart.rssMb.toFixed(1)} MB after start)`, '< 100 MB', r.errors.length === 0 && idle < 100 ? 'PASS' : 'FAIL');
  const left = r.afterUpload.at(-1)!.rssMb - r.beforeUpload.rssMb;
  result(
    `upload_${Math.round(mib)}mib_rss_left_mb`,
    `${left.toFixed(1)} MB (${r.beforeUpload.rssMb.toFixed(1)} → ${r.afterUpload.at(-1)!.rssMb.toFixed(1)} MB, 10 s after)`,
    '≤ 20 MB',
    r.errors.length === 0 && left <= 20 ? 'PASS' : 'FAIL',
  );
}
