/**
 * A small closed-loop HTTP load generator: `connections` workers, each with its own
 * keep-alive connection, issue one request, read the whole body, then issue the next.
 * A warmup period runs first and is not recorded; then requests completing inside the
 * measured window are counted and their latencies kept.
 *
 * Client: undici's Pool (default; undici is a dependency of @forgelet/core) or node:http
 * with a keep-alive Agent (BENCH_CLIENT=http, or automatically if undici can't load).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  /** Origin, e.g. http://127.0.0.1:1234 */
  origin: string;
  /** Request paths (with query); rotated round-robin across requests. */
  paths: string[];
  headers?: Record<string, string>;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** Status that counts as success (default 200). */
  expectStatus?: number;
  /** Default GET; with `body`, a JSON body sent on every request. */
  method?: string;
  body?: string;
  /**
   * Open loop: requests start on a fixed schedule (this many per second, spread over the
   * connections) instead of each connection sending as soon as its last answer came, and a
   * latency counts from the scheduled start, so a slow answer delays (and is charged to) the
   * requests queued behind it rather than slowing the load down (no coordinated omission).
   * Timers fire up to ~1 ms late on a busy machine; that lateness is counted too.
   */
  ratePerSecond?: number;
}

export interface LoadResult {
  client: string;
  connections: number;
  seconds: number;
  requests: number;
  /** Every answered request, warmup included (for CPU time per request). */
  completed: number;
  rps: number;
  errors: number;
  /** First unexpected status or error message, if any. */
  firstError: string | null;
  bytesPerResponse: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
}

type Requester = {
  name: string;
  /** Resolves with status and body length once the body is fully read. */
  request(path: string): Promise<{ status: number; bytes: number }>;
  close(): Promise<void>;
};

interface Send {
  method: string;
  body?: string;
}

async function undiciRequester(origin: string, headers: Record<string, string>, connections: number, send: Send): Promise<Requester> {
  const { Pool } = await import('undici');
  const pool = new Pool(origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
  return {
    name: 'undici.Pool',
    async request(path) {
      const res = await pool.request({ path, method: send.method as 'GET', headers, body: send.body });
      let bytes = 0;
      for await (const chunk of res.body) bytes += (chunk as Buffer).length;
      return { status: res.statusCode, bytes };
    },
    close: () => pool.close(),
  };
}

function httpRequester(origin: string, headers: Record<string, string>, connections: number, send: Send): Requester {
  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  return {
    name: 'node:http Agent',
    request(path) {
      return new Promise((resolve, reject) => {
        const req = http.request({ host: url.hostname, port: url.port, path, method: send.method, headers, agent }, (res) => {
          let bytes = 0;
          res.on('data', (c: Buffer) => (bytes += c.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(send.body);
      });
    },
    async close() {
      agent.destroy();
    },
  };
}

async function makeRequester(origin: string, headers: Record<string, string>, connections: number, send: Send): Promise<Requester> {
  if ((process.env.BENCH_CLIENT ?? 'undici') === 'http') return httpRequester(origin, headers, connections, send);
  try {
    return await undiciRequester(origin, headers, connections, send);
  } catch {
    return httpRequester(origin, headers, connections, send);
  }
}

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const expect = opts.expectStatus ?? 200;
  const send: Send = { method: opts.method ?? 'GET', body: opts.body };
  const headers = opts.body === undefined ? (opts.headers ?? {}) : { 'Content-Type': 'application/json', ...opts.headers };
  const requester = await makeRequester(opts.origin, headers, opts.connections, send);
  const start = performance.now();
  const measureStart = start + opts.warmupSeconds * 1000;
  const end = measureStart + opts.seconds * 1000;
  let next = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | null = null;
  let bytes = 0;
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const record = (ms: number) => {
    if (count === latencies.length) {
      const bigger = new Float64Array(latencies.length * 2);
      bigger.set(latencies);
      latencies = bigger;
    }
    latencies[count++] = ms;
  };

  const interval = opts.ratePerSecond ? 1000 / opts.ratePerSecond : 0;
  let slot = 0;
  /** The next request's start (the schedule's next slot when open loop), or null once the load is over. */
  const nextStart = async (): Promise<number | null> => {
    if (!interval) return performance.now() < end ? performance.now() : null;
    const at = start + slot++ * interval;
    if (at >= end) return null;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    return at;
  };
  const worker = async () => {
    for (let t0 = await nextStart(); t0 !== null; t0 = await nextStart()) {
      const path = opts.paths[next++ % opts.paths.length]!;
      try {
        const r = await requester.request(path);
        const t1 = performance.now();
        completed++;
        if (r.status !== expect) {
          errors++;
          firstError ??= `HTTP ${r.status} on ${path}`;
          continue;
        }
        if (t1 >= measureStart && t1 <= end) {
          record(t1 - t0);
          bytes += r.bytes;
        }
      } catch (err) {
        errors++;
        firstError ??= `${(err as Error).message} on ${path}`;
        // avoid a hot loop against a dead server
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  await requester.close();

  const sorted = latencies.slice(0, count).sort();
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i]!;
  return {
    client: requester.name,
    connections: opts.connections,
    seconds: opts.seconds,
    requests: count,
    completed,
    rps: count / opts.seconds,
    errors,
    firstError,
    bytesPerResponse: count ? Math.round(bytes / count) : 0,
    latencyMs: {
      mean: count ? sum / count : NaN,
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      max: count ? sorted[count - 1]! : NaN,
    },
  };
}

export function describeLoad(r: LoadResult): string {
  const l = r.latencyMs;
  const err = r.errors ? `, ERRORS ${r.errors} (first: ${r.firstError})` : '';
  return (
    `${r.rps.toFixed(0)} req/s (${r.requests} req in ${r.seconds}s, c=${r.connections}, ${r.bytesPerResponse} B/resp, ` +
    `lat ms p50 ${l.p50.toFixed(2)} p90 ${l.p90.toFixed(2)} p99 ${l.p99.toFixed(2)} max ${l.max.toFixed(1)}${err})`
  );
}
