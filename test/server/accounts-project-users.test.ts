/**
 * GET /projects/:id/users (GitLab's lib/api/projects.rb `get ':id/users'`): the project's and
 * its ancestor groups' members with Guest or more whose membership has not expired, as basic
 * users by id, paginated; `search` (name or username, fuzzy; public email, exact) puts exact
 * matches first; `skip_users` leaves users out.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';
type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: project users`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User, dev: User, reporter: User, guest: User, minimal: User, expiring: User, outsider: User, other: User;
    let project: any;
    let privateProject: any;

    const ids = (body: any[]) => body.map((u) => u.id);

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, dev, reporter, guest, minimal, expiring, outsider, other] = await createUsers(f, [
        'puowner', 'pudev', 'pureporter', 'puguest', 'puminimal', 'puexpiring', 'puoutsider', 'puother',
      ]) as [User, User, User, User, User, User, User, User];
      const names: [User, string, string | null][] = [
        [owner, 'Owner of pureporter', null],
        [dev, 'Alice Developer', null],
        [reporter, 'Bob Reporter', 'bob@public.example'],
        [guest, 'Alicia Guest', null],
        [expiring, 'Eve Expiring', null],
      ];
      for (const [u, name, email] of names) {
        expectStatus(await f.api('PUT', `/users/${u.id}`, { body: { name, ...(email ? { public_email: email } : {}) } }), 200);
      }
      const top = await createGroup(f, owner.token, { name: 'Top', path: 'pu-top', visibility: 'public' });
      const sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: top.id, visibility: 'public' });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: sub.id, visibility: 'public' });
      privateProject = await createProject(f, other.token, { name: 'secret' });
      await addMember(f, 'projects', project.id, dev.id, 30);
      await addMember(f, 'groups', top.id, reporter.id, 20);
      await addMember(f, 'groups', sub.id, guest.id, 10);
      await addMember(f, 'groups', top.id, minimal.id, 5);
      const expires = await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: expiring.id, access_level: 30, expires_at: '2024-06-20' } });
      expectStatus(expires, 201);
      // a member elsewhere is not a user of this project
      await addMember(f, 'projects', privateProject.id, outsider.id, 40);
    });
    after(() => f.stop());

    it('lists the members of the project and its groups, Guest and up, by id, as basic users', async () => {
      const r = await f.api('GET', `/projects/${project.id}/users`, { token: dev.token });
      expectStatus(r, 200);
      const expected = [owner, dev, reporter, guest, expiring].map((u) => u.id).sort((a, b) => a - b);
      assert.deepEqual(ids(r.body), expected);
      assert.deepEqual(Object.keys(r.body[0]), ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']);
      assert.equal(r.headers.get('x-total'), String(expected.length));
      // anyone may read the users of a public project; the path works as the id
      const anonymous = await f.api('GET', `/projects/${encodeURIComponent('pu-top/sub/app')}/users`, { token: null });
      assert.deepEqual(ids(anonymous.body), expected);
      // paginated in the database
      const page2 = await f.api('GET', `/projects/${project.id}/users?per_page=2&page=2`, { token: dev.token });
      assert.deepEqual(ids(page2.body), expected.slice(2, 4));
      assert.deepEqual([page2.headers.get('x-total'), page2.headers.get('x-total-pages'), page2.headers.get('x-next-page')], ['5', '3', '3']);
    });

    it('a membership that expired no longer counts', async () => {
      clock.set(new Date('2024-06-21T00:00:00.000Z'), true);
      try {
        const r = await f.api('GET', `/projects/${project.id}/users`, { token: dev.token });
        assert.equal(ids(r.body).includes(expiring.id), false);
        assert.equal(r.body.length, 4);
      } finally {
        clock.set(new Date(NOW), true);
      }
    });

    it('search: name or username (fuzzy), public email (exact), a leading @ ignored; exact matches first', async () => {
      const search = async (q: string) => ids((await f.api('GET', `/projects/${project.id}/users?search=${encodeURIComponent(q)}`, { token: dev.token })).body);
      assert.deepEqual(await search('ali'), [dev.id, guest.id].sort((a, b) => a - b), 'Alice and Alicia, by name');
      assert.deepEqual(await search('BOB@public.example'), [reporter.id]);
      assert.deepEqual(await search('@pudev'), [dev.id]);
      assert.deepEqual(await search('@'), []);
      // the exact username first, then by name: "puguest" is exact, "pu…" matches every username
      const exactFirst = await search('puguest');
      assert.deepEqual(exactFirst, [guest.id]);
      assert.deepEqual(await search('pu'), [], 'a term under 3 characters must equal the name or username');
      // the exact username before a name that only contains it, whatever their ids
      assert.deepEqual(await search('pureporter'), [reporter.id, owner.id]);
      // every word of 3+ characters must occur
      assert.deepEqual(await search('alice developer'), [dev.id]);
      assert.deepEqual(await search('%'), [], 'LIKE wildcards match literally');
    });

    it('skip_users leaves users out (comma-separated or an array)', async () => {
      const comma = await f.api('GET', `/projects/${project.id}/users?skip_users=${owner.id},${dev.id}`, { token: dev.token });
      assert.deepEqual(ids(comma.body), [reporter.id, guest.id, expiring.id].sort((a, b) => a - b));
      const array = await f.api('GET', `/projects/${project.id}/users?skip_users[]=${reporter.id}&search=ali`, { token: dev.token });
      assert.deepEqual(ids(array.body), [dev.id, guest.id].sort((a, b) => a - b));
      const bad = await f.api('GET', `/projects/${project.id}/users?skip_users=x`, { token: dev.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'skip_users is invalid' }]);
    });

    it('a private project: its members see its users, others get 404', async () => {
      const seen = await f.api('GET', `/projects/${privateProject.id}/users`, { token: outsider.token });
      // the creator of a personal project is its Owner
      assert.deepEqual(ids(seen.body), [outsider.id, other.id]);
      for (const token of [dev.token, null]) {
        const hidden = await f.api('GET', `/projects/${privateProject.id}/users`, { token });
        assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Project Not Found' }]);
      }
    });
  });
}
