/**
 * The `error-ingest` case: Sentry events over HTTP into Forgelet's collector, against two
 * baselines measured in the same run.
 *
 *  - Load: `connections` keep-alive connections POST @sentry/node-style envelopes (no content
 *    type, key in the query string; 20 fingerprints, 50 users, ~1.6 KB events) to a Forgelet
 *    child (the built packages, as shipped, unless `sources`) for warmup + measured seconds.
 *    The collector answers 200 only once the event is committed, so "events/s" counts
 *    acknowledged events of the measured window: events in the database per second. Right
 *    after the load (nothing written afterwards: no flush) the child's row count must equal
 *    the acknowledged count. The server's CPU time per event is measured too (less disturbed
 *    by other work on the machine than events/s).
 *  - Baselines: a bare node:http server (bench/bare-child.ts) reading the same envelopes and
 *    answering 200 with the event id (the HTTP ceiling on this machine, same load generator); and better-sqlite3
 *    inserting the same events' rows (same columns and indexes as error_tracking_error_events,
 *    same JSON payloads) in transactions of 1000 with one prepared statement, WAL and
 *    synchronous=NORMAL as Forgelet opens SQLite (the most a SQLite writer does here).
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { summarizeProfile } from './cpuprofile.js';
import { BENCH_DIR, cpuSecondsOf, spawnLines, stopChild, tsxArgs, type LineChild } from './proc.js';

export interface ErrorIngestOptions {
  work: string;
  databaseUrl?: string;
  rootToken: string;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** node flags and environment of a Forgelet process (bin/forgelet.js's shebang). */
  nodeFlags: string[];
  env: NodeJS.ProcessEnv;
  /** Run the child on the sources under tsx instead of the built packages. */
  sources: boolean;
  /** Write a CPU profile of an extra, unmeasured load to this file and print its top frames. */
  profileFile?: string;
}

export interface LoadFigures {
  /** Answered 200 in the whole load (warmup included). */
  acknowledged: number;
  errors: number;
  firstError: string | null;
  /** Acknowledged per second in the measured window. */
  perSec: number;
  latencyMs: { p50: number; p99: number };
  loadSeconds: number;
  /** Server CPU µs per acknowledged event over the whole load (NaN when unknown). */
  cpuUsPerEvent: number;
}

export interface ErrorIngestResult {
  dialect: string;
  forgelet: LoadFigures;
  bare: LoadFigures;
  rows: number;
  groupedErrors: number;
  counted: number;
  batches: number;
  rawPerSec: number;
  profile: string | null;
}

const FRAMES = Array.from({ length: 12 }, (_, i) => ({
  filename: `/srv/app/src/module-${i}.js`,
  module: `module-${i}`,
  function: `step${i}`,
  lineno: 10 + i * 7,
  colno: 5,
  in_app: i > 3,
  pre_context: ['  const a = input.a;', '  const b = input.b;'],
  context_line: `  return step${i + 1}(a, b);`,
  post_context: ['}'],
}));

function sampleEvent(i: number): Record<string, unknown> {
  return {
    event_id: randomUUID().replace(/-/g, ''),
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    release: `shop@1.${i % 2}.0`,
    environment: 'production',
    server_name: 'bench-host',
    user: { id: `u-${i % 50}`, email: `u${i % 50}@example.com` },
    exception: { values: [{ type: 'TypeError', value: `failure number ${i % 20}`, stacktrace: { frames: FRAMES }, mechanism: { type: 'generic', handled: true } }] },
    contexts: { runtime: { name: 'node', version: process.version }, os: { name: 'linux' } },
    sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
  };
}

function envelopeOf(event: Record<string, unknown>): Buffer {
  const header = { event_id: event.event_id, sent_at: new Date().toISOString(), sdk: { name: 'sentry.javascript.node', version: '10.78.0' } };
  return Buffer.from(`${JSON.stringify(header)}\n{"type":"event"}\n${JSON.stringify(event)}`);
}

/** better-sqlite3 rows/s into a copy of the events table, batched like Forgelet's writer. */
export function rawSqliteInsertRate(file: string, payloads: string[], seconds: number): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`create table events (
    id integer primary key autoincrement, error_id integer not null, project_id integer not null, event_id text not null,
    occurred_at text not null, received_at text not null, level text, environment text, release text, platform text,
    message text, user_key text, user text, stack_trace text, payload text not null)`);
  db.exec('create index events_error on events (error_id, occurred_at, id)');
  db.exec('create index events_purge on events (occurred_at)');
  const insert = db.prepare(
    'insert into events (error_id, project_id, event_id, occurred_at, received_at, level, environment, release, platform, message, user_key, user, stack_trace, payload) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const frames = JSON.stringify(FRAMES);
  const batch = db.transaction((from: number) => {
    for (let i = from; i < from + 1000; i++) {
      const now = new Date().toISOString();
      insert.run(i % 20, 1, randomUUID().replace(/-/g, ''), now, now, 'error', 'production', 'shop@1.0.0', 'node', `failure number ${i % 20}`, `id:u-${i % 50}`, '{"id":"u"}', frames, payloads[i % payloads.length]);
    }
  });
  const t0 = performance.now();
  let rows = 0;
  while (performance.now() - t0 < seconds * 1000) {
    batch(rows);
    rows += 1000;
  }
  const elapsed = (performance.now() - t0) / 1000;
  db.close();
  return rows / elapsed;
}

