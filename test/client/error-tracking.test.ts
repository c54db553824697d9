import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { exceptionEvent, messageEvent, store } from '../server/error-tracking.helpers.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:30:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client error tracking`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let projectId: number;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      projectId = (await api.projects.create({ name: 'client-app' })).id;
    });
    after(() => f.stop());

    it('settings: show is 404 before create; create (PUT) and edit (PATCH) answer the setting with the DSN', async () => {
      const missing = await apiError(api.errorTrackingSettings.show(projectId));
      assert.deepEqual([missing.status, missing.message], [404, '404 Error Tracking Setting Not Found']);
      const created = await api.errorTrackingSettings.create(projectId, { active: true, integrated: true });
      assert.equal(created.active, true);
      assert.match(created.gitlab_dsn!, new RegExp(`^http://glet_[0-9a-f]{32}@127\\.0\\.0\\.1:\\d+/api/v4/error_tracking/collector/${projectId}$`));
      const off = await api.errorTrackingSettings.edit(projectId, { active: false });
      assert.deepEqual([off.active, off.integrated], [false, true]);
      assert.deepEqual(await api.errorTrackingSettings.show(projectId), off);
      await api.errorTrackingSettings.edit(projectId, { active: true });
    });

    it('client keys: all, create, remove (with the requests the client sends)', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const created = await recorded.errorTrackingClientKeys.create(`root/client-app`);
      assert.equal(sent[0]!.method, 'POST');
      assert.equal(sent[0]!.url, `${f.url}/api/v4/projects/root%2Fclient-app/error_tracking/client_keys`);
      const keys = await recorded.errorTrackingClientKeys.all(projectId).toArray();
      assert.deepEqual(keys.map((k) => k.id).slice(-1), [created.id]);
      const removed = await recorded.errorTrackingClientKeys.remove(projectId, created.id);
      assert.deepEqual(removed, created);
      assert.equal(sent.at(-1)!.method, 'DELETE');
      const again = await apiError(recorded.errorTrackingClientKeys.remove(projectId, created.id));
      assert.equal(again.status, 404);
    });

    it('errors: all (sort, search, status), show, events, setStatus, createIssue, sessions', async () => {
      const [key] = await api.errorTrackingClientKeys.all(projectId).toArray();
      for (let i = 0; i < 3; i++) assert.equal((await store(f, projectId, key!.public_key, exceptionEvent({ user: { id: `u${i}` } }))).status, 200);
      assert.equal((await store(f, projectId, key!.public_key, messageEvent('disk almost full'))).status, 200);
      const all = await api.errorTrackingErrors.all(projectId, { sort: 'frequency' }).toArray();
      assert.deepEqual(all.map((e) => [e.title, e.count, e.user_count]), [['TypeError: cart is empty', 3, 3], ['disk almost full', 1, 0]]);
      const [found] = await api.errorTrackingErrors.all(projectId, { search: 'disk' }).toArray();
      assert.equal(found!.title, 'disk almost full');
      const error = await api.errorTrackingErrors.show(projectId, all[0]!.id);
      assert.equal(error.frequency.length, 24);
      assert.deepEqual(error.frequency[23], ['2024-06-15T12:00:00.000Z', 3]);
      const events = await api.errorTrackingErrors.events(projectId, error.id, { per_page: 2 }).toArray();
      assert.equal(events.length, 3);
      const ignored = await api.errorTrackingErrors.setStatus(projectId, found!.id, 'ignored');
      assert.equal(ignored.status, 'ignored');
      assert.deepEqual((await api.errorTrackingErrors.all(projectId, { status: 'ignored' }).toArray()).map((e) => e.id), [found!.id]);
      const issue = await api.errorTrackingErrors.createIssue(projectId, error.id);
      assert.equal(issue.title, 'TypeError: cart is empty');
      assert.ok(issue.description!.includes("throw new TypeError('cart is empty');"));
      assert.equal((await api.errorTrackingErrors.show(projectId, error.id)).issue_iid, issue.iid);
      const conflict = await apiError(api.errorTrackingErrors.createIssue(projectId, error.id));
      assert.equal(conflict.status, 409);
      assert.deepEqual(await api.errorTrackingErrors.sessions(projectId).toArray(), []);
    });

    it('frequency: per hour over 24 hours, per day over 30 days from every stored event; a bad period is a 400 naming it', async () => {
      const [key] = await api.errorTrackingClientKeys.all(projectId).toArray();
      const at = ['2024-06-15T01:00:00.000Z', '2024-06-13T08:00:00.000Z', '2024-06-13T23:59:59.000Z', '2024-05-17T00:00:00.000Z', '2024-05-16T23:59:59.000Z'];
      for (const timestamp of at) assert.equal((await store(f, projectId, key!.public_key, exceptionEvent({ value: 'stock is negative', timestamp }))).status, 200);
      const [error] = await api.errorTrackingErrors.all(projectId, { search: 'stock is negative' }).toArray();
      const daily = await api.errorTrackingErrors.frequency(projectId, error!.id, { period: '30d' });
      assert.equal(daily.period, '30d');
      assert.equal(daily.frequency.length, 30);
      assert.deepEqual(daily.frequency[0], ['2024-05-17T00:00:00.000Z', 1], 'the first of the 30 days; the day before is out');
      assert.deepEqual(daily.frequency[27], ['2024-06-13T00:00:00.000Z', 2]);
      assert.deepEqual(daily.frequency[29], ['2024-06-15T00:00:00.000Z', 1]);
      assert.equal(daily.frequency.reduce((n, [, c]) => n + c, 0), 4);
      const hourly = await api.errorTrackingErrors.frequency(projectId, error!.id);
      assert.deepEqual(hourly, { period: '24h', frequency: (await api.errorTrackingErrors.show(projectId, error!.id)).frequency });
      assert.deepEqual(hourly.frequency.find(([h]) => h === '2024-06-15T01:00:00.000Z'), ['2024-06-15T01:00:00.000Z', 1]);
      const bad = await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors/${error!.id}/frequency?period=7d`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'period does not have a valid value' }]);
      const outsider = await f.createUser('frequency-outsider');
      assert.equal((await f.api('GET', `/forgelet/projects/${projectId}/error_tracking/errors/${error!.id}/frequency`, { token: outsider.token })).status, 404);
      const missing = await apiError(api.errorTrackingErrors.frequency(projectId, 999999, { period: '30d' }));
      assert.equal(missing.status, 404);
    });
  });
}
