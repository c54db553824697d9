/**
 * Forgelet performance report (`npm run bench`). Every number is a ratio against a baseline
 * measured in the same run on the same machine, or an absolute budget:
 *
 *  1. GET /api/v4/projects/:id (PRIVATE-TOKEN) req/s vs a bare node:http server answering
 *     a similar JSON body (target ≥ 0.30).
 *  2. GET /api/v4/groups/:id/projects?per_page=100 over a 10,000-project group vs the bare
 *     server answering 100 similar objects (≥ 0.10); last page (page=100) vs first page
 *     latency (≤ 2×).
 *  3. Spawn-to-first-answer of `forgelet serve` (median of 5; fresh and existing data dir;
 *     < 300 ms on SQLite). Falls back to the built server package when the CLI isn't built.
 *  4. RSS of the served process after startup and after load (< 100 MB).
 *
 * Servers under test run in child processes; the load generator (bench/lib/load.ts) runs
 * here. Always exits 0: it is a report, not a test.
 *
 * Env: BENCH_SECONDS (measured seconds per run, default 5), BENCH_WARMUP_SECONDS (3),
 * BENCH_CONNECTIONS (16), BENCH_PROJECTS (10000), BENCH_STARTUP_RUNS (5),
 * BENCH_SETTLE_SECONDS (30: V8's memory reducer needs idle seconds before it shrinks the
 * heap), BENCH_DATABASE_URL (postgres://… — a throwaway database is created in it and
 * dropped), BENCH_CPU_PROF=1 (extra profiled runs; top frames printed; profiles kept in
 * bench/.profiles), BENCH_CLIENT=undici|http, BENCH_ONLY=1,2,3,4 (subset of targets),
 * BENCH_EXPERIMENTS=stmt-cache,created-index (targets 1-2 only; see bench/server-child.ts;
 * sizes proposed fixes without changing the shipped code), BENCH_SERVE_NODE_FLAGS (extra
 * node flags for the serve process of targets 3-4, e.g. --max-semi-space-size=2).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarizeProfile } from './lib/cpuprofile.js';
import { describeLoad, runLoad, type LoadResult } from './lib/load.js';
import { BENCH_DIR, freePort, getOnce, memoryOf, ROOT, sleep, spawnLines, stopChild, track, tsxArgs, type LineChild, type Mem } from './lib/proc.js';
import { spawn, type ChildProcess } from 'node:child_process';

// ---------------------------------------------------------------- settings

const num = (v: string | undefined, d: number) => (v !== undefined && v !== '' && Number.isFinite(Number(v)) ? Number(v) : d);
const SECONDS = num(process.env.BENCH_SECONDS, 5);
const WARMUP = num(process.env.BENCH_WARMUP_SECONDS, 3);
const CONNECTIONS = num(process.env.BENCH_CONNECTIONS, 16);
const PROJECTS = num(process.env.BENCH_PROJECTS, 10_000);
const STARTUP_RUNS = num(process.env.BENCH_STARTUP_RUNS, 5);
const SETTLE = num(process.env.BENCH_SETTLE_SECONDS, 30);
const EXPERIMENTS = (process.env.BENCH_EXPERIMENTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const SERVE_NODE_FLAGS = (process.env.BENCH_SERVE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const PROFILE = process.env.BENCH_CPU_PROF === '1';
const ONLY = new Set((process.env.BENCH_ONLY ?? '1,2,3,4').split(',').map((s) => s.trim()));
const ROOT_TOKEN = `glpat-bench-${randomBytes(8).toString('hex')}`;
const PER_PAGE = 100;
const LAST_PAGE = Math.max(1, Math.ceil(PROJECTS / PER_PAGE));

// ---------------------------------------------------------------- reporting

type Status = 'PASS' | 'FAIL' | 'SKIP';
const results: { name: string; status: Status }[] = [];
const context: string[] = [];

function result(name: string, value: string, target: string, status: Status) {
  results.push({ name, status });
  console.log(`${name}: ${value} (target ${target}) ${status}`);
}
const info = (line: string) => console.log(`  ${line}`);
const section = (title: string) => console.log(`\n== ${title}`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mb = (m: Mem | null) => (m ? `${m.rssMb.toFixed(1)} MB (peak ${m.hwmMb.toFixed(1)} MB)` : 'n/a');

// ---------------------------------------------------------------- children

interface ForgeletChildInfo {
  url: string;
  pid: number;
  dialect: string;
  startMs: number;
  seeded: number;
  seedMs: number;
  groupId: number | null;
  memberToken: string | null;
  sampleProjectIds: number[];
}

async function startForgeletChild(dataDir: string, databaseUrl: string | undefined, seedProjects: number, experiments: string[] = []) {
  const proc = spawnLines(process.execPath, tsxArgs(join(BENCH_DIR, 'server-child.ts')).concat(
    JSON.stringify({ dataDir, databaseUrl, rootToken: ROOT_TOKEN, seedProjects, experiments }),
  ));
  const ready = JSON.parse(await proc.waitLine('READY ', 300_000)) as ForgeletChildInfo;
  return { proc, ready };
}

async function stopLineChild(proc: LineChild) {
  const exited = new Promise<void>((r) => (proc.child.exitCode !== null ? r() : proc.child.once('exit', () => r())));
  try {
    proc.send('stop');
  } catch {
    /* already gone */
  }
  const t = setTimeout(() => proc.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(t);
}

