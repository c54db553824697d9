/**
 * Target 5 of `npm run bench`: how long a named snapshot and a restore take (the test
 * harness, issue 16), in process through startForgelet's snapshot()/restore(), for
 *
 *   - a small state (root, a group, a project, a few issues), and
 *   - 10,000 issues (BENCH_SNAPSHOT_ISSUES) with a label each (10,000 label links),
 *
 * on SQLite (a data directory) and PostgreSQL (a throwaway database). A restore is timed
 * after a change (100 issues closed, 100 added), as a test suite would use it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { startForgelet, type RunningForgelet } from '@forgelet/server';

export interface SnapshotTimings {
  dialect: 'sqlite' | 'postgres';
  issues: number;
  seedMs: number;
  /** Medians over `runs`, in milliseconds. */
  smallSnapshotMs: number;
  smallRestoreMs: number;
  snapshotMs: number;
  restoreMs: number;
  resetMs: number;
  runs: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function time(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

async function api(f: RunningForgelet, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${f.url}/api/v4${path}`, {
    method,
    headers: { 'PRIVATE-TOKEN': f.rootToken!, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Issues and their label links, batched straight into the tables. */
async function seedIssues(f: RunningForgelet, projectId: number, labelId: number, authorId: number, from: number, count: number): Promise<void> {
  const db = f.forge.deps.db;
  const base = Date.parse('2024-01-01T00:00:00.000Z');
  await db.transaction().execute(async (trx) => {
    for (let start = from; start < from + count; start += 500) {
      const rows: { project_id: number; iid: number; title: string; description: string; state: string; author_id: number; created_at: string; updated_at: string }[] = [];
      for (let iid = start; iid < Math.min(start + 500, from + count); iid++) {
        const at = new Date(base + iid * 60_000).toISOString();
        rows.push({ project_id: projectId, iid, title: `Issue ${iid}`, description: `Seeded issue number ${iid}.`, state: 'opened', author_id: authorId, created_at: at, updated_at: at });
      }
      const ids = await trx.insertInto('issues').values(rows).returning('id').execute();
      await trx.insertInto('label_links').values(ids.map((r) => ({ label_id: labelId, target_type: 'Issue', target_id: r.id, created_at: rows[0]!.created_at }))).execute();
    }
    await trx
      .updateTable('internal_ids')
      .set({ last_value: from + count - 1 })
      .where('usage', '=', 'issues')
      .where('scope', '=', `project:${projectId}`)
      .execute();
  });
  if (f.forge.deps.dialect === 'postgres') await sql`analyze`.execute(db);
}

/** A change of the kind a test makes: 100 issues closed, 100 added. */
async function mutate(f: RunningForgelet, projectId: number, next: number): Promise<void> {
  const db = f.forge.deps.db;
  await db.updateTable('issues').set({ state: 'closed' }).where('project_id', '=', projectId).where('iid', '<=', 100).execute();
  const at = new Date().toISOString();
  const rows = Array.from({ length: 100 }, (_, i) => ({ project_id: projectId, iid: next + i, title: `Added ${i}`, description: null, state: 'opened', author_id: 1, created_at: at, updated_at: at }));
  await db.insertInto('issues').values(rows).execute();
}

export async function benchSnapshots(dialect: 'sqlite' | 'postgres', databaseUrl: string | undefined, issues: number, runs: number): Promise<SnapshotTimings> {
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-bench-snap-'));
  const f = await startForgelet({ dataDir: dir, databaseUrl, testMode: true, workers: false, rootToken: `glpat-bench-snap-${Date.now()}` });
  try {
    const group = await api(f, 'POST', '/groups', { name: 'Snap', path: 'snap' });
    const project = await api(f, 'POST', '/projects', { name: 'big', namespace_id: group.id });
    const label = await api(f, 'POST', `/projects/${project.id}/labels`, { name: 'bug', color: '#ff0000' });
    for (let i = 0; i < 3; i++) await api(f, 'POST', `/projects/${project.id}/issues`, { title: `Small ${i}`, labels: 'bug' });

    const small = { snap: [] as number[], restore: [] as number[] };
    for (let i = 0; i < runs; i++) {
      small.snap.push(await time(() => f.snapshot(`small-${i}`)));
      await api(f, 'POST', `/projects/${project.id}/issues`, { title: `Changed ${i}` });
      small.restore.push(await time(() => f.restore(`small-${i}`)));
    }

    const seedMs = await time(() => seedIssues(f, project.id, label.id, 1, 4, issues));
    const big = { snap: [] as number[], restore: [] as number[] };
    for (let i = 0; i < runs; i++) {
      big.snap.push(await time(() => f.snapshot(`big-${i}`)));
      await mutate(f, project.id, issues + 4);
      big.restore.push(await time(() => f.restore(`big-${i}`)));
    }
    const count = await f.forge.deps.db.selectFrom('issues').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    if (Number(count.n) !== issues + 3) throw new Error(`after the restores ${count.n} issues, expected ${issues + 3}`);
    const resetMs = await time(() => f.reset());
    return {
      dialect,
      issues,
      seedMs,
      smallSnapshotMs: median(small.snap),
      smallRestoreMs: median(small.restore),
      snapshotMs: median(big.snap),
      restoreMs: median(big.restore),
      resetMs,
      runs,
    };
  } finally {
    await f.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
