import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buffer } from 'node:stream/consumers';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: test harness snapshots, restore and reset`, () => {
    let f: TestForgelet;
    let user: { id: number; username: string; token: string };

    const names = async (path: string) => {
      const r = await f.api('GET', path);
      expectStatus(r, 200);
      return r.body.map((x: any) => x.username ?? x.name ?? x.title);
    };
    const readBlob = async (key: string) => (await f.forge.deps.blobs.size(key)) === null ? null : (await buffer(f.forge.deps.blobs.read(key))).toString();

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, clock: fixedClock(NOW) });
      user = await f.createUser('snapuser');
    });
    after(() => f.stop());

    it('snapshot, mutate, restore: the old rows, ids continuing as they would have, the old blobs', async () => {
      const group = await createGroup(f, f.rootToken, { name: 'Before', path: 'before' });
      const project = await createProject(f, f.rootToken, { name: 'app', namespace_id: group.id });
      expectStatus(await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Kept' } }), 201);
      await f.forge.deps.blobs.put('snap/kept.txt', 'kept blob');
      await f.forge.deps.blobs.put('snap/changed.txt', 'old content');

      const taken = await f.api('POST', '/forgelet/snapshots', { body: { name: 'base' } });
      expectStatus(taken, 201);
      assert.deepEqual(Object.keys(taken.body), ['name', 'created_at', 'tables', 'rows', 'blobs']);
      assert.equal(taken.body.name, 'base');
      assert.equal(taken.body.created_at, NOW);
      assert.equal(taken.body.blobs, 2);
      assert.ok(taken.body.tables > 20, `tables enumerated from the database: ${taken.body.tables}`);

      // Mutations of every kind: new rows, changed rows, deleted rows, blobs.
      const after1 = await createGroup(f, f.rootToken, { name: 'After', path: 'after' });
      expectStatus(await f.api('PUT', `/projects/${project.id}/issues/1`, { body: { title: 'Renamed', state_event: 'close' } }), 200);
      expectStatus(await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'New' } }), 201);
      expectStatus(await f.api('DELETE', `/users/${user.id}`), 204);
      await f.forge.deps.blobs.delete('snap/kept.txt');
      await f.forge.deps.blobs.put('snap/changed.txt', 'new content');
      await f.forge.deps.blobs.put('snap/added.txt', 'added');

      const restored = await f.api('POST', '/forgelet/snapshots/base/restore');
      expectStatus(restored, 200);
      assert.deepEqual(restored.body, taken.body);

      assert.deepEqual(await names('/groups'), ['Before']);
      const issues = await f.api('GET', `/projects/${project.id}/issues`);
      assert.deepEqual(issues.body.map((i: any) => [i.iid, i.title, i.state]), [[1, 'Kept', 'opened']]);
      assert.ok((await names('/users')).includes('snapuser'), 'the deleted user is back');
      expectStatus(await f.api('GET', '/user', { token: user.token }), 200);
      assert.equal(await readBlob('snap/kept.txt'), 'kept blob');
      assert.equal(await readBlob('snap/changed.txt'), 'old content');
      assert.equal(await readBlob('snap/added.txt'), null);

      // Ids and iids continue from the snapshot, as if nothing had happened after it.
      const again = await createGroup(f, f.rootToken, { name: 'After again', path: 'after' });
      assert.equal(again.id, after1.id);
      const issue = await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Second' } });
      assert.equal(issue.body.iid, 2);
    });

    it('restores twice from one snapshot, and snapshots taken later do not disturb it', async () => {
      expectStatus(await f.api('POST', '/forgelet/snapshots', { body: { name: 'later' } }), 201);
      await createGroup(f, f.rootToken, { name: 'Third', path: 'third' });
      expectStatus(await f.api('POST', '/forgelet/snapshots/base/restore'), 200);
      assert.deepEqual(await names('/groups'), ['Before']);
      expectStatus(await f.api('POST', '/forgelet/snapshots/later/restore'), 200);
      assert.deepEqual(await names('/groups'), ['After again', 'Before']);
      expectStatus(await f.api('POST', '/forgelet/snapshots/base/restore'), 200);
      assert.deepEqual(await names('/groups'), ['Before']);
    });

    it('lists and deletes snapshots; errors name the problem', async () => {
      const list = await f.api('GET', '/forgelet/snapshots');
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((s: any) => s.name), ['base', 'later']);

      const dup = await f.api('POST', '/forgelet/snapshots', { body: { name: 'base' } });
      assert.deepEqual([dup.status, dup.body], [409, { message: 'Snapshot base already exists' }]);
      const bad = await f.api('POST', '/forgelet/snapshots', { body: { name: '../x' } });
      expectStatus(bad, 400);
      assert.match(bad.body.message, /name must be 1 to 100 letters/);
      const missing = await f.api('POST', '/forgelet/snapshots', { body: {} });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'name is missing' }]);
      const unknown = await f.api('POST', '/forgelet/snapshots/nope/restore');
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Snapshot Not Found' }]);

      expectStatus(await f.api('DELETE', '/forgelet/snapshots/later'), 204);
      assert.deepEqual((await f.api('GET', '/forgelet/snapshots')).body.map((s: any) => s.name), ['base']);
      expectStatus(await f.api('POST', '/forgelet/snapshots/later/restore'), 404);
      expectStatus(await f.api('DELETE', '/forgelet/snapshots/later'), 404);
      // The name is free again.
      expectStatus(await f.api('POST', '/forgelet/snapshots', { body: { name: 'later' } }), 201);
      expectStatus(await f.api('DELETE', '/forgelet/snapshots/later'), 204);
    });

    it('pending queue jobs are part of the state', async () => {
      const db = f.forge.database.db;
      const pending = async () => (await db.selectFrom('queue_jobs').select('kind').where('status', '=', 'pending').where('kind', '=', 'test.noop').execute()).length;
      expectStatus(await f.api('POST', '/forgelet/snapshots', { body: { name: 'jobs' } }), 201);
      await f.forge.deps.queue.enqueue(db, 'test.noop', { n: 1 }, { runAt: new Date('2030-01-01T00:00:00.000Z') });
      assert.equal(await pending(), 1);
      expectStatus(await f.api('POST', '/forgelet/snapshots/jobs/restore'), 200);
      assert.equal(await pending(), 0);
    });

    it('reset: only root is left, ids start over, the root token still works, snapshots stay', async () => {
      await f.forge.deps.blobs.put('snap/reset.txt', 'gone after reset');
      const r = await f.api('POST', '/forgelet/reset');
      expectStatus(r, 204);
      const me = await f.api('GET', '/user');
      expectStatus(me, 200);
      assert.equal(me.body.username, 'root');
      assert.equal(me.body.id, 1);
      assert.deepEqual(await names('/users'), ['root']);
      assert.deepEqual(await names('/groups'), []);
      assert.deepEqual(await names('/projects'), []);
      assert.equal(await readBlob('snap/reset.txt'), null);
      assert.equal(await readBlob('snap/kept.txt'), null);
      const tokens = await f.api('GET', '/personal_access_tokens');
      assert.deepEqual(tokens.body.map((t: any) => t.user_id), [1]);
      // A fresh start: the first group takes the id after root's namespace.
      const group = await createGroup(f, f.rootToken, { name: 'Fresh', path: 'fresh' });
      assert.equal(group.id, 2);
      // Snapshots outlive a reset.
      expectStatus(await f.api('POST', '/forgelet/snapshots/base/restore'), 200);
      assert.deepEqual(await names('/groups'), ['Before']);
      assert.equal(await readBlob('snap/kept.txt'), 'kept blob');
    });

    it('the in-process API of startForgelet does the same', async () => {
      await f.reset();
      await createGroup(f, f.rootToken, { name: 'Inproc', path: 'inproc' });
      const s = await f.snapshot('inproc');
      assert.equal(s.name, 'inproc');
      await createGroup(f, f.rootToken, { name: 'Lost', path: 'lost' });
      await f.restore('inproc');
      assert.deepEqual(await names('/groups'), ['Inproc']);
    });

    it('admin only', async () => {
      const plain = await f.createUser('snapplain');
      for (const [method, path] of [['GET', '/forgelet/snapshots'], ['POST', '/forgelet/snapshots'], ['POST', '/forgelet/snapshots/base/restore'], ['DELETE', '/forgelet/snapshots/base'], ['POST', '/forgelet/reset']] as const) {
        const body = method === 'GET' ? undefined : { name: 'x' };
        const r = await f.api(method, path, { token: plain.token, body });
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }], `${method} ${path}`);
        expectStatus(await f.api(method, path, { token: null }), 401);
      }
    });
  });

  describe(`${dialect}: test harness routes without test mode`, () => {
    let f: TestForgelet;
    before(async () => {
      f = await startTestServer(dialect, { testMode: false });
    });
    after(() => f.stop());

    it('answer 404 as unknown paths', async () => {
      for (const [method, path] of [
        ['GET', '/forgelet/clock'], ['PUT', '/forgelet/clock'], ['POST', '/forgelet/clock/advance'], ['GET', '/forgelet/snapshots'],
        ['POST', '/forgelet/snapshots'], ['POST', '/forgelet/snapshots/x/restore'], ['DELETE', '/forgelet/snapshots/x'], ['POST', '/forgelet/reset'],
        ['POST', '/forgelet/seed'], ['PUT', '/forgelet/tier'], ['GET', '/forgelet/faults'], ['POST', '/forgelet/faults'],
      ] as const) {
        const r = await f.api(method, path, { body: method === 'GET' ? undefined : {} });
        assert.deepEqual([r.status, r.body], [404, { error: '404 Not Found' }], `${method} ${path}`);
      }
    });
  });
}
