import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const T0 = '2024-03-01T00:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client test harness`, () => {
    let f: TestForgelet;
    let api: Forgelet;

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, clock: fixedClock(T0), workers: false });
      api = clientFor(f);
    });
    after(() => f.stop());

    it('clock: read, set, freeze, advance', async () => {
      assert.deepEqual(await api.harness.clock(), { now: T0, frozen: true });
      assert.deepEqual(await api.harness.setClock({ now: new Date('2024-03-02T00:00:00Z') }), { now: '2024-03-02T00:00:00.000Z', frozen: true });
      assert.deepEqual(await api.harness.advanceClock(3600), { now: '2024-03-02T01:00:00.000Z', frozen: true, jobs_run: 0 });
      assert.equal((await api.harness.setClock({ frozen: false })).frozen, false);
      assert.equal((await api.harness.setClock({ frozen: true })).frozen, true);
      const err = await apiError(api.harness.advanceClock(-1));
      assert.deepEqual([err.status, err.message], [400, 'seconds does not have a valid value']);
    });

    it('seed, snapshot, restore, delete, reset', async () => {
      const seeded = await api.harness.seed({
        users: [{ username: 'cli1', token: 'glpat-client-seed-0001' }],
        groups: [{ path: 'cg' }],
        projects: [{ path: 'cp', namespace: 'cg', issues: [{ title: 'First', author: 'root' }] }],
      });
      assert.deepEqual(Object.keys(seeded.users), ['cli1']);
      assert.deepEqual(seeded.issues['cg/cp']!.map((i) => i.title), ['First']);

      const snap = await api.harness.snapshot('client');
      assert.equal(snap.name, 'client');
      await api.groups.create({ name: 'Temp', path: 'temp' });
      assert.deepEqual((await api.groups.all().toArray()).map((g) => g.path), ['cg', 'temp']);
      assert.deepEqual(await api.harness.restore('client'), snap);
      assert.deepEqual((await api.groups.all().toArray()).map((g) => g.path), ['cg']);
      assert.deepEqual((await api.harness.snapshots()).map((s) => s.name), ['client']);

      await api.harness.reset();
      assert.deepEqual((await api.groups.all().toArray()).map((g) => g.path), []);
      assert.equal((await api.users.current()).username, 'root');
      await api.harness.deleteSnapshot('client');
      assert.deepEqual(await api.harness.snapshots(), []);
      const err = await apiError(api.harness.restore('client'));
      assert.deepEqual([err.status, err.message], [404, '404 Snapshot Not Found']);
    });

    it('tier and faults', async () => {
      assert.deepEqual(await api.harness.setTier('free'), { tier: 'free' });
      assert.deepEqual(await api.harness.tier(), { tier: 'free' });
      assert.equal((await api.version()).enterprise, false);
      await api.harness.setTier('ultimate');

      const fault = await api.harness.addFault({ method: 'GET', path: '/version', status: 503, times: 1 });
      assert.equal(fault.remaining, 1);
      // Without retries the injected 503 surfaces (a client retries 503 by default).
      const err = await apiError(clientFor(f, { retries: 0 }).version());
      assert.deepEqual([err.status, err.message], [503, '503 Service Unavailable']);
      assert.equal((await api.version()).enterprise, true);
      const listed = await api.harness.faults();
      assert.deepEqual(listed.map((x) => [x.id, x.injected, x.remaining]), [[fault.id, 1, 0]]);
      await api.harness.removeFault(fault.id);
      await api.harness.addFault({ path: '/version', latency_ms: 1 });
      await api.harness.clearFaults();
      assert.deepEqual(await api.harness.faults(), []);
    });

    it('sends what the server expects', async () => {
      const { fetch, sent } = recordingFetch();
      const rec = clientFor(f, { fetch });
      // 'a/b' is not a valid snapshot name and 'a.b' does not exist: the server's refusals are
      // part of what is checked, beside the requests that led to them.
      const badName = { message: '400 Bad request - name must be 1 to 100 letters, digits, ".", "_" or "-", starting with a letter or digit' };
      const made = await apiError(rec.harness.snapshot('a/b'));
      assert.deepEqual([made.status, made.body], [400, badName]);
      const restored = await apiError(rec.harness.restore('a/b'));
      assert.deepEqual([restored.status, restored.body], [400, badName]);
      const deleted = await apiError(rec.harness.deleteSnapshot('a.b'));
      assert.deepEqual([deleted.status, deleted.body], [404, { message: '404 Snapshot Not Found' }]);
      assert.deepEqual(
        sent.map((s) => [s.method, s.url.slice(f.url.length), s.body ?? null]),
        [
          ['POST', '/api/v4/forgelet/snapshots', '{"name":"a/b"}'],
          ['POST', '/api/v4/forgelet/snapshots/a%2Fb/restore', null],
          ['DELETE', '/api/v4/forgelet/snapshots/a.b', null],
        ],
      );
    });
  });
}
