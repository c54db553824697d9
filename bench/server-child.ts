/**
 * The Forgelet under load, in its own process:
 *   node --conditions=source --import tsx bench/server-child.ts '<json config>'
 * Starts startForgelet on a data dir (SQLite) or a database URL, with a known root token;
 * seeds a private group `bench` holding N projects (batched inserts in one transaction
 * through forge.deps.db) and a non-admin Developer member with a token; prints
 * `READY <json>` and then obeys stdin lines:
 *   prof:start            start the in-process V8 CPU profiler
 *   prof:stop <file>      stop it, write <file>, answer `PROF <file>`
 *   mem [gc]              answer `MEM <json>` (process.memoryUsage, MB; after a full GC with `gc`)
 *   stop                  stop the server and exit 0
 * SIGTERM/SIGINT also stop it.
 *
 * Experiments (config.experiments; NOT the shipped code, to size proposed fixes):
 *   stmt-cache     cache better-sqlite3 prepared statements per SQL text (Kysely's SQLite
 *                  driver calls db.prepare() for every query)
 *   created-index  add an index on projects(namespace_id, created_at, id) after seeding
 */
import { profilerCommand } from './lib/child-profiler.js';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { startForgelet } from '@forgelet/server';
import { sql } from 'kysely';
import Database from 'better-sqlite3';

interface ChildConfig {
  dataDir: string;
  databaseUrl?: string;
  rootToken: string;
  /** Projects to seed in the `bench` group (0: none). */
  seedProjects: number;
  experiments?: string[];
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const experiments = new Set(config.experiments ?? []);

if (experiments.has('stmt-cache')) {
  // One prepared statement per SQL text and connection. Safe for Kysely's all()/run() use;
  // a statement being iterated (streamQuery) could not be reused concurrently.
  type Prepare = (this: object, source: string) => unknown;
  const proto = Database.prototype as unknown as { prepare: Prepare };
  const original = proto.prepare;
  const caches = new WeakMap<object, Map<string, unknown>>();
  proto.prepare = function (this: object, source: string) {
    let cache = caches.get(this);
    if (!cache) caches.set(this, (cache = new Map()));
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = original.call(this, source);
      if (cache.size < 2000) cache.set(source, stmt);
    }
    return stmt;
  };
}
const t0 = performance.now();
const running = await startForgelet({
  dataDir: config.dataDir,
  databaseUrl: config.databaseUrl,
  rootToken: config.rootToken,
  port: 0,
  host: '127.0.0.1',
});
const startMs = performance.now() - t0;

