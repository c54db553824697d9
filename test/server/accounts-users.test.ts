import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, expectStatus, snapshotCounts } from './http.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PUBLIC_KEYS = [
  'avatar_url', 'bio', 'bot', 'created_at', 'id', 'job_title', 'location', 'locked', 'name', 'organization', 'public_email',
  'state', 'username', 'web_url', 'website_url', 'work_information',
];
const DETAIL_KEYS = [
  ...PUBLIC_KEYS, 'can_create_group', 'can_create_project', 'email', 'external', 'last_activity_on', 'namespace_id', 'private_profile',
  'projects_limit', 'two_factor_enabled',
].sort();

for (const dialect of DIALECTS) {
  describe(`${dialect}: users`, () => {
    let f: TestForgelet;
    let viewer: { id: number; username: string; token: string };

    before(async () => {
      f = await startTestServer(dialect);
      viewer = await f.createUser('viewer');
    });
    after(() => f.stop());

    it('an admin creates a user: 201 with the full entity', async () => {
      const r = await f.api('POST', '/users', {
        body: {
          username: 'Grace', name: 'Grace Hopper', email: 'grace@example.com', password: 'ignored-secret', bio: 'COBOL',
          job_title: 'Rear Admiral', organization: 'US Navy', projects_limit: 5, can_create_group: false, skip_confirmation: true,
        },
      });
      expectStatus(r, 201);
      const u = r.body;
      assert.deepEqual(Object.keys(u).sort(), [...DETAIL_KEYS, 'is_admin'].sort());
      assert.equal(typeof u.id, 'number');
      assert.match(u.created_at, ISO);
      assert.equal(typeof u.namespace_id, 'number');
      assert.deepEqual(
        { ...u, id: 0, created_at: '', namespace_id: 0 },
        {
          id: 0, username: 'Grace', name: 'Grace Hopper', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/Grace`,
          created_at: '', bio: 'COBOL', location: '', public_email: null, website_url: '', organization: 'US Navy', job_title: 'Rear Admiral',
          bot: false, work_information: 'Rear Admiral at US Navy', email: 'grace@example.com', last_activity_on: null, projects_limit: 5,
          can_create_group: false, can_create_project: true, external: false, two_factor_enabled: false, private_profile: false,
          namespace_id: 0, is_admin: false,
        },
      );
      assert.equal(JSON.stringify(u).includes('ignored-secret'), false, 'the password is never echoed');
    });

    it('users are unique by username and email, case-insensitively, and share paths with groups', async () => {
      await f.createUser('dup');
      await createGroup(f, f.rootToken, { name: 'Taken Path', path: 'taken-path' });
      const before = await snapshotCounts(f);
      const cases: [Record<string, unknown>, string][] = [
        [{ username: 'dup', name: 'x', email: 'other1@example.com' }, 'Username has already been taken'],
        [{ username: 'DUP', name: 'x', email: 'other2@example.com' }, 'Username has already been taken'],
        [{ username: 'taken-path', name: 'x', email: 'other3@example.com' }, 'Username has already been taken'],
        [{ username: 'fresh', name: 'x', email: 'DUP@example.com' }, 'Email has already been taken'],
      ];
      for (const [body, message] of cases) {
        const r = await f.api('POST', '/users', { body });
        assert.deepEqual([r.status, r.body], [409, { message }], JSON.stringify(body));
      }
      assert.deepEqual(await snapshotCounts(f), before);
    });

    it('GET /users/:id shows the public profile to others and details to self and admins', async () => {
      const target = await f.createUser('target');
      const asOther = await f.api('GET', `/users/${target.id}`, { token: viewer.token });
      expectStatus(asOther, 200);
      assert.deepEqual(Object.keys(asOther.body).sort(), PUBLIC_KEYS);
      const anon = await f.api('GET', `/users/${target.id}`, { token: null });
      assert.deepEqual(Object.keys(anon.body).sort(), PUBLIC_KEYS);
      const self = await f.api('GET', `/users/${target.id}`, { token: target.token });
      assert.deepEqual(Object.keys(self.body).sort(), DETAIL_KEYS);
      assert.equal(self.body.email, 'target@example.com');
      const admin = await f.api('GET', `/users/${target.id}`);
      assert.deepEqual(Object.keys(admin.body).sort(), [...DETAIL_KEYS, 'is_admin'].sort());
      const byName = await f.api('GET', '/users/TARGET', { token: viewer.token });
      assert.equal(byName.body.id, target.id);
      const missing = await f.api('GET', '/users/999999');
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 User Not Found' }]);
    });

    it('GET /user is the caller, with is_admin only for admins', async () => {
      const me = await f.api('GET', '/user', { token: viewer.token });
      expectStatus(me, 200);
      assert.deepEqual(Object.keys(me.body).sort(), DETAIL_KEYS);
      assert.equal(me.body.id, viewer.id);
      const root = await f.api('GET', '/user');
      assert.equal(root.body.username, 'root');
      assert.equal(root.body.is_admin, true);
    });

    it('lists users with username and search filters and id-descending default order', async () => {
      const a = await f.createUser('lister-a');
      const b = await f.createUser('lister-b');
      const byName = await f.api('GET', '/users?username=LISTER-A', { token: viewer.token });
      assert.deepEqual(byName.body.map((u: any) => u.id), [a.id]);
      const search = await f.api('GET', '/users?search=lister', { token: viewer.token });
      assert.deepEqual(search.body.map((u: any) => u.id), [b.id, a.id]);
      const asc = await f.api('GET', '/users?search=lister&sort=asc');
      assert.deepEqual(asc.body.map((u: any) => u.id), [a.id, b.id]);
      const email = await f.api('GET', '/users?search=lister-b@example.com');
      assert.deepEqual(email.body.map((u: any) => u.id), [b.id]);
      assert.equal(search.body[0].email, undefined, 'non-admins do not see emails in lists');
    });

    it('an admin updates a user; a new username moves their personal projects', async () => {
      const u = await f.createUser('renamee');
      const p = await createProject(f, u.token, { name: 'Mine' });
      assert.equal(p.path_with_namespace, 'renamee/mine');
      const r = await f.api('PUT', `/users/${u.id}`, { body: { username: 'renamed', name: 'Renamed Person', bio: 'new bio', admin: false } });
      expectStatus(r, 200);
      assert.equal(r.body.username, 'renamed');
      assert.equal(r.body.name, 'Renamed Person');
      assert.equal(r.body.bio, 'new bio');
      assert.equal(r.body.web_url, `${f.url}/renamed`);
      const moved = await f.api('GET', '/projects/renamed%2Fmine', { token: u.token });
      expectStatus(moved, 200);
      assert.equal(moved.body.id, p.id);
      assert.equal(moved.body.path_with_namespace, 'renamed/mine');
      assert.equal(moved.body.name_with_namespace, 'Renamed Person / Mine');
      assert.equal(moved.body.web_url, `${f.url}/renamed/mine`);
      assert.deepEqual(moved.body.namespace, {
        id: r.body.namespace_id, name: 'Renamed Person', path: 'renamed', kind: 'user', full_path: 'renamed', parent_id: null, avatar_url: null,
        web_url: `${f.url}/renamed`,
      });
      const clash = await f.api('PUT', `/users/${u.id}`, { body: { username: 'viewer' } });
      assert.deepEqual([clash.status, clash.body], [409, { message: 'Username has already been taken' }]);
      const byOther = await f.api('PUT', `/users/${u.id}`, { token: viewer.token, body: { name: 'Hacked' } });
      assert.deepEqual([byOther.status, byOther.body], [403, { message: '403 Forbidden' }]);
      assert.equal((await f.api('GET', `/users/${u.id}`)).body.name, 'Renamed Person');
    });

    it('promoting a user to admin takes effect on their next request', async () => {
      const u = await f.createUser('promoted');
      assert.equal((await f.api('GET', '/user', { token: u.token })).body.is_admin, undefined);
      expectStatus(await f.api('PUT', `/users/${u.id}`, { body: { admin: true } }), 200);
      const me = await f.api('GET', '/user', { token: u.token });
      assert.equal(me.body.is_admin, true);
      expectStatus(await f.api('POST', '/users', { token: u.token, body: { username: 'made-by-promoted', name: 'M', email: 'm@example.com' } }), 201);
    });

    it('an admin deletes a user: their token, projects and memberships go with them', async () => {
      const u = await f.createUser('leaver');
      const personal = await createProject(f, u.token, { name: 'Personal' });
      const g = await createGroup(f, f.rootToken, { name: 'Leaver Group', path: 'leaver-group' });
      await addMember(f, 'groups', g.id, u.id, 30);
      const before = await snapshotCounts(f);

      const self = await f.api('DELETE', `/users/${(await f.api('GET', '/user')).body.id}`);
      assert.deepEqual([self.status, self.body], [403, { message: '403 Forbidden - You cannot delete yourself' }]);
      const byOther = await f.api('DELETE', `/users/${u.id}`, { token: viewer.token });
      assert.deepEqual([byOther.status, byOther.body], [403, { message: '403 Forbidden' }]);

      const r = await f.api('DELETE', `/users/${u.id}`);
      expectStatus(r, 204);
      assert.equal(r.text, '');
      assert.deepEqual((await f.api('GET', `/users/${u.id}`)).status, 404);
      const after = await f.api('GET', '/user', { token: u.token });
      assert.deepEqual([after.status, after.body], [401, { message: '401 Unauthorized' }]);
      assert.equal((await f.api('GET', `/projects/${personal.id}`)).status, 404);
      const members = await f.api('GET', `/groups/${g.id}/members`);
      assert.deepEqual(members.body.map((m: any) => m.username), ['root']);
      assert.deepEqual(await snapshotCounts(f), { ...before, users: before.users - 1, projects: before.projects - 1, tokens: before.tokens - 1 });
      const again = await f.api('DELETE', `/users/${u.id}`);
      assert.deepEqual([again.status, again.body], [404, { message: '404 User Not Found' }]);
    });
  });

  describe(`${dialect}: last_activity_on`, () => {
    const clock = fixedClock('2024-03-04T23:50:00.000Z');
    let f: TestForgelet;
    const activity = async (id: number) => (await f.api('GET', `/users/${id}`)).body.last_activity_on;

    before(async () => {
      f = await startTestServer(dialect, { clock });
    });
    after(() => f.stop());

    it("the day of the user's last API request that answered without an error, as GitLab's Users::ActivityService records it after the endpoint", async () => {
      const u = await f.createUser('active');
      const root = (await f.api('GET', '/user')).body;
      assert.equal(await activity(u.id), null, 'created, never called');
      const me = await f.api('GET', '/user', { token: u.token });
      assert.equal(me.body.last_activity_on, null, 'recorded after the endpoint answered');
      assert.equal(await activity(u.id), '2024-03-04');
      assert.equal(await activity(root.id), '2024-03-04', 'root called too');
      clock.advance(20 * 60_000); // the next day (UTC)
      const refused = await f.api('GET', '/projects/999999', { token: u.token });
      expectStatus(refused, 404);
      assert.equal(await activity(u.id), '2024-03-04', 'an answer with an error records nothing');
      expectStatus(await f.api('GET', '/projects', { token: u.token }), 200);
      assert.equal(await activity(u.id), '2024-03-05');
      // Sudo: the user acted as, not the admin's token owner.
      const sudoer = await f.createUser('sudoer', { admin: true, scopes: ['api', 'sudo'] });
      const other = await f.createUser('actedas');
      expectStatus(await f.api('GET', '/user', { token: sudoer.token, headers: { Sudo: 'actedas' } }), 200);
      assert.deepEqual([await activity(other.id), await activity(sudoer.id)], ['2024-03-05', null]);
    });
  });
}
