/**
 * The `packages` case (NuGet feed): a Forgelet child (bench/packages-child.mjs, the built
 * packages when present) seeded with 10,000 package versions (1,000 names × 10 versions),
 * then
 *  - search latency: `GET …/nuget/query` sequentially, several shapes (first page, a
 *    substring, `prerelease=false`, the last page by `skip`), median and p95 each; plus the
 *    registration index of one name;
 *  - push throughput: a 50 MB package (store-only zip generated while it is sent, chunked
 *    multipart `package`) pushed three times through `PUT …/nuget`, MiB/s against the same
 *    body streamed to a file by a bare node:http server in the same child process; the
 *    server's RSS is sampled every 20 ms during the pushes and its growth reported (the
 *    upload is streamed to the blob store and the zip read by random access: flat).
 */
import http from 'node:http';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { BENCH_DIR, memoryOf, ROOT, spawnLines, tsxArgs } from './proc.js';

export interface PackagesOptions {
  work: string;
  databaseUrl?: string;
  /** `--blob-url` of the server child (default: the data directory's folder). */
  blobUrl?: string;
  rootToken: string;
  /** Size of the pushed package in MiB (default 50). */
  pushMb: number;
  /** Searches per shape (default 100). */
  searches: number;
}

export interface LatencyStat {
  name: string;
  medianMs: number;
  p95Ms: number;
  hits: number;
}

export interface PackagesResult {
  dialect: string;
  sources: boolean;
  seeded: number;
  seedMs: number;
  searches: LatencyStat[];
  registration: LatencyStat;
  push: { bytes: number; runs: number[]; baselineRuns: number[]; rssBeforeMb: number; rssPeakMb: number; rssAfterMb: number };
  errors: string[];
}

const MiB = 1 << 20;

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

function get(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function put(url: string, headers: Record<string, string>, body: Readable): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    pipeline(body, req).catch(reject);
  });
}

const NUSPEC = (version: string) =>
  `<?xml version="1.0" encoding="utf-8"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"><metadata>` +
  `<id>Bench.Big</id><version>${version}</version><authors>Bench</authors><description>A big package</description></metadata></package>`;

