import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const FORBIDDEN = { message: '403 Forbidden' };
const MEMBER_NOT_FOUND = { message: '404 Member Not Found' };
const MEMBER_KEYS = ['access_level', 'avatar_url', 'created_at', 'created_by', 'expires_at', 'id', 'locked', 'membership_state', 'name', 'state', 'username', 'web_url'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: members`, () => {
    let f: TestForgelet;
    let owner: User;
    let gdev: User;
    let maint: User;
    let guest: User;
    let newbie: User;
    let outsider: User;
    let org: any; // private group org, subgroup org/team, project org/team/app
    let team: any;
    let app: any;

    const levels = async (path: string, token = owner.token) => {
      const r = await f.api('GET', path, { token });
      expectStatus(r, 200);
      return r.body.map((m: any) => [m.username, m.access_level]);
    };

    before(async () => {
      f = await startTestServer(dialect);
      [owner, gdev, maint, guest, newbie, outsider] = await createUsers(f, ['mowner', 'mdev', 'mmaint', 'mguest', 'newbie', 'moutsider']);
      org = await createGroup(f, owner.token, { name: 'Org', path: 'org' });
      team = await createGroup(f, owner.token, { name: 'Team', path: 'team', parent_id: org.id });
      app = await createProject(f, owner.token, { name: 'App', namespace_id: team.id });
      await addMember(f, 'groups', org.id, gdev.id, 30);
      await addMember(f, 'projects', app.id, maint.id, 40);
      await addMember(f, 'projects', app.id, guest.id, 10);
    });
    after(() => f.stop());

    it('adds a member by user_id or username: 201 with the member entity', async () => {
      const r = await f.api('POST', `/groups/${team.id}/members`, { token: owner.token, body: { user_id: newbie.id, access_level: 20, expires_at: '2099-01-31' } });
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), MEMBER_KEYS);
      assert.deepEqual(
        { ...r.body, created_at: '', created_by: r.body.created_by.username },
        {
          id: newbie.id, username: 'newbie', name: 'newbie', state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/newbie`,
          access_level: 20, created_at: '', created_by: 'mowner', expires_at: '2099-01-31', membership_state: 'active',
        },
      );
      const byName = await f.api('POST', `/projects/${app.id}/members`, { token: owner.token, body: { username: 'moutsider', access_level: 30 } });
      expectStatus(byName, 201);
      assert.equal(byName.body.id, outsider.id);
      expectStatus(await f.api('DELETE', `/projects/${app.id}/members/${outsider.id}`, { token: owner.token }), 204);
      expectStatus(await f.api('DELETE', `/groups/${team.id}/members/${newbie.id}`, { token: owner.token }), 204);
    });

    it('adding an existing member is 409 "Member already exists"', async () => {
      const r = await f.api('POST', `/projects/${app.id}/members`, { token: owner.token, body: { user_id: guest.id, access_level: 30 } });
      assert.deepEqual([r.status, r.body], [409, { message: 'Member already exists' }]);
      assert.deepEqual(await levels(`/projects/${app.id}/members`), [['mmaint', 40], ['mguest', 10]], 'the level did not change');
    });

    it('unknown users and non-members: 404', async () => {
      const noUser = await f.api('POST', `/projects/${app.id}/members`, { token: owner.token, body: { user_id: 999999, access_level: 30 } });
      assert.deepEqual([noUser.status, noUser.body], [404, { message: '404 User Not Found' }]);
      const notMember = await f.api('GET', `/projects/${app.id}/members/${outsider.id}`, { token: owner.token });
      assert.deepEqual([notMember.status, notMember.body], [404, MEMBER_NOT_FOUND]);
      for (const method of ['PUT', 'DELETE']) {
        const r = await f.api(method, `/projects/${app.id}/members/${outsider.id}`, { token: owner.token, body: method === 'PUT' ? { access_level: 30 } : undefined });
        assert.deepEqual([r.status, r.body], [404, MEMBER_NOT_FOUND], method);
      }
    });

    it('edits the level and expiry, and removes members (204)', async () => {
      const u = (await createUsers(f, ['editee']))[0]!;
      await addMember(f, 'projects', app.id, u.id, 20);
      const r = await f.api('PUT', `/projects/${app.id}/members/${u.id}`, { token: maint.token, body: { access_level: 30, expires_at: '2099-06-01' } });
      expectStatus(r, 200);
      assert.deepEqual([r.body.access_level, r.body.expires_at], [30, '2099-06-01']);
      const past = await f.api('PUT', `/projects/${app.id}/members/${u.id}`, { token: maint.token, body: { access_level: 30, expires_at: '2001-01-01' } });
      assert.deepEqual([past.status, past.body], [400, { message: { expires_at: ['cannot be a date in the past'] } }]);
      const cleared = await f.api('PUT', `/projects/${app.id}/members/${u.id}`, { token: maint.token, body: { access_level: 30, expires_at: null } });
      assert.equal(cleared.body.expires_at, null);
      const one = await f.api('GET', `/projects/${app.id}/members/${u.id}`, { token: guest.token });
      assert.deepEqual([one.body.username, one.body.access_level], ['editee', 30]);
      const del = await f.api('DELETE', `/projects/${app.id}/members/${u.id}`, { token: maint.token });
      expectStatus(del, 204);
      assert.equal(del.text, '');
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/members/${u.id}`, { token: owner.token })).body, MEMBER_NOT_FOUND);
    });

    it('/members/all adds inherited members with their highest level', async () => {
      assert.deepEqual(await levels(`/projects/${app.id}/members`), [['mmaint', 40], ['mguest', 10]]);
      assert.deepEqual(await levels(`/projects/${app.id}/members/all`), [['mowner', 50], ['mdev', 30], ['mmaint', 40], ['mguest', 10]]);
      assert.deepEqual(await levels(`/groups/${team.id}/members`), [['mowner', 50]]);
      assert.deepEqual(await levels(`/groups/${team.id}/members/all`), [['mowner', 50], ['mdev', 30]]);
      const inherited = await f.api('GET', `/projects/${app.id}/members/all/${owner.id}`, { token: guest.token });
      expectStatus(inherited, 200);
      assert.deepEqual([inherited.body.username, inherited.body.access_level], ['mowner', 50]);
      const direct = await f.api('GET', `/projects/${app.id}/members/${owner.id}`, { token: guest.token });
      assert.deepEqual([direct.status, direct.body], [404, MEMBER_NOT_FOUND]);
      const total = await f.api('GET', `/projects/${app.id}/members/all?per_page=2`, { token: owner.token });
      assert.equal(total.headers.get('x-total'), '4');
      assert.equal(total.body.length, 2);
      const filtered = await f.api('GET', `/projects/${app.id}/members/all?query=MDEV`, { token: owner.token });
      assert.deepEqual(filtered.body.map((m: any) => m.username), ['mdev']);
    });

    it('an inherited level cannot be lowered by a direct membership, only raised', async () => {
      for (const [kind, id] of [['projects', app.id], ['groups', team.id]] as const) {
        const r = await f.api('POST', `/${kind}/${id}/members`, { token: owner.token, body: { user_id: gdev.id, access_level: 20 } });
        assert.deepEqual(
          [r.status, r.body],
          [400, { message: { access_level: ['should be greater than or equal to Developer inherited membership from group Org'] } }],
          kind,
        );
      }
      const raised = await f.api('POST', `/projects/${app.id}/members`, { token: owner.token, body: { user_id: gdev.id, access_level: 40 } });
      expectStatus(raised, 201);
      assert.deepEqual((await levels(`/projects/${app.id}/members/all`)).find(([u]: string[]) => u === 'mdev'), ['mdev', 40]);
      const lowered = await f.api('PUT', `/projects/${app.id}/members/${gdev.id}`, { token: owner.token, body: { access_level: 10 } });
      assert.equal(lowered.status, 400);
      expectStatus(await f.api('DELETE', `/projects/${app.id}/members/${gdev.id}`, { token: owner.token }), 204);
    });

    it('only Owners grant, change or remove Owner', async () => {
      const target = (await createUsers(f, ['would-be-owner']))[0]!;
      const grant = await f.api('POST', `/projects/${app.id}/members`, { token: maint.token, body: { user_id: target.id, access_level: 50 } });
      assert.deepEqual([grant.status, grant.body], [403, FORBIDDEN]);
      const lesser = await f.api('POST', `/projects/${app.id}/members`, { token: maint.token, body: { user_id: target.id, access_level: 30 } });
      expectStatus(lesser, 201);
      const promote = await f.api('PUT', `/projects/${app.id}/members/${target.id}`, { token: maint.token, body: { access_level: 50 } });
      assert.deepEqual([promote.status, promote.body], [403, FORBIDDEN]);
      const byOwner = await f.api('PUT', `/projects/${app.id}/members/${target.id}`, { token: owner.token, body: { access_level: 50 } });
      expectStatus(byOwner, 200);
      assert.equal(byOwner.body.access_level, 50);
      const demote = await f.api('PUT', `/projects/${app.id}/members/${target.id}`, { token: maint.token, body: { access_level: 30 } });
      assert.deepEqual([demote.status, demote.body], [403, FORBIDDEN]);
      const remove = await f.api('DELETE', `/projects/${app.id}/members/${target.id}`, { token: maint.token });
      assert.deepEqual([remove.status, remove.body], [403, FORBIDDEN]);
      assert.deepEqual((await levels(`/projects/${app.id}/members`)).find(([u]: string[]) => u === 'would-be-owner'), ['would-be-owner', 50]);
      expectStatus(await f.api('DELETE', `/projects/${app.id}/members/${target.id}`, { token: owner.token }), 204);
    });

    it('Minimal Access is only for top-level groups', async () => {
      const r = await f.api('POST', `/projects/${app.id}/members`, { token: owner.token, body: { user_id: newbie.id, access_level: 5 } });
      assert.deepEqual([r.status, r.body], [400, { message: { access_level: ['is not included in the list'] } }]);
      const sub = await f.api('POST', `/groups/${team.id}/members`, { token: owner.token, body: { user_id: newbie.id, access_level: 5 } });
      assert.equal(sub.status, 400);
      const top = await f.api('POST', `/groups/${org.id}/members`, { token: owner.token, body: { user_id: newbie.id, access_level: 5 } });
      expectStatus(top, 201);
      // Minimal Access shows the group but not its private content
      expectStatus(await f.api('GET', `/groups/${org.id}`, { token: newbie.token }), 200);
      assert.equal((await f.api('GET', `/projects/${app.id}`, { token: newbie.token })).status, 404);
      expectStatus(await f.api('DELETE', `/groups/${org.id}/members/${newbie.id}`, { token: owner.token }), 204);
    });

    it('readers see members; non-members get 404; Developers and Guests cannot manage', async () => {
      expectStatus(await f.api('GET', `/projects/${app.id}/members`, { token: guest.token }), 200);
      for (const path of [`/projects/${app.id}/members`, `/projects/${app.id}/members/all`, `/projects/${app.id}/members/${maint.id}`]) {
        const r = await f.api('GET', path, { token: outsider.token });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }], path);
      }
      const groupR = await f.api('GET', `/groups/${org.id}/members`, { token: outsider.token });
      assert.deepEqual([groupR.status, groupR.body], [404, { message: '404 Group Not Found' }]);
      for (const token of [guest.token, gdev.token]) {
        const r = await f.api('POST', `/projects/${app.id}/members`, { token, body: { user_id: newbie.id, access_level: 10 } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      }
      const groupAdd = await f.api('POST', `/groups/${org.id}/members`, { token: gdev.token, body: { user_id: newbie.id, access_level: 10 } });
      assert.deepEqual([groupAdd.status, groupAdd.body], [403, FORBIDDEN]);
      const byOutsider = await f.api('POST', `/projects/${app.id}/members`, { token: outsider.token, body: { user_id: outsider.id, access_level: 40 } });
      assert.deepEqual([byOutsider.status, byOutsider.body], [404, { message: '404 Project Not Found' }]);
    });

    it('a Guest reads the private project but may not edit it; removing the membership removes access', async () => {
      const g = (await createUsers(f, ['short-guest']))[0]!;
      await addMember(f, 'projects', app.id, g.id, 10);
      expectStatus(await f.api('GET', `/projects/${app.id}`, { token: g.token }), 200);
      const edit = await f.api('PUT', `/projects/${app.id}`, { token: g.token, body: { description: 'guest' } });
      assert.deepEqual([edit.status, edit.body], [403, FORBIDDEN]);
      const leave = await f.api('DELETE', `/projects/${app.id}/members/${g.id}`, { token: g.token });
      expectStatus(leave, 204);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}`, { token: g.token })).body, { message: '404 Project Not Found' });
    });

    it('a group keeps at least one Owner', async () => {
      const g = await createGroup(f, owner.token, { name: 'Solo', path: 'solo' });
      const r = await f.api('DELETE', `/groups/${g.id}/members/${owner.id}`, { token: owner.token });
      assert.equal(r.status, 403);
      assert.deepEqual(await levels(`/groups/${g.id}/members`), [['mowner', 50]]);
      await addMember(f, 'groups', g.id, maint.id, 50);
      expectStatus(await f.api('DELETE', `/groups/${g.id}/members/${owner.id}`, { token: owner.token }), 204);
      assert.deepEqual(await levels(`/groups/${g.id}/members`, maint.token), [['mmaint', 50]]);
    });
  });
}