/** Runs an extra, unmeasured load against the Forgelet child with the CPU profiler on. */
async function profiled(proc: LineChild, label: string, profDir: string, load: () => Promise<LoadResult>) {
  const file = join(profDir, `${label}.cpuprofile`);
  proc.send('prof:start');
  await proc.waitLine('PROFSTARTED');
  const r = await load();
  proc.send(`prof:stop ${file}`);
  await proc.waitLine('PROF ');
  console.log(`\n-- CPU profile: ${label} (profiled run: ${describeLoad(r)})`);
  console.log(summarizeProfile(file).text);
}

// ---------------------------------------------------------------- PostgreSQL

async function createPgDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const pg = (await import('pg')).default;
  const name = `forgelet_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  admin.on('error', () => {});
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: adminUrl });
      c.on('error', () => {});
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

// ---------------------------------------------------------------- serve (targets 3 and 4)

interface ServeMode {
  label: string;
  command(port: number, dataDir: string): string[];
}

function serveMode(): { mode: ServeMode | null; skipReason: string | null } {
  const cliBin = join(ROOT, 'bin', 'forgelet.js');
  const cliDist = join(ROOT, 'packages', 'cli', 'dist');
  const missing = [!existsSync(cliBin) && 'bin/forgelet.js', !existsSync(cliDist) && 'packages/cli/dist'].filter(Boolean);
  if (missing.length === 0) {
    return { mode: { label: 'CLI: node bin/forgelet.js serve', command: (port, dir) => [cliBin, 'serve', '--port', String(port), '--data', dir] }, skipReason: null };
  }
  const skipReason = `${missing.join(' and ')} missing`;
  const serverDist = join(ROOT, 'packages', 'server', 'dist', 'index.js');
  const coreDist = join(ROOT, 'packages', 'core', 'dist', 'index.js');
  if (existsSync(serverDist) && existsSync(coreDist)) {
    return {
      mode: { label: 'FALLBACK (not the CLI): node bench/serve-dist.mjs, startForgelet from packages/server/dist', command: (port, dir) => [join(BENCH_DIR, 'serve-dist.mjs'), '--port', String(port), '--data', dir] },
      skipReason,
    };
  }
  return { mode: null, skipReason: `${skipReason}; packages/server/dist or packages/core/dist missing too (run npm run build)` };
}

/** Polls tightly until GET /-/readiness answers 200 (or /api/v4/version answers, when readiness is 404). */
async function pollReady(port: number, child: ChildProcess, timeoutMs = 30_000): Promise<{ path: string; status: number }> {
  const deadline = performance.now() + timeoutMs;
  let path = '/-/readiness';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`serve process exited (${child.signalCode ?? child.exitCode}) before answering`);
    if (performance.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`);
    try {
      const r = await getOnce(`http://127.0.0.1:${port}${path}`, path.startsWith('/api') ? { 'PRIVATE-TOKEN': ROOT_TOKEN } : {}, 1000);
      if (r.status === 200) return { path, status: r.status };
      if (r.status === 404 && path === '/-/readiness') path = '/api/v4/version';
      else if (path === '/api/v4/version' && r.status < 500) return { path, status: r.status };
    } catch {
      /* not listening yet */
    }
    await sleep(2);
  }
}

interface ServeRun {
  child: ChildProcess;
  port: number;
  ms: number;
  answeredBy: string;
  output: () => string;
}

