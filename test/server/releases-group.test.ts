import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const SIMPLE_KEYS = ['name', 'tag_name', 'description', 'created_at', 'released_at', 'upcoming_release'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: group releases`, () => {
    let f: TestForgelet;
    let owner: User;
    let guest: User;
    let subGuest: User;
    let outsider: User;
    let top: any; // public
    let sub: any; // top/sub, public
    let app: any; // top, private
    let pub: any; // top, public
    let lib: any; // top/sub, private
    let alien: any; // another group
    const ids: Record<string, number> = {};

    const enc = encodeURIComponent;
    async function release(project: any, tag: string, releasedAt: string): Promise<void> {
      const r = await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: tag, ref: 'main', released_at: releasedAt, description: `about ${tag}` } });
      expectStatus(r, 201);
      const row = await f.forge.database.db.selectFrom('releases').select('id').where('project_id', '=', project.id).where('tag_name', '=', tag).executeTakeFirstOrThrow();
      ids[tag] = row.id;
    }
    async function names(path: string, token: string | null = owner.token): Promise<string[]> {
      const r = await f.api('GET', path, { token });
      expectStatus(r, 200);
      return r.body.map((x: any) => x.name);
    }

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      [owner, guest, subGuest, outsider] = await createUsers(f, ['gowner', 'gguest', 'gsubguest', 'goutsider']);
      top = await createGroup(f, owner.token, { name: 'Top', path: 'top', visibility: 'public' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: top.id, visibility: 'public' });
      const other = await createGroup(f, owner.token, { name: 'Other', path: 'other', visibility: 'public' });
      app = await createProject(f, owner.token, { name: 'app', namespace_id: top.id, visibility: 'private' });
      pub = await createProject(f, owner.token, { name: 'pub', namespace_id: top.id, visibility: 'public' });
      lib = await createProject(f, owner.token, { name: 'lib', namespace_id: sub.id, visibility: 'private' });
      alien = await createProject(f, owner.token, { name: 'alien', namespace_id: other.id, visibility: 'public' });
      await addMember(f, 'groups', top.id, guest.id, 10);
      await addMember(f, 'groups', sub.id, subGuest.id, 10);
      for (const p of [app, pub, lib, alien]) await commitFiles(f, p.id, 'main', { 'README.md': p.name });
      await release(app, 'a1', '2024-01-01T00:00:00Z');
      await release(pub, 'p1', '2024-02-01T00:00:00Z');
      await release(lib, 'l1', '2024-03-01T00:00:00Z');
      await release(app, 'a2', '2024-03-01T00:00:00Z'); // same released_at as l1: id decides
      await release(alien, 'x1', '2024-04-01T00:00:00Z');
    });
    after(() => f.stop());

    it('every project of the group and its subgroups, by released_at then id (desc by default, asc on request)', async () => {
      assert.deepEqual(await names(`/groups/${top.id}/releases`), ['a2', 'l1', 'p1', 'a1']);
      assert.deepEqual(await names(`/groups/${enc('top')}/releases?sort=asc`), ['a1', 'p1', 'l1', 'a2']);
      assert.deepEqual(await names(`/groups/${enc('top/sub')}/releases`), ['l1']);
      const r = await f.api('GET', `/groups/${top.id}/releases?per_page=3&page=2`, { token: owner.token });
      assert.deepEqual(r.body.map((x: any) => x.name), ['a1']);
      assert.equal(r.headers.get('x-total'), '4');
      assert.match(r.headers.get('link') ?? '', /rel="prev"/);
      const bad = await f.api('GET', `/groups/${top.id}/releases?sort=up`, { token: owner.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'sort does not have a valid value' }]);
    });

    it('full entities by default (as on the project route); simple=true gives the basic fields only', async () => {
      const full = await f.api('GET', `/groups/${top.id}/releases`, { token: owner.token });
      const one = await f.api('GET', `/projects/${lib.id}/releases/l1`, { token: owner.token });
      assert.deepEqual(full.body[1], one.body);
      const simple = await f.api('GET', `/groups/${top.id}/releases?simple=true`, { token: owner.token });
      expectStatus(simple, 200);
      assert.deepEqual(simple.body[0], {
        name: 'a2', tag_name: 'a2', description: 'about a2', created_at: NOW, released_at: '2024-03-01T00:00:00.000Z', upcoming_release: false,
      });
      for (const item of simple.body) assert.deepEqual(Object.keys(item), SIMPLE_KEYS);
    });

    it('Guests of the group see every project, without code details on private ones; subgroup Guests see the subgroup only', async () => {
      const r = await f.api('GET', `/groups/${top.id}/releases`, { token: guest.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((x: any) => x.name), [`Release-${ids.a2}`, `Release-${ids.l1}`, 'p1', `Release-${ids.a1}`]);
      assert.ok(!('tag_name' in r.body[0]) && !('commit' in r.body[0]) && !('tag_path' in r.body[0]));
      assert.deepEqual(Object.keys(r.body[0].assets), ['count', 'links']);
      assert.equal(r.body[2].tag_name, 'p1');
      assert.equal(r.body[2].commit_path.startsWith('/top/pub/-/commit/'), true);
      const simple = await f.api('GET', `/groups/${top.id}/releases?simple=True`, { token: guest.token });
      assert.deepEqual(simple.body.map((x: any) => [x.name, x.tag_name]), [[`Release-${ids.a2}`, 'a2'], [`Release-${ids.l1}`, 'l1'], ['p1', 'p1'], [`Release-${ids.a1}`, 'a1']]);

      assert.deepEqual(await names(`/groups/${sub.id}/releases`, subGuest.token), [`Release-${ids.l1}`]);
      const up = await f.api('GET', `/groups/${top.id}/releases`, { token: subGuest.token });
      assert.deepEqual([up.status, up.body], [403, FORBIDDEN], 'a subgroup Guest is no Guest of the parent');
    });

    it('non-members: 403 on a public group (Guest needed), 404 on a private one, 401 anonymous', async () => {
      let r = await f.api('GET', `/groups/${top.id}/releases`, { token: outsider.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('GET', `/groups/${top.id}/releases`, { token: null });
      assert.equal(r.status, 401);
      const hidden = await createGroup(f, owner.token, { name: 'Hidden', path: 'hidden', visibility: 'private' });
      r = await f.api('GET', `/groups/${hidden.id}/releases`, { token: outsider.token });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Group Not Found' }]);
      r = await f.api('GET', `/groups/${hidden.id}/releases`, { token: owner.token });
      assert.deepEqual([r.status, r.body], [200, []]);
      r = await f.api('GET', `/groups/${hidden.id}/releases`);
      assert.deepEqual([r.status, r.body], [200, []], 'admins pass');
    });
  });
}
