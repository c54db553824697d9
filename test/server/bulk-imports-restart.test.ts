/**
 * A destination that stops mid-migration (one step claimed and never finished, as in a crash)
 * and starts again on the same database completes the migration once the lost step's lease
 * expires, without duplicate rows, and with source = fetched = imported.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startForgelet, type RunningForgelet } from '@forgelet/server';
import { bulkImportExportSettings } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from './http.js';

const ROOT = 'glpat-restartrootTOKEN0123456789';
const enc = encodeURIComponent;

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/api/v4${path}`, { method, headers: { 'PRIVATE-TOKEN': ROOT, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: bulk imports survive a destination restart`, () => {
    let src: TestForgelet;
    let db: { url: string; drop(): Promise<void> };
    let dir: string;
    let running: RunningForgelet | null = null;
    const key = randomBytes(32);

    const batchSize = bulkImportExportSettings.batchSize;
    before(async () => {
      // Small batches: every relation of more than two records is downloaded in several.
      bulkImportExportSettings.batchSize = 2;
      src = await startTestServer(dialect);
      const g = await createGroup(src, src.rootToken, { name: 'Src', path: 'src' });
      for (let i = 1; i <= 3; i++) expectStatus(await src.api('POST', `/groups/${g.id}/labels`, { body: { name: `l${i}`, color: '#112233' } }), 201);
      for (const name of ['p1', 'p2']) {
        const p = await createProject(src, src.rootToken, { name, path: name, namespace_id: g.id });
        for (let i = 1; i <= 3; i++) {
          const issue = await src.api('POST', `/projects/${p.id}/issues`, { body: { title: `${name} issue ${i}`, labels: 'l1' } });
          expectStatus(issue, 201);
          expectStatus(await src.api('POST', `/projects/${p.id}/issues/${issue.body.iid}/notes`, { body: { body: `note ${i}` } }), 201);
        }
      }
      dir = mkdtempSync(join(tmpdir(), 'forgelet-bi-'));
      db = dialect === 'sqlite' ? { url: join(dir, 'dst.db'), drop: async () => {} } : await createTestDatabaseUrl(dialect);
    });

    after(async () => {
      bulkImportExportSettings.batchSize = batchSize;
      await running?.stop();
      await src?.stop();
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('resumes after a crash and writes nothing twice', async () => {
      const first = await startForgelet({ databaseUrl: db.url, secretKey: key, rootToken: ROOT, allowLocalEgress: true, workers: false, testMode: true });
      running = first;
      expectStatus(await call(first.url, 'POST', '/groups', { name: 'Dest', path: 'dest' }) as any, 201);
      const start = await call(first.url, 'POST', '/bulk_imports', {
        configuration: { url: src.url, access_token: src.rootToken },
        entities: [{ source_type: 'group_entity', source_full_path: 'src', destination_slug: 'copy', destination_namespace: 'dest' }],
      });
      assert.equal(start.status, 201);
      const queue = first.forge.deps.queue;
      // Some steps run: the group, its subgroups and labels, the project entities appear.
      await queue.runDue(undefined, 8);
      const mid = await call(first.url, 'GET', `/bulk_imports/${start.body.id}`);
      assert.equal(mid.body.status, 'started');
      // The next step is claimed and the process dies before it ends.
      assert.ok(await queue.claim());
      first.forge.deps.queue.start = () => {};
      await first.server.close();
      running = null;

      const second = await startForgelet({ databaseUrl: db.url, secretKey: key, rootToken: ROOT, allowLocalEgress: true, testMode: true });
      running = second;
      // Past the lost step's lease (5 minutes).
      second.clock.set(new Date(Date.now() + 6 * 60_000));
      const until = Date.now() + 15_000;
      let status = '';
      while (Date.now() < until) {
        status = (await call(second.url, 'GET', `/bulk_imports/${start.body.id}`)).body.status;
        if (status === 'finished' || status === 'failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(status, 'finished');
      const entities = (await call(second.url, 'GET', `/bulk_imports/${start.body.id}/entities?sort=asc`)).body.sort((a: any, b: any) => a.destination_full_path.localeCompare(b.destination_full_path));
      assert.deepEqual(entities.map((e: any) => [e.destination_full_path, e.status, e.has_failures]), [
        ['dest/copy', 'finished', false],
        ['dest/copy/p1', 'finished', false],
        ['dest/copy/p2', 'finished', false],
      ]);
      for (const e of entities) for (const s of Object.values(e.stats) as any[]) assert.ok(s.source === s.fetched && s.fetched === s.imported, JSON.stringify(e.stats));
      assert.deepEqual(entities[1].stats.issues, { source: 3, fetched: 3, imported: 3 });
      assert.deepEqual(entities[0].stats.labels, { source: 3, fetched: 3, imported: 3 });
      // Batched downloads: two per relation of three records.
      const trackers = await second.forge.deps.db.selectFrom('bulk_import_trackers').selectAll().where('entity_id', '=', entities[1].id).where('relation', '=', 'issues').execute();
      assert.deepEqual(JSON.parse(trackers[0]!.cursor!), { batch: 3, batches: 2, batched: true });
      const labels = (await call(second.url, 'GET', `/groups/${enc('dest/copy')}/labels?per_page=100`)).body;
      assert.deepEqual(labels.map((l: any) => l.name), ['l1', 'l2', 'l3']);
      for (const p of ['p1', 'p2']) {
        const issues = (await call(second.url, 'GET', `/projects/${enc(`dest/copy/${p}`)}/issues?per_page=100&sort=asc`)).body;
        assert.deepEqual(issues.map((i: any) => [i.iid, i.title, i.labels]), [1, 2, 3].map((n) => [n, `${p} issue ${n}`, ['l1']]));
        const notes = (await call(second.url, 'GET', `/projects/${enc(`dest/copy/${p}`)}/issues/1/notes`)).body;
        assert.deepEqual(notes.map((n: any) => n.body), ['note 1']);
      }
      const dupProjects = await second.forge.deps.db.selectFrom('projects').select('id').where('path_with_namespace', 'like', 'dest/copy/%').execute();
      assert.equal(dupProjects.length, 2);
    });

    it('an entity still running after 24 hours ends as timeout', async () => {
      const f = running!;
      const restart = await f.forge.deps.queue.pause();
      const start = await call(f.url, 'POST', '/bulk_imports', {
        configuration: { url: src.url, access_token: src.rootToken },
        entities: [{ source_type: 'project_entity', source_full_path: 'src/p1', destination_slug: 'late', destination_namespace: 'dest' }],
      });
      assert.equal(start.status, 201);
      f.clock.set(new Date(f.clock.now().getTime() + 25 * 3600_000));
      await f.forge.deps.queue.runDue();
      restart();
      const m = await call(f.url, 'GET', `/bulk_imports/${start.body.id}`);
      assert.equal(m.body.status, 'timeout');
      assert.equal(m.body.has_failures, true);
      const [entity] = (await call(f.url, 'GET', `/bulk_imports/${start.body.id}/entities`)).body;
      assert.equal(entity.status, 'timeout');
      assert.equal(entity.project_id, null);
    });
  });
}