async function spawnServe(mode: ServeMode, dataDir: string): Promise<ServeRun> {
  const port = await freePort();
  let output = '';
  const t0 = performance.now();
  const child = track(spawn(process.execPath, [...SERVE_NODE_FLAGS, ...mode.command(port, dataDir)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }));
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4096)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4096)));
  try {
    const r = await pollReady(port, child);
    return { child, port, ms: performance.now() - t0, answeredBy: `${r.path} ${r.status}`, output: () => output };
  } catch (err) {
    await stopChild(child, 'SIGKILL');
    throw new Error(`${(err as Error).message}\n${output}`);
  }
}

/** The spawned process and its descendants (in case the CLI forks a server process). */
function treeMemory(pid: number): { mem: Mem | null; pids: number[] } {
  const pids: number[] = [];
  const walk = (p: number) => {
    pids.push(p);
    try {
      for (const t of readdirSync(`/proc/${p}/task`)) {
        const kids = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        for (const k of kids ? kids.split(/\s+/).map(Number) : []) walk(k);
      }
    } catch {
      /* gone */
    }
  };
  walk(pid);
  let rss = 0;
  let hwm = 0;
  let any = false;
  for (const p of pids) {
    const m = memoryOf(p);
    if (m) {
      any = true;
      rss += m.rssMb;
      hwm += m.hwmMb;
    }
  }
  return { mem: any ? { rssMb: rss, hwmMb: hwm } : null, pids };
}

/** Startup floor: a bare node process that listens and answers, spawned the same way. */
async function nodeFloorMs(): Promise<number> {
  const script =
    "require('http').createServer((q,s)=>s.end('ok')).listen(+process.argv[1],'127.0.0.1');process.on('SIGTERM',()=>process.exit(0))";
  const times: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    const port = await freePort();
    const t0 = performance.now();
    const child = track(spawn(process.execPath, ['-e', script, String(port)], { stdio: 'ignore' }));
    await pollReady(port, child).catch(() => {});
    times.push(performance.now() - t0);
    await stopChild(child);
  }
  return median(times);
}

