/**
 * The soak (issue 25): two `forgelet serve` processes (the built bin, as users start it) on one
 * PostgreSQL database and a shared blob store, under a mixed load for SOAK_SECONDS; partway,
 * one process is killed with SIGKILL and started again on the same port and data directory
 * while the load goes on. Then every acknowledged write is read back through both processes.
 *
 * Load (closed loop, SOAK_CONNECTIONS workers, each request to one of the processes in turn,
 * only to the survivor while the other is down): authenticated reads (a project, a page of
 * issues), issue and note creation, NuGet pushes (a small .nupkg made in memory), Sentry
 * envelopes, pipeline creation and a runner asking for jobs and finishing them. Beside it,
 * SOAK_SCHEDULES pipeline schedules with the cron `* * * * *` fire every minute through the
 * two processes' queue workers.
 *
 * Verdict (exit 1 on any violation):
 *  - no 5xx, no unexpected status and no connection error, except requests in flight to the
 *    killed process at the kill (counted apart);
 *  - every acknowledged write read back through both processes: issues (title), notes (body),
 *    package versions (listed, and the file downloaded byte for byte through the process that
 *    did not receive it), Sentry events (by event id), created pipelines, jobs the runner
 *    finished (status success);
 *  - each schedule made exactly one pipeline per minute boundary between its creation and the
 *    end of the load (a boundary during the downtime is fired by the survivor; two pipelines
 *    for one boundary, or none, is a violation).
 *
 * By default the kill waits for the first minute boundary after SOAK_KILL_AT and kills the
 * process that holds a schedule's run job at that moment (read from the queue table), the
 * hardest instant for exactly-once; SOAK_KILL_ON_FIRING=0 kills process B at SOAK_KILL_AT.
 *
 * Settings (env): SOAK_SECONDS (600), SOAK_CONNECTIONS (8), SOAK_SCHEDULES (4), SOAK_KILL_AT
 * (0.667 of the run), SOAK_KILL_ON_FIRING (1 for runs of 120 s or more, else 0),
 * SOAK_DATABASE_URL (a server whose user may CREATE DATABASE: a throwaway database is made in
 * it and dropped; else a throwaway cluster from scripts/pg-cluster.mjs), SOAK_BLOB_URL (the
 * `--blob-url` both processes share, default `postgres`: blobs in the database; each process
 * has a data directory of its own),
 * SOAK_FIRST_FIRING_AT (test-only: seconds into the load at which a minute boundary falls; the
 * servers then run with --test-mode and a clock shifted by less than a minute, running at real
 * speed, so that a short run sees a firing), SOAK_KEEP=1 (keep the data directories).
 *
 *   npm run soak                         # builds, then 10 minutes
 *   SOAK_SECONDS=60 node --conditions=source --import tsx bench/soak.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { Pool } from 'undici';
import yazl from 'yazl';
import { createPgDatabase } from './lib/pg.js';
import { freePort, memoryOf, ROOT, sleep, track } from './lib/proc.js';

// ---------------------------------------------------------------- settings

const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw}: not a non-negative number`);
  return n;
};

const SECONDS = num('SOAK_SECONDS', 600);
const CONNECTIONS = Math.max(2, Math.round(num('SOAK_CONNECTIONS', 8)));
const SCHEDULES = Math.round(num('SOAK_SCHEDULES', 4));
const KILL_AT = num('SOAK_KILL_AT', 0.667);
const KILL_ON_FIRING = (process.env.SOAK_KILL_ON_FIRING ?? (SECONDS >= 120 ? '1' : '0')) === '1';
const FIRST_FIRING_AT = process.env.SOAK_FIRST_FIRING_AT ? num('SOAK_FIRST_FIRING_AT', 0) : null;
const KEEP = process.env.SOAK_KEEP === '1';
/** Seconds after the load for firings of the last boundaries to land before they are counted. */
const FIRING_GRACE_S = 5;
const BIN = join(ROOT, 'bin/forgelet.js');
const MINUTE = 60_000;

// ---------------------------------------------------------------- figures

type Kind = 'read_project' | 'read_issues' | 'create_issue' | 'create_note' | 'push_package' | 'sentry_envelope' | 'create_pipeline' | 'runner_request' | 'runner_finish';

/** Relative weight of each kind a worker picks (runner_finish follows a runner_request that got a job). */
const WEIGHTS: [Exclude<Kind, 'runner_finish'>, number][] = [
  ['read_project', 6],
  ['read_issues', 4],
  ['create_issue', 4],
  ['create_note', 3],
  ['push_package', 1],
  ['sentry_envelope', 4],
  ['create_pipeline', 1],
  ['runner_request', 3],
];