/** Closed-loop POSTs of the envelopes from `connections` connections; figures of the measured window. */
async function loadEnvelopes(origin: string, path: string, bodies: Buffer[], opts: ErrorIngestOptions, pid: number | null): Promise<LoadFigures> {
  const { Pool } = await import('undici');
  const pool = new Pool(origin, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const cpuBefore = pid === null ? null : cpuSecondsOf(pid);
  const start = performance.now();
  const measureStart = start + opts.warmupSeconds * 1000;
  const end = measureStart + opts.seconds * 1000;
  let next = 0;
  let acknowledged = 0;
  let errors = 0;
  let firstError: string | null = null;
  const latencies: number[] = [];
  const worker = async () => {
    while (performance.now() < end) {
      const body = bodies[next++ % bodies.length]!;
      const t0 = performance.now();
      try {
        const res = await pool.request({ path, method: 'POST', body });
        await res.body.text();
        const t1 = performance.now();
        if (res.statusCode !== 200) {
          errors++;
          firstError ??= `HTTP ${res.statusCode}`;
          continue;
        }
        acknowledged++;
        if (t1 >= measureStart && t1 <= end) latencies.push(t1 - t0);
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: opts.connections }, worker));
  const loadEnd = performance.now();
  const cpuAfter = pid === null ? null : cpuSecondsOf(pid);
  await pool.close();
  const measured = latencies.length;
  latencies.sort((a, b) => a - b);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(q * latencies.length) - 1))] ?? NaN;
  return {
    acknowledged,
    errors,
    firstError,
    perSec: measured / opts.seconds,
    latencyMs: { p50: pct(0.5), p99: pct(0.99) },
    loadSeconds: (loadEnd - start) / 1000,
    cpuUsPerEvent: cpuBefore === null || cpuAfter === null || acknowledged === 0 ? NaN : ((cpuAfter - cpuBefore) * 1e6) / acknowledged,
  };
}

export async function runErrorIngest(opts: ErrorIngestOptions): Promise<ErrorIngestResult> {
  const dataDir = join(opts.work, 'error-ingest');
  const child: LineChild = spawnLines(
    process.execPath,
    tsxArgs(join(BENCH_DIR, 'error-ingest-child.ts'), opts.nodeFlags, { built: !opts.sources }).concat(JSON.stringify({ dataDir, databaseUrl: opts.databaseUrl, rootToken: opts.rootToken })),
    { env: opts.env },
  );
  try {
    const ready = JSON.parse(await child.waitLine('READY ', 120_000)) as { url: string; projectId: number; key: string; dialect: string; pid: number };
    const events = Array.from({ length: 400 }, (_, i) => sampleEvent(i));
    const bodies = events.map(envelopeOf);
    const path = `/api/v4/error_tracking/collector/api/${ready.projectId}/envelope/?sentry_version=7&sentry_key=${ready.key}&sentry_client=sentry.javascript.node%2F10.78.0`;

    // The bare baseline (bench/bare-child.ts, POST …/envelope/) in a process of its own, as Forgelet's.
    const templates = join(opts.work, 'error-ingest-templates.json');
    writeFileSync(templates, JSON.stringify({ project: {}, page: [] }));
    const bareChild = spawnLines(process.execPath, tsxArgs(join(BENCH_DIR, 'bare-child.ts')).concat(templates));
    let bare: LoadFigures;
    try {
      const bareReady = JSON.parse(await bareChild.waitLine('READY ')) as { url: string; pid: number };
      bare = await loadEnvelopes(bareReady.url, path, bodies, opts, bareReady.pid);
    } finally {
      await stopChild(bareChild.child);
    }

    const forgelet = await loadEnvelopes(ready.url, path, bodies, opts, ready.pid);
    // Nothing is written after the load: what was acknowledged is in the database already.
    child.send('count');
    const counted = JSON.parse(await child.waitLine('COUNT ', 60_000)) as { rows: number; errors: number; counted: number; stats: { batches: number } };

    let profile: string | null = null;
    if (opts.profileFile) {
      child.send('prof:start');
      await child.waitLine('PROFSTARTED');
      const p = await loadEnvelopes(ready.url, path, bodies, { ...opts, warmupSeconds: 0 }, null);
      child.send(`prof:stop ${opts.profileFile}`);
      await child.waitLine('PROF ');
      profile = `profiled run: ${p.perSec.toFixed(0)} events/s\n${summarizeProfile(opts.profileFile).text}`;
    }
    child.send('stop');
    await new Promise<void>((resolve) => (child.child.exitCode !== null ? resolve() : child.child.once('exit', () => resolve())));

    const payloads = events.map((e) => JSON.stringify(e));
    const rawPerSec = rawSqliteInsertRate(join(opts.work, 'raw-insert.db'), payloads, Math.max(1, Math.min(opts.seconds, 3)));
    return {
      dialect: ready.dialect,
      forgelet,
      bare,
      rows: counted.rows,
      groupedErrors: counted.errors,
      counted: counted.counted,
      batches: counted.stats.batches,
      rawPerSec,
      profile,
    };
  } finally {
    if (child.child.exitCode === null) await stopChild(child.child);
  }
}