// ---------------------------------------------------------------- main

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'forgelet-bench-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(work, { recursive: true, force: true })];
  try {
    console.log('Forgelet benchmark');
    info(`node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), load: ${CONNECTIONS} connections, ${WARMUP}s warmup + ${SECONDS}s measured per run`);
    const la = loadavg();
    info(`machine load average at start: ${la.map((x) => x.toFixed(2)).join(' ')}${la[0]! > availableParallelism() / 2 ? '  — WARNING: other work is running; absolute numbers are depressed and noisy' : ''}`);
    if (EXPERIMENTS.length) info(`EXPERIMENTS ACTIVE for targets 1-2 (not the shipped code): ${EXPERIMENTS.join(', ')}`);
    if (SERVE_NODE_FLAGS.length) info(`extra node flags for the serve process (targets 3-4): ${SERVE_NODE_FLAGS.join(' ')}`);

    // Database for targets 1 and 2.
    let databaseUrl: string | undefined;
    let dbLabel = 'SQLite (file in a temp data dir, WAL)';
    if (process.env.BENCH_DATABASE_URL) {
      try {
        const pgdb = await createPgDatabase(process.env.BENCH_DATABASE_URL);
        databaseUrl = pgdb.url;
        cleanups.push(() => pgdb.drop().catch((e) => console.log(`  (could not drop ${pgdb.url}: ${e})`)));
        dbLabel = `PostgreSQL (throwaway database ${new URL(pgdb.url).pathname.slice(1)} on ${new URL(pgdb.url).host})`;
      } catch (err) {
        dbLabel = `SQLite — BENCH_DATABASE_URL was set but unusable: ${(err as Error).message}`;
      }
    }
    info(`database for targets 1-2: ${dbLabel}`);
    context.push(`db=${databaseUrl ? 'postgres' : 'sqlite'}`);
    if (EXPERIMENTS.length) context.push(`experiments=${EXPERIMENTS.join('+')}`);

    const mainDir = join(work, 'main');
    mkdirSync(mainDir);
    let seededSqliteDir: string | null = null;

    if (ONLY.has('1') || ONLY.has('2')) {
      section('Starting servers');
      const { proc: fl, ready } = await startForgeletChild(mainDir, databaseUrl, PROJECTS, EXPERIMENTS);
      info(`forgelet child pid ${ready.pid} at ${ready.url} (${ready.dialect}); startForgelet ${ready.startMs.toFixed(0)} ms; seeded ${ready.seeded} projects in ${ready.seedMs.toFixed(0)} ms`);
      if (ready.dialect === 'sqlite') seededSqliteDir = mainDir;
      const auth = { 'PRIVATE-TOKEN': ROOT_TOKEN };
      const memberAuth = { 'PRIVATE-TOKEN': ready.memberToken ?? '' };
      const projectPaths = ready.sampleProjectIds.slice(0, 100).map((id) => `/api/v4/projects/${id}`);
      const listPath = (page: number) => `/api/v4/groups/${ready.groupId}/projects?per_page=${PER_PAGE}&page=${page}`;

      // Templates for the bare server: Forgelet's own answers.
      const one = await getOnce(`${ready.url}${projectPaths[0]}`, auth);
      const page = await getOnce(`${ready.url}${listPath(1)}`, auth);
      if (one.status !== 200 || page.status !== 200) throw new Error(`sample requests failed: ${one.status} ${one.body.slice(0, 200)} / ${page.status} ${page.body.slice(0, 200)}`);
      const pageItems = JSON.parse(page.body) as unknown[];
      info(`sample bodies: project ${one.body.length} B, page of ${pageItems.length} projects ${page.body.length} B`);
      const templatesFile = join(work, 'templates.json');
      writeFileSync(templatesFile, JSON.stringify({ project: JSON.parse(one.body), page: pageItems }));
      const bare = spawnLines(process.execPath, tsxArgs(join(BENCH_DIR, 'bare-child.ts')).concat(templatesFile));
      const bareReady = JSON.parse(await bare.waitLine('READY ')) as { url: string; pid: number };
      info(`bare node:http child pid ${bareReady.pid} at ${bareReady.url}`);

      const load = (origin: string, paths: string[], headers: Record<string, string> = {}, o: Partial<{ connections: number; seconds: number; warmup: number }> = {}) =>
        runLoad({ origin, paths, headers, connections: o.connections ?? CONNECTIONS, seconds: o.seconds ?? SECONDS, warmupSeconds: o.warmup ?? WARMUP });

      if (ONLY.has('1')) {
        section('1. GET /api/v4/projects/:id vs bare node:http (one project entity)');
        const b = await load(bareReady.url, ['/project']);
        info(`bare:     ${describeLoad(b)}`);
        const f = await load(ready.url, projectPaths, auth);
        info(`forgelet: ${describeLoad(f)} [root/admin token]`);
        const m = await load(ready.url, projectPaths, memberAuth);
        info(`forgelet: ${describeLoad(m)} [non-admin group Developer token, informational]`);
        const ratio = f.rps / b.rps;
        result('project_get_rps_ratio', `${ratio.toFixed(3)} (${f.rps.toFixed(0)} / ${b.rps.toFixed(0)} req/s)`, '≥ 0.30', f.errors === 0 && ratio >= 0.3 ? 'PASS' : 'FAIL');
      }

      if (ONLY.has('2')) {
        section(`2. GET /api/v4/groups/:id/projects?per_page=100 over ${ready.seeded || PROJECTS} projects vs bare node:http (100 entities)`);
        const b = await load(bareReady.url, ['/projects']);
        info(`bare:     ${describeLoad(b)}`);
        const f = await load(ready.url, [listPath(1)], auth);
        info(`forgelet: ${describeLoad(f)} [page 1, root/admin token]`);
        const m = await load(ready.url, [listPath(1)], memberAuth);
        info(`forgelet: ${describeLoad(m)} [page 1, non-admin group Developer token, informational]`);
        const ratio = f.rps / b.rps;
        result('group_projects_rps_ratio', `${ratio.toFixed(3)} (${f.rps.toFixed(0)} / ${b.rps.toFixed(0)} req/s)`, '≥ 0.10', f.errors === 0 && ratio >= 0.1 ? 'PASS' : 'FAIL');

        // Latency without queueing: one connection, sequential requests.
        const probe = { connections: 1, warmup: Math.min(1, WARMUP), seconds: Math.max(1, SECONDS / 2) };
        const first = await load(ready.url, [listPath(1)], auth, probe);
        const last = await load(ready.url, [listPath(LAST_PAGE)], auth, probe);
        info(`page 1:   ${describeLoad(first)}`);
        info(`page ${LAST_PAGE}: ${describeLoad(last)}`);
        const mFirst = await load(ready.url, [listPath(1)], memberAuth, probe);
        const mLast = await load(ready.url, [listPath(LAST_PAGE)], memberAuth, probe);
        info(`page 1   [non-admin, informational]: ${describeLoad(mFirst)}`);
        info(`page ${LAST_PAGE} [non-admin, informational]: ${describeLoad(mLast)}`);
        const lr = last.latencyMs.p50 / first.latencyMs.p50;
        result(
          'group_projects_last_vs_first_latency',
          `${lr.toFixed(2)}× (p50 page ${LAST_PAGE} ${last.latencyMs.p50.toFixed(2)} ms / page 1 ${first.latencyMs.p50.toFixed(2)} ms)`,
          '≤ 2×',
          last.errors === 0 && first.errors === 0 && lr <= 2 ? 'PASS' : 'FAIL',
        );
      }

      fl.send('mem');
      const heap = await fl.waitLine('MEM ', 10_000).catch(() => 'n/a');
      info('');
      info(`forgelet child (tsx, sources) after the load: RSS ${mb(memoryOf(ready.pid))}; V8 (MB) ${heap}`);

      if (PROFILE) {
        const profDir = join(ROOT, 'bench', '.profiles');
        mkdirSync(profDir, { recursive: true });
        const o = { warmup: 0 };
        if (ONLY.has('1')) await profiled(fl, 'project-get', profDir, () => load(ready.url, projectPaths, auth, o));
        if (ONLY.has('2')) {
          await profiled(fl, 'group-projects-page1', profDir, () => load(ready.url, [listPath(1)], auth, o));
          await profiled(fl, `group-projects-page${LAST_PAGE}`, profDir, () => load(ready.url, [listPath(LAST_PAGE)], auth, { ...o, connections: 1 }));
        }
      }
      await stopChild(bare.child);
      await stopLineChild(fl);
    }

    if (!ONLY.has('3') && !ONLY.has('4')) return;

    const { mode, skipReason } = serveMode();
    if (skipReason) console.log(`\nSKIP forgelet serve via the CLI: ${skipReason} (another engineer is writing the CLI)`);
    if (!mode) {
      if (ONLY.has('3')) result('serve_startup_ms_fresh', 'n/a', '< 300 ms', 'SKIP');
      if (ONLY.has('3')) result('serve_startup_ms_existing', 'n/a', '< 300 ms', 'SKIP');
      if (ONLY.has('4')) result('idle_rss_after_startup_mb', 'n/a', '< 100 MB', 'SKIP');
      if (ONLY.has('4')) result('idle_rss_after_load_mb', 'n/a', '< 100 MB', 'SKIP');
      return;
    }
    const tag = mode.label.startsWith('CLI') ? '' : ' [fallback: server dist]';
    context.push(`serve=${mode.label.startsWith('CLI') ? 'cli' : 'fallback-dist'}`);

    // An existing SQLite data dir holding the seeded group.
    if (!seededSqliteDir) {
      const dir = join(work, 'seeded');
      mkdirSync(dir);
      const { proc, ready } = await startForgeletChild(dir, undefined, PROJECTS);
      info(`seeded SQLite data dir for the serve runs: ${ready.seeded} projects in ${ready.seedMs.toFixed(0)} ms`);
      await stopLineChild(proc);
      seededSqliteDir = dir;
    }

    if (ONLY.has('3')) {
      section(`3. Spawn → first answer of forgelet serve (SQLite), ${STARTUP_RUNS} runs each — ${mode.label}`);
      info(`floor: bare node process listening and answering: median ${(await nodeFloorMs()).toFixed(0)} ms`);
      for (const kind of ['fresh', 'existing'] as const) {
        const times: number[] = [];
        let answeredBy = '';
        let error: string | null = null;
        for (let i = 0; i < STARTUP_RUNS; i++) {
          const dir = kind === 'fresh' ? join(work, `fresh-${i}`) : seededSqliteDir;
          if (kind === 'fresh') mkdirSync(dir);
          try {
            const run = await spawnServe(mode, dir);
            times.push(run.ms);
            answeredBy = run.answeredBy;
            await stopChild(run.child);
          } catch (err) {
            error = (err as Error).message;
            break;
          }
        }
        if (error) {
          info(`${kind}: error: ${error}`);
          result(`serve_startup_ms_${kind}${tag}`, 'error', '< 300 ms', 'FAIL');
          continue;
        }
        const label = kind === 'fresh' ? 'fresh (empty) data dir' : `existing data dir (${PROJECTS} projects)`;
        info(`${label}: ${times.map((t) => t.toFixed(0)).join(', ')} ms (answered by ${answeredBy})`);
        const med = median(times);
        result(`serve_startup_ms_${kind}${tag}`, `${med.toFixed(0)} ms median`, '< 300 ms', med < 300 ? 'PASS' : 'FAIL');
      }
    }

    if (ONLY.has('4')) {
      section(`4. Idle RSS of the served process (existing data dir, ${PROJECTS} projects) — ${mode.label}`);
      let run: ServeRun;
      try {
        run = await spawnServe(mode, seededSqliteDir);
      } catch (err) {
        info(`error: ${(err as Error).message}`);
        result(`idle_rss_after_startup_mb${tag}`, 'error', '< 100 MB', 'FAIL');
        return;
      }
      await sleep(1000);
      const afterStart = treeMemory(run.child.pid!);
      if (afterStart.pids.length > 1) info(`note: the serve process has children; summing RSS of pids ${afterStart.pids.join(', ')}`);
      result(`idle_rss_after_startup_mb${tag}`, mb(afterStart.mem), '< 100 MB', afterStart.mem && afterStart.mem.rssMb < 100 ? 'PASS' : 'FAIL');
      // The same load as above, against this process.
      const origin = `http://127.0.0.1:${run.port}`;
      const auth = { 'PRIVATE-TOKEN': ROOT_TOKEN };
      const groups = await getOnce(`${origin}/api/v4/groups/bench`, auth);
      const groupId = groups.status === 200 ? (JSON.parse(groups.body) as { id: number }).id : null;
      const proj = await getOnce(`${origin}/api/v4/groups/${groupId}/projects?per_page=100`, auth);
      const ids = proj.status === 200 ? (JSON.parse(proj.body) as { id: number }[]).map((p) => p.id) : [];
      if (groupId === null || ids.length === 0) info(`warning: could not find the seeded group through the served process (${groups.status} / ${proj.status})`);
      const o = { origin, headers: auth, connections: CONNECTIONS, warmupSeconds: Math.min(1, WARMUP), seconds: SECONDS };
      const l1 = await runLoad({ ...o, paths: ids.map((id) => `/api/v4/projects/${id}`) });
      info(`load GET /projects/:id: ${describeLoad(l1)}`);
      const l2 = await runLoad({ ...o, paths: [`/api/v4/groups/${groupId}/projects?per_page=100&page=1`] });
      info(`load group page 1:      ${describeLoad(l2)}`);
      const l3 = await runLoad({ ...o, paths: [`/api/v4/groups/${groupId}/projects?per_page=100&page=${LAST_PAGE}`] });
      info(`load group page ${LAST_PAGE}:    ${describeLoad(l3)}`);
      const samples: string[] = [`+0s ${treeMemory(run.child.pid!).mem?.rssMb.toFixed(1)}`];
      for (let t = 1; t <= SETTLE; t++) {
        await sleep(1000);
        if (t % 5 === 0 || t === SETTLE) samples.push(`+${t}s ${treeMemory(run.child.pid!).mem?.rssMb.toFixed(1)}`);
      }
      info(`RSS (MB) while settling after the load: ${samples.join(', ')}`);
      const settled = treeMemory(run.child.pid!);
      result(`idle_rss_after_load_mb${tag}`, `${mb(settled.mem)} after ${SETTLE}s idle`, '< 100 MB', settled.mem && settled.mem.rssMb < 100 ? 'PASS' : 'FAIL');
      await stopChild(run.child);
    }
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}

const started = performance.now();
try {
  await main();
} catch (err) {
  console.log(`\nbench error: ${err instanceof Error ? err.stack : String(err)}`);
  results.push({ name: 'bench', status: 'FAIL' });
}
const count = (s: Status) => results.filter((r) => r.status === s).length;
const failed = results.filter((r) => r.status === 'FAIL').map((r) => r.name);
const la = loadavg();
console.log(`\nmachine load average at end: ${la.map((x) => x.toFixed(2)).join(' ')}`);
console.log(
  `\nSUMMARY: ${count('PASS')} PASS, ${count('FAIL')} FAIL, ${count('SKIP')} SKIP of ${results.length}` +
    `${failed.length ? ` (failed: ${failed.join(', ')})` : ''}; ${context.join(', ')}; in ${((performance.now() - started) / 1000).toFixed(0)}s`,
);
process.exit(0);