interface KindStats {
  ok: number;
  latencies: number[];
  status5xx: number;
  unexpected: number;
  inFlightAtKill: number;
  connectionErrors: number;
}

const stats = new Map<Kind, KindStats>();
const statsOf = (k: Kind): KindStats => {
  let s = stats.get(k);
  if (!s) stats.set(k, (s = { ok: 0, latencies: [], status5xx: 0, unexpected: 0, inFlightAtKill: 0, connectionErrors: 0 }));
  return s;
};
/** The first few problems, printed in full. */
const problems: string[] = [];
const problem = (line: string) => {
  if (problems.length < 40) problems.push(line);
};

// ---------------------------------------------------------------- processes

interface Proc {
  name: 'A' | 'B';
  port: number;
  dataDir: string;
  url: string;
  child: ChildProcess;
  pool: Pool;
  /** False from the kill until the restarted process is ready. */
  up: boolean;
  /** Incremented at each (re)start: a request remembers the generation it was sent to. */
  generation: number;
  /** Real time (ms, performance.now) of the kill, for requests of the killed generation. */
  killedAt: number | null;
  starts: number;
  stdoutLines: number;
  stderr: string;
}

let rootToken = `glpat-${randomBytes(10).toString('hex')}`;
const secretKey = randomBytes(32).toString('base64');
/** The blob store both processes share (their data directories are their own). */
const BLOB_URL = process.env.SOAK_BLOB_URL || 'postgres';
let clockShiftMs = 0;

function serveArgs(proc: Pick<Proc, 'port' | 'dataDir'>, databaseUrl: string): string[] {
  const args = ['serve', '--json', '--host', '127.0.0.1', '--port', String(proc.port), '--data', proc.dataDir, '--database-url', databaseUrl, '--root-token', rootToken, '--blob-url', BLOB_URL];
  if (FIRST_FIRING_AT !== null) args.push('--test-mode');
  return args;
}

