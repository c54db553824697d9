/**
 * Outbound calls from the product users run: `bin/forgelet.js serve` started, stopped and
 * started again on the same data directory (every start after the first runs server and core
 * from the V8 code cache), then a direct transfer between two served instances and a flow
 * callback delivered to a local receiver. On Node 20 a script restored from a code cache had
 * no dynamic import callback, so every outbound call failed from the second start on while
 * every in-process test passed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DIALECTS, createTestDatabaseUrl } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

const SIGNING = `whsec_${randomBytes(32).toString('base64')}`;

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: outbound calls of the served binary after a restart`, () => {
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let source: ServedForgelet;
    let dest: ServedForgelet;
    const hits: { headers: IncomingHttpHeaders; body: string }[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.end('ok');
      });
    });

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-restart-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
      // The destination: started once, stopped, started again on the same data and database.
      const first = await startServed(dialect, { dataDir, databaseUrl: db.url, testMode: false });
      assert.equal((await first.api('GET', '/version')).status, 200);
      await first.stop();
      dest = await startServed(dialect, { dataDir, databaseUrl: db.url, testMode: false });
      source = await startServed(dialect, { testMode: false });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    });
    after(async () => {
      await Promise.all([dest?.stop(), source?.stop()]);
      await new Promise<void>((r) => receiver.close(() => r()));
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('both starts load the runtime from the code cache', () => {
      assert.equal(dest.runtime, 'bundle, cached');
      assert.equal(source.runtime, 'bundle, cached');
    });

    it('migrates a group with its project and issues from another served instance', async () => {
      const group = await source.api('POST', '/groups', { body: { name: 'Src', path: 'src' } });
      assert.equal(group.status, 201, group.text);
      const project = await source.api('POST', '/projects', { body: { name: 'app', namespace_id: group.body.id } });
      assert.equal(project.status, 201, project.text);
      for (const title of ['First', 'Second']) {
        assert.equal((await source.api('POST', `/projects/${project.body.id}/issues`, { body: { title } })).status, 201);
      }
      const started = await dest.api('POST', '/bulk_imports', {
        body: {
          configuration: { url: source.url, access_token: source.rootToken },
          entities: [{ source_type: 'group_entity', source_full_path: 'src', destination_slug: 'copy', destination_namespace: '' }],
        },
      });
      assert.equal(started.status, 201, started.text);
      const done = await until('the import to finish', async () => {
        const r = await dest.api('GET', `/bulk_imports/${started.body.id}`);
        return ['finished', 'failed', 'timeout', 'canceled'].includes(r.body.status) && r.body;
      });
      assert.equal(done.status, 'finished', JSON.stringify(done));
      const issues = await dest.api('GET', `/projects/${encodeURIComponent('copy/app')}/issues?sort=asc`);
      assert.equal(issues.status, 200, issues.text);
      assert.deepEqual(issues.body.map((i: any) => i.title), ['First', 'Second']);
    });

    it('delivers a signed flow callback to a local receiver', async () => {
      const port = (receiver.address() as AddressInfo).port;
      const hook = await dest.api('POST', '/ai/agent_workflows/flow_callbacks', {
        body: { url: `http://127.0.0.1:${port}/hook`, name: 'recv', signing_token: SIGNING, token: 'svc' },
      });
      assert.equal(hook.status, 201, hook.text);
      const project = await dest.api('POST', '/projects', { body: { name: 'hooks' } });
      assert.equal(project.status, 201, project.text);
      const flow = await dest.api('POST', '/ai/agent_workflows/workflows', {
        body: { project_id: String(project.body.id), goal: 'g', callback_hook_id: hook.body.id, start_workflow: true },
      });
      assert.equal(flow.status, 201, flow.text);
      const hit = await until('the callback', async () => hits[0]);
      const event = new Webhook(SIGNING).verify(hit.body, hit.headers as Record<string, string>) as any;
      assert.deepEqual([event.type, event.data.id], ['flow.started', flow.body.id]);
      const delivered = await until('the delivery to be recorded', async () => {
        const r = await dest.api('GET', `/ai/agent_workflows/flow_callbacks/${hook.body.id}/deliveries`);
        return r.body[0]?.status === 'delivered' && r.body[0];
      });
      assert.deepEqual(delivered.attempts.map((a: any) => [a.status_code, a.error]), [[200, null]]);
    });
  });
}