/** The multipart body around a package generated while it is read (store-only, `sizeMb` of payload). */
function multipartPackage(sizeMb: number, version: string): { body: Readable; contentType: string; bytes: () => number } {
  const zip = new yazl.ZipFile();
  const options = { compress: false, mtime: new Date('2024-01-01T00:00:00Z') };
  zip.addBuffer(Buffer.from(NUSPEC(version)), 'Bench.Big.nuspec', options);
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = (i * 131 + 17) & 0xff;
  async function* payload() {
    for (let i = 0; i < sizeMb; i++) yield block;
  }
  zip.addReadStream(Readable.from(payload()), 'content/data.bin', { ...options, size: sizeMb * MiB });
  zip.end();
  const boundary = `----forgelet-bench-${Date.now()}`;
  let total = 0;
  async function* body() {
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="package"; filename="package.nupkg"\r\nContent-Type: application/octet-stream\r\n\r\n`);
    total += head.length;
    yield head;
    for await (const chunk of zip.outputStream) {
      total += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    total += tail.length;
    yield tail;
  }
  return { body: Readable.from(body()), contentType: `multipart/form-data; boundary=${boundary}`, bytes: () => total };
}

type Status = 'PASS' | 'FAIL';

/**
 * Prints the case's table (bench/run.ts and bench/packages.ts alike): the latencies and push
 * figures as info lines, the four targets as `result` lines.
 */
export function reportPackages(
  r: PackagesResult,
  pushMb: number,
  out: { info: (line: string) => void; result: (name: string, value: string, target: string, status: Status) => void },
  /** The blob store under test (BENCH_BLOB_STORES): named in every figure, RSS held to issue 25's 64 MB. */
  store?: string,
): void {
  const { info } = out;
  const result = (name: string, value: string, target: string, status: Status) => out.result(store ? `${name}_store_${store}` : name, value, target, status);
  const median = (xs: number[]) => percentile(xs, 50);
  info(`server (${r.dialect}, ${r.sources ? 'sources under tsx: run npm run build for the built packages' : 'built packages, plain node'}); seeded ${r.seeded} versions in ${r.seedMs.toFixed(0)} ms`);
  const show = (s: LatencyStat) => info(`${s.name}: median ${s.medianMs.toFixed(1)} ms, p95 ${s.p95Ms.toFixed(1)} ms${s.hits ? ` (totalHits ${s.hits})` : ''}`);
  r.searches.forEach(show);
  show(r.registration);
  for (const e of r.errors) info(`ERROR ${e}`);
  const worstP95 = Math.max(...r.searches.map((s) => s.p95Ms));
  const worstMedian = Math.max(...r.searches.map((s) => s.medianMs));
  const ok = r.errors.length === 0;
  result(`packages_search_p95_ms_${r.dialect}`, `${worstP95.toFixed(1)} ms (worst shape)`, '< 100 ms', ok && worstP95 < 100 ? 'PASS' : 'FAIL');
  result(`packages_search_median_ms_${r.dialect}`, `${worstMedian.toFixed(1)} ms (worst shape)`, '< 50 ms', ok && worstMedian < 50 ? 'PASS' : 'FAIL');
  const mbps = median(r.push.runs);
  const base = median(r.push.baselineRuns);
  info(`push: ${(r.push.bytes / MiB).toFixed(1)} MiB bodies; Forgelet ${r.push.runs.map((x) => x.toFixed(0)).join(', ')} MiB/s; bare baseline ${r.push.baselineRuns.map((x) => x.toFixed(0)).join(', ')} MiB/s`);
  info(`server RSS: ${r.push.rssBeforeMb.toFixed(1)} MB before the pushes, peak ${r.push.rssPeakMb.toFixed(1)} MB during them, ${r.push.rssAfterMb.toFixed(1)} MB after`);
  result(`packages_push_${pushMb}mb_ratio_${r.dialect}`, `${(mbps / base).toFixed(2)} (${mbps.toFixed(0)} vs ${base.toFixed(0)} MiB/s)`, '>= 0.30', ok && mbps / base >= 0.3 ? 'PASS' : 'FAIL');
  const growth = r.push.rssPeakMb - r.push.rssBeforeMb;
  const limit = store ? 64 : 40;
  result(`packages_push_rss_growth_mb_${r.dialect}`, `${growth.toFixed(1)} MB`, `< ${limit} MB`, ok && growth < limit ? 'PASS' : 'FAIL');
}

export async function runPackages(opts: PackagesOptions): Promise<PackagesResult> {
  const dataDir = join(opts.work, 'packages');
  const built = existsSync(join(ROOT, 'packages', 'server', 'dist', 'index.js')) && existsSync(join(ROOT, 'packages', 'core', 'dist', 'index.js'));
  const script = join(BENCH_DIR, 'packages-child.mjs');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dataDir, { recursive: true });
  const config = JSON.stringify({ dataDir, databaseUrl: opts.databaseUrl, blobUrl: opts.blobUrl, rootToken: opts.rootToken, names: 1000, versions: 10 });
  const child = spawnLines(process.execPath, built ? [script, config] : tsxArgs(script).concat(config));
  const errors: string[] = [];
  try {
    const ready = JSON.parse(await child.waitLine('READY ', 300_000)) as {
      url: string; bareUrl: string; pid: number; projectId: number; dialect: string; sources: boolean; seeded: number; seedMs: number;
    };
    const auth = { 'PRIVATE-TOKEN': opts.rootToken };
    const feed = `${ready.url}/api/v4/projects/${ready.projectId}/packages/nuget`;

    const timed = async (name: string, url: string, runs: number): Promise<LatencyStat> => {
      const times: number[] = [];
      let hits = 0;
      for (let i = 0; i < 5; i++) await get(url, auth);
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        const r = await get(url, auth);
        times.push(performance.now() - t0);
        if (r.status !== 200) {
          errors.push(`${name}: ${r.status} ${r.text.slice(0, 200)}`);
          break;
        }
        if (i === 0) hits = (JSON.parse(r.text) as { totalHits?: number; count?: number }).totalHits ?? 0;
      }
      return { name, medianMs: percentile(times, 50), p95Ms: percentile(times, 95), hits };
    };
    const searches = [
      await timed('first page (take 20)', `${feed}/query?take=20`, opts.searches),
      await timed('q=pkg00042 (substring)', `${feed}/query?q=pkg00042`, opts.searches),
      await timed('q=tools&prerelease=false&take=30', `${feed}/query?q=tools&prerelease=false&take=30`, opts.searches),
      await timed('last page (skip=980&take=20)', `${feed}/query?skip=980&take=20`, opts.searches),
    ];
    const registration = await timed('registration index (10 versions)', `${feed}/metadata/bench.pkg00500.core/index.json`, opts.searches);

    // Push throughput, bare baseline first, then Forgelet; RSS sampled during the pushes.
    const baselineRuns: number[] = [];
    const runs: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 3; i++) {
      const m = multipartPackage(opts.pushMb, `9.0.${i}`);
      const t0 = performance.now();
      const r = await put(`${ready.bareUrl}/upload`, { 'Content-Type': m.contentType }, m.body);
      if (r.status !== 201) errors.push(`baseline push: ${r.status}`);
      bytes = m.bytes();
      baselineRuns.push(bytes / MiB / ((performance.now() - t0) / 1000));
    }
    const rssBeforeMb = memoryOf(ready.pid)?.rssMb ?? 0;
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      const m = memoryOf(ready.pid);
      if (m && m.rssMb > rssPeakMb) rssPeakMb = m.rssMb;
    }, 20);
    try {
      for (let i = 0; i < 3; i++) {
        const m = multipartPackage(opts.pushMb, `1.0.${i}`);
        const t0 = performance.now();
        const r = await put(`${feed}`, { ...auth, 'Content-Type': m.contentType }, m.body);
        if (r.status !== 201) errors.push(`push: ${r.status} ${r.text.slice(0, 200)}`);
        runs.push(m.bytes() / MiB / ((performance.now() - t0) / 1000));
      }
    } finally {
      clearInterval(sampler);
    }
    const rssAfterMb = memoryOf(ready.pid)?.rssMb ?? 0;
    // the pushed package is served back whole
    const check = await get(`${feed}/metadata/bench.big/index.json`, auth);
    if (check.status !== 200 || (JSON.parse(check.text) as { items: { count: number }[] }).items[0]!.count !== 3) errors.push(`pushed packages not listed: ${check.status}`);
    return {
      dialect: ready.dialect,
      sources: ready.sources,
      seeded: ready.seeded,
      seedMs: ready.seedMs,
      searches,
      registration,
      push: { bytes, runs, baselineRuns, rssBeforeMb, rssPeakMb, rssAfterMb },
      errors,
    };
  } finally {
    const exited = new Promise<void>((r) => (child.child.exitCode !== null ? r() : child.child.once('exit', () => r())));
    try {
      child.send('stop');
    } catch {
      /* gone */
    }
    const t = setTimeout(() => child.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(t);
  }
}