async function api(method: string, path: string, body?: unknown, token = config.rootToken): Promise<any> {
  const res = await fetch(`${running.url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': token, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const BATCH = 500;

async function seed(n: number) {
  const existing = await fetch(`${running.url}/api/v4/groups/bench`, { headers: { 'PRIVATE-TOKEN': config.rootToken } });
  if (existing.status === 200) return { group: (await existing.json()) as any, seeded: 0, ms: 0, memberToken: null as string | null, allVisible: null as string | null };
  const t = performance.now();
  const group = await api('POST', '/groups', { name: 'Bench', path: 'bench', visibility: 'private', description: 'benchmark group' });
  const user = await api('POST', '/users', { username: 'bench-dev', name: 'Bench Developer', email: 'bench-dev@example.com', skip_confirmation: true });
  const pat = await api('POST', `/users/${user.id}/personal_access_tokens`, { name: 'bench', scopes: ['api'] });
  await api('POST', `/groups/${group.id}/members`, { user_id: String(user.id), access_level: 30 });
  const root = await api('GET', '/user');
  const db = running.forge.deps.db;
  const base = Date.parse('2024-01-01T00:00:00.000Z');
  const postgres = running.forge.deps.dialect === 'postgres';
  await db.transaction().execute(async (trx) => {
    // Committed synchronously: VACUUM marks a page all-visible only once its inserter's commit
    // is flushed, and the throwaway cluster commits asynchronously (synchronous_commit off).
    if (postgres) await sql`set local synchronous_commit = on`.execute(trx);
    for (let from = 1; from <= n; from += BATCH) {
      const rows = [];
      for (let i = from; i < Math.min(from + BATCH, n + 1); i++) {
        const num = String(i).padStart(5, '0');
        const at = new Date(base + i * 60_000).toISOString();
        rows.push({
          namespace_id: group.id,
          name: `Project ${num}`,
          path: `project-${num}`,
          path_with_namespace: `${group.full_path}/project-${num}`,
          name_with_namespace: `${group.name} / Project ${num}`,
          description: `Benchmark project number ${num}, seeded directly into the database.`,
          visibility: 'private',
          default_branch: 'main',
          creator_id: root.id,
          archived: 0,
          topics: JSON.stringify(['bench', `t${i % 10}`]),
          issues_enabled: 1,
          merge_requests_enabled: 1,
          jobs_enabled: 1,
          wiki_enabled: 1,
          snippets_enabled: 1,
          created_at: at,
          updated_at: at,
          last_activity_at: at,
        });
      }
      await trx.insertInto('projects').values(rows).execute();
    }
  });
  if (experiments.has('created-index')) await sql`create index if not exists bench_projects_namespace_created on projects (namespace_id, created_at, id)`.execute(db);
  // PostgreSQL's autovacuum would vacuum and analyze the table soon after such a load (an
  // insert of 10,000 rows passes its insert threshold); do it now. The vacuum marks the pages
  // all-visible, so a deep page reads its ids from the index alone, as it would in a database
  // that has been up for a minute.
  let allVisible: string | null = null;
  if (postgres) {
    await sql`vacuum projects`.execute(db);
    await sql`analyze`.execute(db);
    const { rows } = await sql<{ relpages: number; relallvisible: number }>`select relpages, relallvisible from pg_class where relname = 'projects'`.execute(db);
    allVisible = `${rows[0]?.relallvisible} of ${rows[0]?.relpages} pages all-visible`;
  }
  return { group, seeded: n, ms: performance.now() - t, memberToken: pat.token as string, allVisible };
}

const seeded = config.seedProjects > 0 ? await seed(config.seedProjects) : null;
let sampleProjectIds: number[] = [];
if (seeded) {
  const rows = await running.forge.deps.db
    .selectFrom('projects')
    .select('id')
    .where('namespace_id', '=', seeded.group.id)
    .orderBy('id')
    .limit(200)
    .execute();
  sampleProjectIds = rows.map((r) => r.id);
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  void (async () => {
    const [cmd, arg] = line.trim().split(/\s+/, 2);
    if (await profilerCommand(cmd, arg)) {
      // done
    } else if (cmd === 'mem') {
      // `mem gc`: after a full collection (the child runs with --expose-gc), so what is retained.
      if (arg === 'gc') (globalThis as { gc?: () => void }).gc?.();
      const m = process.memoryUsage();
      const toMb = (n: number) => Math.round((n / 1048576) * 10) / 10;
      process.stdout.write(`MEM ${JSON.stringify({ rss: toMb(m.rss), heapTotal: toMb(m.heapTotal), heapUsed: toMb(m.heapUsed), external: toMb(m.external) })}\n`);
    } else if (cmd === 'iids' && arg) {
      // The issues of a project: how many, how many distinct iids, the lowest and highest.
      const row = await running.forge.deps.db
        .selectFrom('issues')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('iid').distinct().as('distinct'), eb.fn.min('iid').as('min'), eb.fn.max('iid').as('max')])
        .where('project_id', '=', Number(arg))
        .executeTakeFirstOrThrow();
      process.stdout.write(`IIDS ${JSON.stringify({ n: Number(row.n), distinct: Number(row.distinct), min: Number(row.min), max: Number(row.max) })}\n`);
    } else if (cmd === 'stop') {
      await shutdown();
    }
  })().catch((err) => process.stderr.write(`server-child: ${String(err)}\n`));
});
rl.on('close', () => void shutdown());

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await running.stop().catch(() => {});
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

process.stdout.write(
  `READY ${JSON.stringify({
    url: running.url,
    pid: process.pid,
    dialect: running.forge.deps.dialect,
    startMs,
    seeded: seeded?.seeded ?? 0,
    seedMs: seeded?.ms ?? 0,
    allVisible: seeded?.allVisible ?? null,
    groupId: seeded?.group.id ?? null,
    memberToken: seeded?.memberToken ?? null,
    sampleProjectIds,
  })}\n`,
);
