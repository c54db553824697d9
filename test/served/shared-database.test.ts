/**
 * Two `forgelet serve` processes on one data directory (SQLite: one database file; PostgreSQL:
 * one database), as `--workers` and a process manager run them: what one writes the other reads
 * at once (its read cache and its response cache follow the other's commits), background work
 * runs exactly once (schedules, callback deliveries), and error events accepted by either are
 * all counted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { exceptionEvent } from '../server/error-tracking.helpers.js';
import { callbackReceiver } from '../support/receiver.js';
import { hookReceiver } from '../server/webhooks-support.js';

const T0 = '2030-03-04T10:00:00.000Z';
const CI = 'build:\n  script: echo built\n';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: two processes on one data directory`, () => {
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let a: ServedForgelet;
    let b: ServedForgelet;
    let project: any;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-shared-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
      // Test mode for the clock: both frozen at the same instant, so both workers see the same jobs due.
      [a, b] = await Promise.all([
        startServed(dialect, { dataDir, databaseUrl: db.url, clock: { now: T0 } }),
        startServed(dialect, { dataDir, databaseUrl: db.url, clock: { now: T0 } }),
      ]);
      project = ok(await a.api('POST', '/projects', { body: { name: 'shared' } }), 201);
      ok(await a.api('POST', `/projects/${project.id}/repository/files/.gitlab-ci.yml`, { body: { branch: 'main', content: CI, commit_message: 'ci' } }), 201);
    });
    after(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('each reads what the other wrote at once, token revocations included', async () => {
      const user = await a.createUser('shared-alice');
      // b reads the token (and keeps it in its read cache), a revokes it: b refuses it next.
      assert.deepEqual(ok(await b.api('GET', '/user', { token: user.token })).username, 'shared-alice');
      assert.deepEqual(ok(await b.api('GET', '/user', { token: user.token })).username, 'shared-alice');
      const tokens = ok(await a.api('GET', `/personal_access_tokens?user_id=${user.id}`));
      assert.equal(tokens.length, 1);
      ok(await a.api('DELETE', `/personal_access_tokens/${tokens[0].id}`), 204);
      assert.equal((await b.api('GET', '/user', { token: user.token })).status, 401);
      // And the other way round, for rows the cache holds (a project read through b, renamed by b, read by a).
      ok(await b.api('GET', `/projects/${project.id}`));
      ok(await a.api('GET', `/projects/${project.id}`));
      ok(await b.api('PUT', `/projects/${project.id}`, { body: { description: 'from b' } }));
      assert.equal(ok(await a.api('GET', `/projects/${project.id}`)).description, 'from b');
      const issue = ok(await a.api('POST', `/projects/${project.id}/issues`, { body: { title: 'from a' } }), 201);
      assert.equal(ok(await b.api('GET', `/projects/${project.id}/issues/${issue.iid}`)).title, 'from a');
    });

    it('every write through one is seen by the very next request through the other, round after round', async () => {
      const user = await a.createUser('shared-rounds');
      ok(await a.api('POST', `/projects/${project.id}/members`, { body: { user_id: user.id, access_level: 30 } }), 201);
      for (let i = 0; i < 15; i++) {
        const [writer, reader] = i % 2 ? [b, a] : [a, b];
        // Warm the reader's caches: the second answer is kept by its response cache (the first
        // of a token in a process may record the token's use, which a kept answer must not skip).
        ok(await reader.api('GET', `/projects/${project.id}`, { token: user.token }));
        ok(await reader.api('GET', `/projects/${project.id}`, { token: user.token }));
        ok(await writer.api('PUT', `/projects/${project.id}`, { body: { description: `round ${i}` } }));
        assert.equal(ok(await reader.api('GET', `/projects/${project.id}`, { token: user.token })).description, `round ${i}`);
      }
      // A membership removed through one: the other hides the (private) project on the next request.
      ok(await b.api('GET', `/projects/${project.id}`, { token: user.token }));
      ok(await b.api('GET', `/projects/${project.id}`, { token: user.token }));
      ok(await a.api('DELETE', `/projects/${project.id}/members/${user.id}`), 204);
      assert.equal((await b.api('GET', `/projects/${project.id}`, { token: user.token })).status, 404);
    });

    it('concurrent writes through both processes all succeed: transactions wait for the write lock, none fails busy', async () => {
      // Creating a deployment reads (its environment, the last deployment) before it writes, in
      // one transaction: a deferred SQLite transaction failed with SQLITE_BUSY_SNAPSHOT whenever
      // the other process committed in between. On PostgreSQL both processes create each new
      // environment at once: the one that lost the race on its slug failed (unique violation, 500).
      const sha = ok(await a.api('GET', `/projects/${project.id}/repository/branches/main`)).commit.id;
      for (const round of ['a', 'b', 'c']) {
        const results = await Promise.all(
          Array.from({ length: 80 }, (_, i) =>
            (i % 2 ? b : a).api('POST', `/projects/${project.id}/deployments`, {
              body: { environment: `env${i % 4}${round}`, sha, ref: 'main', tag: false, status: i % 8 < 4 ? 'running' : 'success' },
            }),
          ),
        );
        assert.deepEqual(results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text}`), [], `round ${round}`);
      }
      const envs = ok(await b.api('GET', `/projects/${project.id}/environments?per_page=100`));
      assert.deepEqual(envs.map((e: any) => e.name).sort(), ['a', 'b', 'c'].flatMap((r) => [0, 1, 2, 3].map((i) => `env${i}${r}`)).sort());
    });

    it('16 writers through each process filing issues into one project: iids 1..n, gapless and unique, each answer its own issue', async () => {
      const target = ok(await a.api('POST', '/projects', { body: { name: 'filed' } }), 201);
      const results = await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          (i % 2 ? b : a).api('POST', `/projects/${target.id}/issues`, { body: { title: `filed ${i}`, ...(i % 8 === 7 && { labels: 'busy' }) } }),
        ),
      );
      const created = results.map((r) => ok(r, 201));
      assert.deepEqual(created.map((c) => c.iid).sort((x, y) => x - y), Array.from({ length: 32 }, (_, i) => i + 1));
      const listed = ok(await b.api('GET', `/projects/${target.id}/issues?per_page=100`));
      assert.deepEqual(new Map(listed.map((x: any) => [x.iid, x.title])), new Map(created.map((c) => [c.iid, c.title])));
      assert.equal(ok(await a.api('GET', `/projects/${target.id}`, { headers: { 'Cache-Control': 'no-cache' } })).open_issues_count, 32);
    });

    it('a due schedule fires exactly once with both workers polling and both asked to run due jobs', async () => {
      const schedules = [];
      for (let i = 0; i < 4; i++) {
        schedules.push(ok(await a.api('POST', `/projects/${project.id}/pipeline_schedules`, { body: { description: `s${i}`, ref: 'main', cron: '0 * * * *' } }), 201));
      }
      assert.deepEqual(new Set(schedules.map((s) => s.next_run_at)), new Set(['2030-03-04T11:00:00.000Z']));
      // Both clocks past the run: both pollers (every second) and both advance calls race for the jobs.
      await Promise.all([a.clock.set('2030-03-04T11:00:30.000Z'), b.clock.set('2030-03-04T11:00:30.000Z')]);
      const ran = await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
      await new Promise((r) => setTimeout(r, 2500)); // two more polls of each worker
      for (const s of schedules) {
        const pipelines = ok(await b.api('GET', `/projects/${project.id}/pipeline_schedules/${s.id}/pipelines`));
        assert.equal(pipelines.length, 1, `schedule ${s.description}: ${pipelines.length} pipelines (advance calls ran ${ran.join(', ')})`);
        const shown = ok(await a.api('GET', `/projects/${project.id}/pipeline_schedules/${s.id}`));
        assert.deepEqual([shown.next_run_at, shown.last_error], ['2030-03-04T12:00:00.000Z', null]);
      }
      const all = ok(await a.api('GET', `/projects/${project.id}/pipelines?source=schedule&per_page=100`));
      assert.equal(all.length, schedules.length);
    });

    it('a flow callback is delivered once, sealed by one process and opened by whichever delivers it', async () => {
      const receiver = callbackReceiver();
      const hits = receiver.hits;
      await receiver.start();
      try {
        const hook = ok(await a.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: receiver.url('/hook'), name: 'shared', token: 'svc' } }), 201);
        const flows = [];
        for (let i = 0; i < 3; i++) {
          const via = i % 2 ? b : a;
          flows.push(ok(await via.api('POST', '/ai/agent_workflows/workflows', { body: { project_id: String(project.id), goal: `g${i}`, callback_hook_id: hook.id, start_workflow: true } }), 201));
        }
        await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
        await until('three deliveries', async () => hits.length >= 3);
        await new Promise((r) => setTimeout(r, 2500));
        const ids = hits.map((h) => JSON.parse(h.body).data.id).sort((x, y) => x - y);
        assert.deepEqual(ids, flows.map((f) => f.id).sort((x, y) => x - y));
      } finally {
        await receiver.close();
      }
    });

    it('a webhook added through one process gets the events of the very next write through the other', async () => {
      const receiver = await hookReceiver();
      try {
        // a has asked whether any hook exists (none): on PostgreSQL the answer is cached, even inside its write transactions
        ok(await a.api('POST', `/projects/${project.id}/issues`, { body: { title: 'before any hook' } }), 201);
        ok(await a.api('POST', `/projects/${project.id}/issues`, { body: { title: 'still before' } }), 201);
        const hook = ok(await b.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${receiver.url}/hook`, issues_events: true, push_events: false } }), 201);
        ok(await a.api('POST', `/projects/${project.id}/issues`, { body: { title: 'after the hook' } }), 201);
        await Promise.all([a.runDue(), b.runDue()]);
        await until('the issue event', async () => receiver.deliveries.length >= 1);
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(receiver.deliveries.map((d) => [d.headers['x-gitlab-event'], d.body.object_attributes.title]), [['Issue Hook', 'after the hook']]);
        ok(await b.api('DELETE', `/projects/${project.id}/hooks/${hook.id}`), 204);
      } finally {
        await receiver.close();
      }
    });

    it('error events accepted by either process are all counted in one error', async () => {
      const settings = ok(await a.api('PUT', `/projects/${project.id}/error_tracking/settings?active=true&integrated=true`));
      const key = new URL(settings.gitlab_dsn).username;
      const send = (server: ServedForgelet) =>
        fetch(`${server.url}/api/v4/error_tracking/collector/api/${project.id}/store`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Sentry-Auth': `Sentry sentry_key=${key}, sentry_version=7` },
          body: JSON.stringify(exceptionEvent({ value: 'shared failure' })),
        }).then((r) => assert.equal(r.status, 200));
      await Promise.all(Array.from({ length: 10 }, (_, i) => send(i % 2 ? b : a)));
      const errors = await until('both processes to write their events', async () => {
        const list = ok(await b.api('GET', `/forgelet/projects/${project.id}/error_tracking/errors`));
        return list[0]?.count === 10 && list;
      });
      assert.deepEqual(errors.map((e: any) => [e.title, e.count]), [['TypeError: shared failure', 10]]);
    });
  });
}