/** Starts `forgelet serve` (bin/forgelet.js as an executable: its shebang's node flags apply) and waits for its ready line. */
async function startProc(proc: Proc, databaseUrl: string): Promise<void> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FORGELET_')));
  const child = track(spawn(BIN, serveArgs(proc, databaseUrl), { cwd: ROOT, env: { ...env, FORGELET_SECRET_KEY: secretKey }, stdio: ['ignore', 'pipe', 'pipe'] }));
  proc.child = child;
  let buf = '';
  const ready = new Promise<{ url: string; runtime: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${proc.name}: not ready after 60 s\n${proc.stderr}`)), 60_000);
    let first = true;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (first) {
          first = false;
          clearTimeout(timer);
          try {
            resolve(JSON.parse(line));
          } catch {
            reject(new Error(`${proc.name}: no JSON ready line: ${line}`));
          }
        } else proc.stdoutLines++;
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${proc.name}: exited (${signal ?? code}) before it was ready\n${proc.stderr}`));
    });
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (proc.stderr = (proc.stderr + d).slice(-16_384)));
  const r = await ready;
  proc.url = r.url;
  proc.pool = new Pool(r.url, { connections: CONNECTIONS, pipelining: 1, keepAliveTimeout: 4_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  proc.generation++;
  proc.starts++;
  proc.killedAt = null;
  if (FIRST_FIRING_AT !== null) await setClock(proc);
  proc.up = true;
}

/** Test-only (SOAK_FIRST_FIRING_AT): the process's clock runs at real speed, `clockShiftMs` ahead. */
async function setClock(proc: Proc): Promise<void> {
  const r = await call(proc, 'PUT', '/forgelet/clock', { body: { now: new Date(Date.now() + clockShiftMs).toISOString(), frozen: false } });
  if (r.status !== 200) throw new Error(`${proc.name}: PUT /forgelet/clock ${r.status} ${r.text}`);
}

/** The processes' clock (real time, shifted in the test-only mode). */
const clockNow = () => Date.now() + clockShiftMs;

// ---------------------------------------------------------------- HTTP

interface Reply {
  status: number;
  text: string;
  json: any;
}

/** One request through the process's keep-alive pool; rejects on a connection error. */
async function call(proc: Proc, method: string, path: string, opts: { body?: unknown; raw?: Buffer; headers?: Record<string, string>; token?: string | null } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? rootToken : opts.token;
  if (token) headers['PRIVATE-TOKEN'] = token;
  let body: string | Buffer | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await proc.pool.request({ path: `/api/v4${path}`, method: method as 'GET', headers, body });
  const text = await res.body.text();
  let json: unknown = null;
  if (String(res.headers['content-type'] ?? '').startsWith('application/json') && text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
  }
  return { status: res.statusCode, text, json };
}

async function must(proc: Proc, method: string, path: string, body?: unknown, status = [200, 201]): Promise<any> {
  const r = await call(proc, method, path, body === undefined ? {} : { body });
  if (!status.includes(r.status)) throw new Error(`${proc.name} ${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.json;
}

/** Every item of a paginated list (per_page 100). */
async function listAll(proc: Proc, path: string): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await call(proc, 'GET', `${path}${sep}per_page=100&page=${page}`);
    if (r.status !== 200) throw new Error(`${proc.name} GET ${path} page ${page}: ${r.status} ${r.text.slice(0, 300)}`);
    out.push(...(r.json as any[]));
    if ((r.json as any[]).length < 100) return out;
  }
}

// ---------------------------------------------------------------- payloads

const NUSPEC = (id: string, version: string) =>
  `<?xml version="1.0" encoding="utf-8"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"><metadata>` +
  `<id>${id}</id><version>${version}</version><authors>Soak</authors><description>A soak package</description></metadata></package>`;

/** A small .nupkg (a zip with its nuspec and one file), made in memory. */
async function nupkg(id: string, version: string): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.from(NUSPEC(id, version)), `${id}.nuspec`);
  zip.addBuffer(randomBytes(2048), 'content/data.bin');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** The n-th package push: one of ten names, a version of its own. */
async function packageUpload(n: number): Promise<{ id: string; version: string; sha256: string; body: Buffer; contentType: string }> {
  const id = `Soak.Pkg${n % 10}`;
  const version = `1.${n}.0`;
  const file = await nupkg(id, version);
  return { id, version, sha256: createHash('sha256').update(file).digest('hex'), ...multipart('package', `${id}.${version}.nupkg`, file) };
}

function multipart(field: string, filename: string, content: Buffer): { body: Buffer; contentType: string } {
  const boundary = `----soak-${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A Sentry envelope as @sentry/node sends it (one error event). */
function envelope(eventId: string, n: number): Buffer {
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'node',
    level: 'error',
    environment: 'production',
    user: { id: `u-${n % 20}` },
    exception: {
      values: [
        {
          type: 'TypeError',
          value: `soak failure ${n % 8}`,
          stacktrace: { frames: [{ filename: '/srv/app/soak.js', module: 'soak', function: `step${n % 3}`, lineno: 10, colno: 2, in_app: true }] },
        },
      ],
    },
    sdk: { name: 'sentry.javascript.node', version: '10.78.0' },
  };
  return Buffer.from(`${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n{"type":"event"}\n${JSON.stringify(event)}`);
}

// ---------------------------------------------------------------- the run

interface World {
  projectId: number;
  sentryKey: string;
  runnerToken: string;
  schedules: { id: number; createdAtClock: number }[];
  /** Issues whose notes the load writes to (iid). */
  noteIssues: number[];
}

interface Acked {
  issues: { iid: number; title: string; via: 'A' | 'B' }[];
  notes: { iid: number; id: number; body: string; via: 'A' | 'B' }[];
  packages: { id: string; version: string; sha256: string; via: 'A' | 'B' }[];
  events: { eventId: string; via: 'A' | 'B' }[];
  pipelines: { id: number; via: 'A' | 'B' }[];
  finishedJobs: { id: number; via: 'A' | 'B' }[];
}

const acked: Acked = { issues: [], notes: [], packages: [], events: [], pipelines: [], finishedJobs: [] };

function pickKind(): Exclude<Kind, 'runner_finish'> {
  const total = WEIGHTS.reduce((s, [, w]) => s + w, 0);
  let r = Math.random() * total;
  for (const [k, w] of WEIGHTS) if ((r -= w) < 0) return k;
  return WEIGHTS[0]![0];
}

let counter = 0;
let rr = 0;

/** The next process to send to: each in turn, only those up. */
function target(procs: Proc[]): Proc {
  const up = procs.filter((p) => p.up);
  return up[rr++ % up.length]!;
}

const EXPECTED: Record<Kind, number[]> = {
  read_project: [200],
  read_issues: [200],
  create_issue: [201],
  create_note: [201],
  push_package: [201],
  sentry_envelope: [200],
  create_pipeline: [201],
  runner_request: [201, 204],
  runner_finish: [200],
};

/**
 * One request of a kind, timed and classified. Returns the reply, or null when there was
 * none (a connection error: in flight at the kill when sent to the generation killed).
 */
async function timed(kind: Kind, proc: Proc, send: () => Promise<Reply>): Promise<Reply | null> {
  const s = statsOf(kind);
  const generation = proc.generation;
  const t0 = performance.now();
  try {
    const r = await send();
    s.latencies.push(performance.now() - t0);
    if (r.status >= 500) {
      s.status5xx++;
      problem(`${kind} via ${proc.name}: ${r.status} ${r.text.slice(0, 300)}`);
      return null;
    }
    if (!EXPECTED[kind].includes(r.status)) {
      s.unexpected++;
      problem(`${kind} via ${proc.name}: unexpected ${r.status} ${r.text.slice(0, 300)}`);
      return null;
    }
    s.ok++;
    return r;
  } catch (err) {
    const killedThisOne = proc.generation === generation && proc.killedAt !== null && t0 <= proc.killedAt;
    const killedSince = proc.generation !== generation; // sent before a kill, the process restarted meanwhile
    if (killedThisOne || killedSince) s.inFlightAtKill++;
    else {
      s.connectionErrors++;
      problem(`${kind} via ${proc.name}: no answer: ${(err as Error).message}`);
    }
    return null;
  }
}

async function worker(procs: Proc[], world: World, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    const kind = pickKind();
    const n = ++counter;
    // Made before the process is chosen, so that no await separates the choice from the send.
    const pkg = kind === 'push_package' ? await packageUpload(n) : null;
    const proc = target(procs);
    const P = `/projects/${world.projectId}`;
    switch (kind) {
      case 'read_project':
        await timed(kind, proc, () => call(proc, 'GET', P));
        break;
      case 'read_issues':
        await timed(kind, proc, () => call(proc, 'GET', `${P}/issues?per_page=20`));
        break;
      case 'create_issue': {
        const title = `soak issue ${n} ${randomBytes(4).toString('hex')}`;
        const r = await timed(kind, proc, () => call(proc, 'POST', `${P}/issues`, { body: { title, description: 'made by the soak' } }));
        if (r) acked.issues.push({ iid: r.json.iid, title, via: proc.name });
        break;
      }
      case 'create_note': {
        const iid = world.noteIssues[n % world.noteIssues.length]!;
        const body = `soak note ${n} ${randomBytes(4).toString('hex')}`;
        const r = await timed(kind, proc, () => call(proc, 'POST', `${P}/issues/${iid}/notes`, { body: { body } }));
        if (r) acked.notes.push({ iid, id: r.json.id, body, via: proc.name });
        break;
      }
      case 'push_package': {
        const { id, version, sha256, body, contentType } = pkg!;
        const r = await timed(kind, proc, () => call(proc, 'PUT', `${P}/packages/nuget`, { raw: body, headers: { 'content-type': contentType } }));
        if (r) acked.packages.push({ id, version, sha256, via: proc.name });
        break;
      }
      case 'sentry_envelope': {
        const eventId = randomUUID().replace(/-/g, '');
        const r = await timed(kind, proc, () =>
          call(proc, 'POST', `/error_tracking/collector/api/${world.projectId}/envelope?sentry_key=${world.sentryKey}&sentry_version=7`, { raw: envelope(eventId, n), token: null }),
        );
        if (r) acked.events.push({ eventId, via: proc.name });
        break;
      }
      case 'create_pipeline': {
        const r = await timed(kind, proc, () => call(proc, 'POST', `${P}/pipeline?ref=main`));
        if (r) acked.pipelines.push({ id: r.json.id, via: proc.name });
        break;
      }
      case 'runner_request': {
        const r = await timed(kind, proc, () => call(proc, 'POST', '/jobs/request', { body: { token: world.runnerToken, info: { name: 'soak-runner', version: '17.0.0' } }, token: null }));
        if (r && r.status === 201) {
          const job = r.json as { id: number; token: string };
          // The runner reports through whichever process is next, as a load balancer would send it.
          const next = target(procs);
          const f = await timed('runner_finish', next, () => call(next, 'PUT', `/jobs/${job.id}`, { body: { token: job.token, state: 'success' }, token: null }));
          if (f) acked.finishedJobs.push({ id: job.id, via: next.name });
        }
        break;
      }
    }
  }
}

// ---------------------------------------------------------------- kill and restart

interface KillReport {
  victim: 'A' | 'B';
  /** performance.now() of the SIGKILL. */
  killedAt: number;
  atSecond: number;
  onFiring: string;
  downMs: number;
  restartMs: number;
}

/** The pid holding a schedule run job's lease right now, if any. */
async function scheduleLeaseHolder(db: pg.Client): Promise<number | null> {
  const r = await db.query(
    `select lease_owner from queue_jobs where kind = 'pipeline_schedules.run' and status = 'pending' and lease_owner is not null and lease_expires_at > $1 limit 1`,
    [new Date(clockNow()).toISOString()],
  );
  const owner = r.rows[0]?.lease_owner as string | undefined;
  const pid = owner ? Number(/^w-(\d+)-/.exec(owner)?.[1]) : NaN;
  return Number.isFinite(pid) ? pid : null;
}

async function killAndRestart(procs: Proc[], db: pg.Client, databaseUrl: string, loadStart: number): Promise<KillReport> {
  let victim = procs[1]!;
  let onFiring = 'no (SOAK_KILL_ON_FIRING=0)';
  if (KILL_ON_FIRING && SCHEDULES > 0) {
    // Wait for the next minute boundary, then for a process to hold a run job, and kill that one.
    const boundary = Math.ceil(clockNow() / MINUTE) * MINUTE;
    await sleep(Math.max(0, boundary - clockNow() - 5));
    const give = performance.now() + 5_000;
    let holder: number | null = null;
    while (holder === null && performance.now() < give) {
      holder = await scheduleLeaseHolder(db);
      if (holder === null) await sleep(1);
    }
    const held = procs.find((p) => p.child.pid === holder);
    if (held) {
      victim = held;
      onFiring = `yes: ${victim.name} held a schedule run job ${((clockNow() - boundary) / 1000).toFixed(3)} s after the ${new Date(boundary).toISOString().slice(11, 16)} boundary`;
    } else onFiring = 'no process held a schedule run job within 5 s of the boundary: killed B';
  }
  const atSecond = (performance.now() - loadStart) / 1000;
  victim.up = false;
  victim.killedAt = performance.now();
  const killed = performance.now();
  victim.child.kill('SIGKILL');
  await new Promise<void>((r) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? r() : victim.child.once('exit', () => r())));
  const oldPool = victim.pool;
  void oldPool.destroy().catch(() => {});
  const t0 = performance.now();
  await startProc(victim, databaseUrl);
  return { victim: victim.name, killedAt: killed, atSecond, onFiring, restartMs: performance.now() - t0, downMs: performance.now() - killed };
}

// ---------------------------------------------------------------- checks

interface Check {
  name: string;
  expected: number;
  actual: number;
  ok: boolean;
  detail?: string;
}

async function verify(procs: Proc[], world: World, loadEndClock: number, kill: KillReport): Promise<{ checks: Check[]; firings: { id: number; expected: number; actual: number; duplicates: number; missing: number; maxLateMs: number }[] }> {
  const checks: Check[] = [];
  const P = `/projects/${world.projectId}`;
  const add = (name: string, expected: number, actual: number, detail?: string) => checks.push({ name, expected, actual, ok: expected === actual, detail });

  for (const proc of procs) {
    const issues = new Map((await listAll(proc, `${P}/issues?sort=asc&order_by=created_at`)).map((i) => [i.iid as number, i.title as string]));
    add(`issues read back via ${proc.name}`, acked.issues.length, acked.issues.filter((i) => issues.get(i.iid) === i.title).length);
    const noteBodies = new Map<number, string>();
    for (const iid of world.noteIssues) for (const n of await listAll(proc, `${P}/issues/${iid}/notes`)) noteBodies.set(n.id, n.body);
    add(`notes read back via ${proc.name}`, acked.notes.length, acked.notes.filter((n) => noteBodies.get(n.id) === n.body).length);
    const versions = new Set((await listAll(proc, `${P}/packages?package_type=nuget`)).map((p) => `${p.name}@${p.version}`));
    add(`package versions listed via ${proc.name}`, acked.packages.length, acked.packages.filter((p) => versions.has(`${p.id}@${p.version}`)).length);
    const finished = new Map((await listAll(proc, `${P}/jobs`)).map((j) => [j.id as number, j.status as string]));
    add(`finished jobs shown success via ${proc.name}`, acked.finishedJobs.length, acked.finishedJobs.filter((j) => finished.get(j.id) === 'success').length);
    const pipelines = new Set((await listAll(proc, `${P}/pipelines`)).map((p) => p.id as number));
    add(`created pipelines listed via ${proc.name}`, acked.pipelines.length, acked.pipelines.filter((p) => pipelines.has(p.id)).length);
    const eventIds = new Set<string>();
    for (const e of await listAll(proc, `/forgelet${P}/error_tracking/errors`)) {
      for (const ev of await listAll(proc, `/forgelet${P}/error_tracking/errors/${e.id}/events`)) eventIds.add(ev.event_id);
    }
    const lost = acked.events.filter((e) => !eventIds.has(e.eventId));
    // The collector answers only once the events are committed (ingest-buffer.ts): none may be missing.
    add(`sentry events read back via ${proc.name}`, acked.events.length, acked.events.length - lost.length);
  }

  // Every package file, downloaded through the process that did not receive it: the blob store is shared.
  let same = 0;
  for (const p of acked.packages) {
    const other = procs.find((x) => x.name !== p.via)!;
    const res = await other.pool.request({
      path: `/api/v4${P}/packages/nuget/download/${p.id.toLowerCase()}/${p.version}/${p.id.toLowerCase()}.${p.version}.nupkg`,
      method: 'GET',
      headers: { 'PRIVATE-TOKEN': rootToken },
    });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    if (res.statusCode === 200 && createHash('sha256').update(bytes).digest('hex') === p.sha256) same++;
    else problem(`package ${p.id} ${p.version} (pushed via ${p.via}) via ${other.name}: ${res.statusCode} ${bytes.length} bytes`);
  }
  add('package files downloaded intact via the other process', acked.packages.length, same);

  // Schedules: one pipeline per minute boundary after the schedule was made, up to the end of the load.
  const firings = [];
  for (const s of world.schedules) {
    const expectedBoundaries: number[] = [];
    for (let b = Math.floor(s.createdAtClock / MINUTE) * MINUTE + MINUTE; b <= loadEndClock; b += MINUTE) expectedBoundaries.push(b);
    const pipelines = await listAll(procs[0]!, `${P}/pipeline_schedules/${s.id}/pipelines`);
    const perBoundary = new Map<number, number>();
    let maxLateMs = 0;
    for (const p of pipelines) {
      const at = Date.parse(p.created_at);
      const b = Math.floor(at / MINUTE) * MINUTE;
      if (b > loadEndClock) continue; // fired after the load: not counted
      perBoundary.set(b, (perBoundary.get(b) ?? 0) + 1);
      maxLateMs = Math.max(maxLateMs, at - b);
    }
    const duplicates = [...perBoundary.values()].reduce((sum, c) => sum + Math.max(0, c - 1), 0);
    const missing = expectedBoundaries.filter((b) => !perBoundary.has(b)).length;
    const stray = [...perBoundary.keys()].filter((b) => !expectedBoundaries.includes(b)).length;
    const actual = [...perBoundary.values()].reduce((sum, c) => sum + c, 0);
    firings.push({ id: s.id, expected: expectedBoundaries.length, actual, duplicates, missing, maxLateMs });
    add(`schedule ${s.id}: pipelines, one per minute boundary`, expectedBoundaries.length, duplicates || missing || stray ? -1 - duplicates - missing - stray : actual,
      duplicates || missing || stray ? `${duplicates} duplicated, ${missing} missing, ${stray} outside the window` : undefined);
  }
  return { checks, firings };
}

// ---------------------------------------------------------------- main

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}


async function main(): Promise<number> {
  if (!existsSync(join(ROOT, 'packages/cli/dist/main.js'))) throw new Error('the CLI is not built: run `npm run build` (npm run soak does)');
  const cleanups: (() => Promise<void>)[] = [];
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    let adminUrl = process.env.SOAK_DATABASE_URL;
    if (!adminUrl) {
      const { startCluster } = (await import(join(ROOT, 'scripts', 'pg-cluster.mjs'))) as { startCluster: () => Promise<{ url: string; stop: () => Promise<void> }> };
      const cluster = await startCluster();
      cleanups.unshift(() => cluster.stop());
      adminUrl = cluster.url;
    }
    const database = await createPgDatabase(adminUrl, 'forgelet_soak');
    cleanups.unshift(() => database.drop());
    const db = new pg.Client({ connectionString: database.url });
    db.on('error', () => {});

    const dirA = mkdtempSync(join(tmpdir(), 'forgelet-soak-a-'));
    const dirB = mkdtempSync(join(tmpdir(), 'forgelet-soak-b-'));
    if (!KEEP) cleanups.push(async () => [dirA, dirB].forEach((d) => rmSync(d, { recursive: true, force: true })));
    const blank = (name: 'A' | 'B', dataDir: string, port: number): Proc =>
      ({ name, port, dataDir, url: '', child: null as unknown as ChildProcess, pool: null as unknown as Pool, up: false, generation: 0, killedAt: null, starts: 0, stdoutLines: 0, stderr: '' });
    const procs = [blank('A', dirA, await freePort()), blank('B', dirB, await freePort())];
    cleanups.unshift(async () => {
      for (const p of procs) {
        await p.pool?.close().catch(() => {});
        if (p.child && p.child.exitCode === null && p.child.signalCode === null) {
          const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
          p.child.kill('SIGTERM');
          const t = setTimeout(() => p.child.kill('SIGKILL'), 15_000);
          await exited;
          clearTimeout(t);
        }
      }
    });
    // One first, so that it migrates the database alone; then the other.
    await startProc(procs[0]!, database.url);
    await startProc(procs[1]!, database.url);
    await db.connect();
    const [A, B] = procs as [Proc, Proc];

    // The world: a project with a CI file, error tracking, a runner, issues to note on.
    const project = await must(A, 'POST', '/projects', { name: 'soak', initialize_with_readme: false });
    const P = `/projects/${project.id}`;
    await must(A, 'POST', `${P}/repository/files/.gitlab-ci.yml`, { branch: 'main', content: 'build:\n  script: echo built\n', commit_message: 'ci' });
    const settings = await must(B, 'PUT', `${P}/error_tracking/settings?active=true&integrated=true`);
    const sentryKey = new URL(settings.gitlab_dsn).username;
    const runner = await must(A, 'POST', '/user/runners', { runner_type: 'project_type', project_id: project.id, description: 'soak runner' });
    const noteIssues: number[] = [];
    for (let i = 0; i < 8; i++) noteIssues.push((await must(i % 2 ? B : A, 'POST', `${P}/issues`, { title: `notes here ${i}` })).iid);
    acked.issues.push(...noteIssues.map((iid, i) => ({ iid, title: `notes here ${i}`, via: (i % 2 ? 'B' : 'A') as 'A' | 'B' })));

    // Test-only: shift both clocks so that a minute boundary falls FIRST_FIRING_AT s into the load.
    if (FIRST_FIRING_AT !== null) {
      const at = Date.now() + 1_000 + FIRST_FIRING_AT * 1000; // the load starts about a second from now
      clockShiftMs = Math.ceil(at / MINUTE) * MINUTE - at;
      await Promise.all(procs.map(setClock));
    }
    const schedules: World['schedules'] = [];
    for (let i = 0; i < SCHEDULES; i++) {
      const s = await must(i % 2 ? B : A, 'POST', `${P}/pipeline_schedules`, { description: `soak ${i}`, ref: 'main', cron: '* * * * *' });
      schedules.push({ id: s.id, createdAtClock: Date.parse(s.created_at) });
    }
    const world: World = { projectId: project.id, sentryKey, runnerToken: runner.token, schedules, noteIssues };

    log(`soak: ${SECONDS} s, ${CONNECTIONS} connections, 2 processes (${A.url}, ${B.url}), PostgreSQL ${new URL(database.url).host}, blobs: --blob-url ${BLOB_URL.replace(/\/\/[^@/]*@/, '//…@')}`);
    log(`soak: ${SCHEDULES} schedules (* * * * *), kill at ${(KILL_AT * 100).toFixed(0)} % of the run${KILL_ON_FIRING ? ', on the next firing' : ''}${FIRST_FIRING_AT !== null ? `; test mode: clocks ${(clockShiftMs / 1000).toFixed(1)} s ahead, first boundary ${FIRST_FIRING_AT} s into the load` : ''}`);

    const loadStart = performance.now();
    const deadline = loadStart + SECONDS * 1000;
    const workers = Array.from({ length: CONNECTIONS }, () => worker(procs, world, deadline));
    const rss: Record<string, number[]> = { A: [], B: [] };
    const sampler = setInterval(() => {
      for (const p of procs) if (p.up && p.child.pid) rss[p.name]!.push(memoryOf(p.child.pid)?.rssMb ?? NaN);
    }, 1000);
    await sleep(Math.max(0, loadStart + SECONDS * 1000 * KILL_AT - performance.now()));
    const kill = await killAndRestart(procs, db, database.url, loadStart);
    log(`soak: killed ${kill.victim} at ${kill.atSecond.toFixed(1)} s (on a firing: ${kill.onFiring}); restarted and ready in ${kill.restartMs.toFixed(0)} ms, down ${kill.downMs.toFixed(0)} ms`);
    await Promise.all(workers);
    clearInterval(sampler);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    const loadEndClock = clockNow();
    const endRss = procs.map((p) => ({ name: p.name, ...(memoryOf(p.child.pid!) ?? { rssMb: NaN, hwmMb: NaN }) }));

    // Firings of the last boundaries land; then everything is read back.
    await sleep(FIRING_GRACE_S * 1000);
    const { checks, firings } = await verify(procs, world, loadEndClock, kill);

    // ------------------------------------------------------------ figures
    log('');
    log(`kind              requests   req/s   p50 ms   p99 ms   5xx  other  in flight at kill  no answer`);
    let totals = { ok: 0, s5: 0, un: 0, inflight: 0, conn: 0 };
    for (const kind of ['read_project', 'read_issues', 'create_issue', 'create_note', 'push_package', 'sentry_envelope', 'create_pipeline', 'runner_request', 'runner_finish'] as Kind[]) {
      const s = statsOf(kind);
      const sorted = [...s.latencies].sort((a, b) => a - b);
      totals = { ok: totals.ok + s.ok, s5: totals.s5 + s.status5xx, un: totals.un + s.unexpected, inflight: totals.inflight + s.inFlightAtKill, conn: totals.conn + s.connectionErrors };
      log(
        `${kind.padEnd(17)} ${String(s.ok).padStart(8)} ${(s.ok / loadSeconds).toFixed(1).padStart(7)} ${percentile(sorted, 0.5).toFixed(1).padStart(8)} ${percentile(sorted, 0.99).toFixed(1).padStart(8)}` +
          ` ${String(s.status5xx).padStart(5)} ${String(s.unexpected).padStart(6)} ${String(s.inFlightAtKill).padStart(18)} ${String(s.connectionErrors).padStart(10)}`,
      );
    }
    log(`${'all'.padEnd(17)} ${String(totals.ok).padStart(8)} ${(totals.ok / loadSeconds).toFixed(1).padStart(7)} ${''.padStart(8)} ${''.padStart(8)} ${String(totals.s5).padStart(5)} ${String(totals.un).padStart(6)} ${String(totals.inflight).padStart(18)} ${String(totals.conn).padStart(10)}`);
    log('');
    log(`acknowledged writes: ${acked.issues.length} issues, ${acked.notes.length} notes, ${acked.packages.length} packages, ${acked.events.length} events, ${acked.pipelines.length} pipelines, ${acked.finishedJobs.length} jobs finished`);
    for (const c of checks) log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.actual} of ${c.expected}${c.detail ? ` (${c.detail})` : ''}`);
    for (const f of firings) log(`schedule ${f.id}: firings expected ${f.expected}, pipelines ${f.actual} (${f.duplicates} duplicated, ${f.missing} missing), latest ${(f.maxLateMs / 1000).toFixed(1)} s after its boundary`);
    const firingsExpected = firings.reduce((s, f) => s + f.expected, 0);
    const firingsActual = firings.reduce((s, f) => s + f.actual, 0);
    for (const p of endRss) {
      const samples = rss[p.name]!.filter(Number.isFinite);
      log(`process ${p.name}: RSS ${p.rssMb.toFixed(0)} MB at the end (peak ${p.hwmMb.toFixed(0)} MB since its last start; sampled max ${Math.max(...samples).toFixed(0)} MB), ${procs.find((x) => x.name === p.name)!.starts} start(s)`);
    }
    log('');
    const violations: string[] = [];
    if (totals.s5) violations.push(`${totals.s5} 5xx`);
    if (totals.un) violations.push(`${totals.un} unexpected statuses`);
    if (totals.conn) violations.push(`${totals.conn} requests without an answer outside the kill`);
    for (const c of checks) if (!c.ok) violations.push(`${c.name}: ${c.actual} of ${c.expected}${c.detail ? ` (${c.detail})` : ''}`);
    if (SCHEDULES > 0 && firingsExpected === 0) violations.push('no schedule firing fell inside the run: nothing shows exactly-once (run longer than a minute, or set SOAK_FIRST_FIRING_AT)');
    const lostWrites = new Map<string, number>();
    for (const c of checks) {
      if (c.name.startsWith('schedule')) continue;
      const what = c.name.replace(/ via [AB]$/, '');
      lostWrites.set(what, Math.max(lostWrites.get(what) ?? 0, c.expected - c.actual));
    }
    const lost = [...lostWrites.values()].reduce((sum, n) => sum + n, 0);
    log(
      `SOAK ${violations.length ? 'FAIL' : 'PASS'} seconds=${loadSeconds.toFixed(0)} requests=${totals.ok} rps=${(totals.ok / loadSeconds).toFixed(1)} 5xx=${totals.s5} unexpected=${totals.un} ` +
        `in_flight_at_kill=${totals.inflight} no_answer=${totals.conn} lost_writes=${lost} ` +
        `firings_expected=${firingsExpected} firings_actual=${firingsActual} killed=${kill.victim} restart_ms=${kill.restartMs.toFixed(0)}`,
    );
    for (const v of violations) log(`violation: ${v}`);
    for (const p of problems) log(`  ${p}`);
    await db.end().catch(() => {});
    return violations.length ? 1 : 0;
  } finally {
    for (const c of cleanups) await c().catch((err) => process.stderr.write(`soak cleanup: ${(err as Error).message}\n`));
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`soak: ${(err as Error).stack ?? err}\n`);
    process.exit(2);
  },
);
