/**
 * Webhooks through the built binary: an issue event whose delivery was in flight when the
 * process was SIGKILLed is delivered after the restart (the queued delivery outlives the
 * process; its lease expires and the new process takes it over), with the same event UUID and
 * Idempotency-Key, and recorded once in the hook's recent deliveries.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS, createTestDatabaseUrl } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';

const T = '2026-03-02T10:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: a webhook delivery survives a SIGKILL of the served binary`, () => {
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    let first: ServedForgelet;
    let second: ServedForgelet | undefined;
    let rx: HookReceiver;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-hooks-restart-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
      rx = await hookReceiver();
      first = await startServed(dialect, { dataDir, databaseUrl: db.url, clock: { now: T } });
    });
    after(async () => {
      await first?.stop();
      await second?.stop();
      await rx.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('delivers after the restart what was in flight at the kill', async () => {
      const project = await first.api('POST', '/projects', { body: { name: 'restart-hooks' } });
      assert.equal(project.status, 201, project.text);
      const hook = await first.api('POST', `/projects/${project.body.id}/hooks`, { body: { url: `${rx.url}/bot`, issues_events: true, token: 'tok' } });
      assert.equal(hook.status, 201, hook.text);
      rx.answer(0); // the target hangs: the delivery is in flight
      const issue = await first.api('POST', `/projects/${project.body.id}/issues`, { body: { title: 'survives' } });
      assert.equal(issue.status, 201, issue.text);
      await until('the first attempt reaches the target', async () => rx.deliveries.length === 1);
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGKILL');
      await exited;

      rx.answer(200, 'ok');
      second = await startServed(dialect, { dataDir, databaseUrl: db.url, rootToken: first.rootToken, clock: { now: T } });
      // The killed process's lease (30 s) runs out; the new process takes the delivery over.
      await second.clock.advance(31);
      await until('the delivery after the restart', async () => rx.deliveries.length === 2);
      const [lost, delivered] = rx.deliveries;
      assert.equal(delivered!.headers['x-gitlab-event'], 'Issue Hook');
      assert.equal(delivered!.headers['x-gitlab-token'], 'tok');
      assert.equal(delivered!.body.object_attributes.title, 'survives');
      assert.equal(delivered!.headers['x-gitlab-event-uuid'], lost!.headers['x-gitlab-event-uuid']);
      assert.equal(delivered!.headers['idempotency-key'], lost!.headers['idempotency-key']);
      const events = await until('the delivery is recorded', async () => {
        const r = await second!.api('GET', `/projects/${project.body.id}/hooks/${hook.body.id}/events`);
        return r.body.length ? r.body : false;
      });
      assert.deepEqual(events.map((e: { response_status: string }) => e.response_status), ['200']);
    });

    it('without --allow-local-egress a project hook to a private address is refused; nothing reaches one through a system hook either', async () => {
      const strict = await startServed(dialect, { allowLocalEgress: false, clock: { now: T } });
      try {
        const project = await strict.api('POST', '/projects', { body: { name: 'strict-hooks' } });
        const refused = await strict.api('POST', `/projects/${project.body.id}/hooks`, { body: { url: `${rx.url}/private` } });
        assert.deepEqual([refused.status, refused.body], [422, { message: 'Invalid url given' }]);
        const sys = await strict.api('POST', '/hooks', { body: { url: `${rx.url}/system` } });
        assert.equal(sys.status, 201, sys.text);
        const before = rx.deliveries.length;
        assert.equal((await strict.api('POST', `/hooks/${sys.body.id}`)).status, 201);
        assert.equal(rx.deliveries.length, before, 'nothing reached the private address');
      } finally {
        await strict.stop();
      }
    });
  });
}
