import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };
const PAT_KEYS = ['active', 'created_at', 'description', 'expires_at', 'id', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'];
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`${dialect}: personal access tokens`, () => {
    let f: TestForgelet;
    let alice: User;
    let bob: User;

    before(async () => {
      f = await startTestServer(dialect);
      [alice, bob] = await createUsers(f, ['alice', 'bob']);
    });
    after(() => f.stop());

    const create = async (user: User, body: Record<string, unknown> = {}) => {
      const r = await f.api('POST', `/users/${user.id}/personal_access_tokens`, { body: { name: 'made', scopes: ['api'], ...body } });
      expectStatus(r, 201);
      return r.body;
    };

    it('an admin creates a token for a user; the clear text is shown once', async () => {
      const t = await create(alice, { name: 'ci', description: 'for CI', scopes: ['read_api', 'read_repository'], expires_at: '2099-12-31' });
      assert.deepEqual(Object.keys(t).sort(), [...PAT_KEYS, 'token'].sort());
      assert.match(t.token, /^glpat-[A-Za-z0-9_-]{20,}$/);
      assert.match(t.created_at, ISO);
      assert.deepEqual(
        { ...t, id: 0, token: '', created_at: '' },
        { id: 0, name: 'ci', description: 'for CI', revoked: false, created_at: '', scopes: ['read_api', 'read_repository'], user_id: alice.id, last_used_at: null, active: true, expires_at: '2099-12-31', token: '' },
      );
      const shown = await f.api('GET', `/personal_access_tokens/${t.id}`);
      assert.deepEqual(Object.keys(shown.body).sort(), PAT_KEYS, 'never shown again');
      const me = await f.api('GET', '/user', { token: t.token });
      assert.equal(me.body.id, alice.id);
      const empty = await f.api('POST', `/users/${alice.id}/personal_access_tokens`, { body: { name: 'x', scopes: [] } });
      assert.equal(empty.status, 400);
      const past = await f.api('POST', `/users/${alice.id}/personal_access_tokens`, { body: { name: 'x', scopes: ['api'], expires_at: '2000-01-01' } });
      assert.equal(past.status, 400);
      const ghost = await f.api('POST', '/users/999999/personal_access_tokens', { body: { name: 'x', scopes: ['api'] } });
      assert.deepEqual([ghost.status, ghost.body], [404, { message: '404 User Not Found' }]);
    });

    it('users list their own tokens; admins list everyone\'s and filter', async () => {
      const mine = await f.api('GET', '/personal_access_tokens', { token: bob.token });
      expectStatus(mine, 200);
      assert.ok(mine.body.length >= 1);
      assert.ok(mine.body.every((t: any) => t.user_id === bob.id));
      assert.ok(mine.body.every((t: any) => t.token === undefined));
      const sneaky = await f.api('GET', `/personal_access_tokens?user_id=${alice.id}`, { token: bob.token });
      assert.ok(sneaky.body.every((t: any) => t.user_id === bob.id), 'user_id is ignored for non-admins');
      const all = await f.api('GET', '/personal_access_tokens?per_page=100');
      assert.ok(new Set(all.body.map((t: any) => t.user_id)).size >= 3);
      const alices = await f.api('GET', `/personal_access_tokens?user_id=${alice.id}&search=CI`);
      assert.deepEqual(alices.body.map((t: any) => t.name), ['ci']);
    });

    it('GET /personal_access_tokens/self describes the token in use; others\' tokens are 404', async () => {
      const t = await create(bob, { name: 'selfie', scopes: ['read_user'] });
      const self = await f.api('GET', '/personal_access_tokens/self', { token: t.token });
      expectStatus(self, 200);
      assert.deepEqual([self.body.id, self.body.name, self.body.scopes, self.body.user_id], [t.id, 'selfie', ['read_user'], bob.id]);
      const byId = await f.api('GET', `/personal_access_tokens/${t.id}`, { token: bob.token });
      expectStatus(byId, 200);
      const notYours = await f.api('GET', `/personal_access_tokens/${t.id}`, { token: alice.token });
      assert.deepEqual([notYours.status, notYours.body], [404, { message: '404 Personal Access Token Not Found' }]);
      const missing = await f.api('GET', '/personal_access_tokens/999999', { token: bob.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Personal Access Token Not Found' }]);
    });

    it('revokes a token by id or self: 204, then 401 for the token, listed as revoked', async () => {
      const a = await create(bob, { name: 'revoke-me' });
      const b = await create(bob, { name: 'revoke-self' });
      const notYours = await f.api('DELETE', `/personal_access_tokens/${a.id}`, { token: alice.token });
      assert.equal(notYours.status, 404);
      expectStatus(await f.api('GET', '/user', { token: a.token }), 200);
      const byId = await f.api('DELETE', `/personal_access_tokens/${a.id}`, { token: bob.token });
      expectStatus(byId, 204);
      assert.equal(byId.text, '');
      const self = await f.api('DELETE', '/personal_access_tokens/self', { token: b.token });
      expectStatus(self, 204);
      for (const t of [a, b]) {
        const r = await f.api('GET', '/user', { token: t.token });
        assert.deepEqual([r.status, r.body], [401, REVOKED]);
      }
      const listed = await f.api('GET', `/personal_access_tokens?user_id=${bob.id}&revoked=true`);
      assert.deepEqual(listed.body.map((t: any) => [t.name, t.revoked, t.active]).sort(), [['revoke-me', true, false], ['revoke-self', true, false]]);
      const active = await f.api('GET', `/personal_access_tokens?user_id=${bob.id}&state=active`);
      assert.ok(active.body.every((t: any) => t.active && !t.revoked));
      const again = await f.api('DELETE', `/personal_access_tokens/${a.id}`, { token: bob.token });
      assert.equal(again.status, 400);
    });

    it('rotates a token: a new secret with the same name and scopes, the old one revoked', async () => {
      const old = await create(alice, { name: 'rotating', scopes: ['api', 'read_user'] });
      const weekBefore = inDays(7);
      const r = await f.api('POST', `/personal_access_tokens/${old.id}/rotate`, { token: alice.token });
      expectStatus(r, 200);
      assert.notEqual(r.body.id, old.id);
      assert.notEqual(r.body.token, old.token);
      assert.match(r.body.token, /^glpat-/);
      assert.deepEqual([r.body.name, r.body.scopes, r.body.user_id, r.body.revoked, r.body.active], ['rotating', ['api', 'read_user'], alice.id, false, true]);
      assert.ok([weekBefore, inDays(7)].includes(r.body.expires_at), `default expiry: one week, got ${r.body.expires_at}`);
      assert.deepEqual((await f.api('GET', '/user', { token: old.token })).body, REVOKED);
      expectStatus(await f.api('GET', '/user', { token: r.body.token }), 200);
      const twice = await f.api('POST', `/personal_access_tokens/${old.id}/rotate`, { token: alice.token });
      assert.equal(twice.status, 400, 'a revoked token cannot be rotated');

      const month = inDays(30);
      const self = await f.api('POST', '/personal_access_tokens/self/rotate', { token: r.body.token, body: { expires_at: month } });
      expectStatus(self, 200);
      assert.equal(self.body.expires_at, month);
      assert.deepEqual((await f.api('GET', '/user', { token: r.body.token })).body, REVOKED);
      expectStatus(await f.api('GET', '/user', { token: self.body.token }), 200);
      const notYours = await f.api('POST', `/personal_access_tokens/${self.body.id}/rotate`, { token: bob.token });
      assert.equal(notYours.status, 404);
    });
  });

  describe(`${dialect}: project and group access tokens`, () => {
    let f: TestForgelet;
    let owner: User;
    let maint: User;
    let dev: User;
    let outsider: User;
    let group: any;
    let app: any;
    let other: any;
    let open: any;

    before(async () => {
      f = await startTestServer(dialect);
      [owner, maint, dev, outsider] = await createUsers(f, ['rowner', 'rmaint', 'rdev', 'routsider']);
      group = await createGroup(f, owner.token, { name: 'Bots', path: 'bots' });
      app = await createProject(f, owner.token, { name: 'App', namespace_id: group.id });
      other = await createProject(f, owner.token, { name: 'Other', namespace_id: group.id });
      open = await createProject(f, owner.token, { name: 'Open', visibility: 'public' });
      await addMember(f, 'projects', app.id, maint.id, 40);
      await addMember(f, 'projects', app.id, dev.id, 30);
    });
    after(() => f.stop());

    it('a project token creates a bot member and works on that project only', async () => {
      const r = await f.api('POST', `/projects/${app.id}/access_tokens`, { token: maint.token, body: { name: 'deployer', scopes: ['api'], access_level: 30, expires_at: '2099-01-01' } });
      expectStatus(r, 201);
      const t = r.body;
      assert.deepEqual(
        { ...t, id: 0, user_id: 0, created_at: '', token: '' },
        {
          id: 0, name: 'deployer', description: null, revoked: false, created_at: '', scopes: ['api'], user_id: 0, last_used_at: null, active: true,
          expires_at: '2099-01-01', token: '', access_level: 30, resource_type: 'project', resource_id: app.id,
        },
      );
      assert.match(t.token, /^glpat-/);

      const members = await f.api('GET', `/projects/${app.id}/members`, { token: maint.token });
      const bot = members.body.find((m: any) => m.id === t.user_id);
      assert.ok(bot, 'the bot is a direct member');
      assert.equal(bot.access_level, 30);
      assert.equal(bot.expires_at, '2099-01-01');
      const botUser = await f.api('GET', `/users/${t.user_id}`);
      assert.equal(botUser.body.bot, true);

      const me = await f.api('GET', '/user', { token: t.token });
      assert.equal(me.body.id, t.user_id);
      expectStatus(await f.api('GET', `/projects/${app.id}`, { token: t.token }), 200);
      const edit = await f.api('PUT', `/projects/${app.id}`, { token: t.token, body: { description: 'by bot' } });
      assert.deepEqual([edit.status, edit.body], [403, { message: '403 Forbidden' }], 'a Developer bot cannot change settings');
      const elsewhere = await f.api('GET', `/projects/${other.id}`, { token: t.token });
      assert.deepEqual([elsewhere.status, elsewhere.body], [404, { message: '404 Project Not Found' }]);
      const grp = await f.api('GET', `/groups/${group.id}`, { token: t.token });
      assert.equal(grp.status, 200, 'a member of a project in the group sees the group');
      expectStatus(await f.api('GET', `/projects/${open.id}`, { token: t.token }), 200);

      const listed = await f.api('GET', `/projects/${app.id}/access_tokens`, { token: maint.token });
      assert.deepEqual(listed.body.map((x: any) => [x.id, x.name, x.token]), [[t.id, 'deployer', undefined]]);
      const one = await f.api('GET', `/projects/${app.id}/access_tokens/${t.id}`, { token: maint.token });
      assert.deepEqual([one.body.id, one.body.access_level], [t.id, 30]);
      const wrongProject = await f.api('GET', `/projects/${other.id}/access_tokens/${t.id}`, { token: owner.token });
      assert.deepEqual([wrongProject.status, wrongProject.body], [404, { message: '404 Project Access Token Not Found' }]);
      const self = await f.api('GET', '/personal_access_tokens/self', { token: t.token });
      assert.equal(self.body.id, t.id);
    });

    it('revoking a project token: 204, then 401 for it and the bot leaves the members', async () => {
      const t = (await f.api('POST', `/projects/${app.id}/access_tokens`, { token: owner.token, body: { name: 'temp', scopes: ['read_api'] } })).body;
      assert.equal(t.access_level, 40, 'Maintainer by default');
      expectStatus(await f.api('GET', `/projects/${app.id}`, { token: t.token }), 200);
      const r = await f.api('DELETE', `/projects/${app.id}/access_tokens/${t.id}`, { token: maint.token });
      expectStatus(r, 204);
      for (const path of ['/user', `/projects/${app.id}`, `/projects/${open.id}`]) {
        const after = await f.api('GET', path, { token: t.token });
        assert.deepEqual([after.status, after.body], [401, REVOKED], path);
      }
      const members = await f.api('GET', `/projects/${app.id}/members`, { token: maint.token });
      assert.equal(members.body.some((m: any) => m.id === t.user_id), false);
      const again = await f.api('DELETE', `/projects/${app.id}/access_tokens/${t.id}`, { token: maint.token });
      assert.equal(again.status, 400);
      const listed = await f.api('GET', `/projects/${app.id}/access_tokens?state=inactive`, { token: maint.token });
      assert.ok(listed.body.some((x: any) => x.id === t.id && x.revoked && !x.active));
    });

    it('rotating a project token revokes the old secret', async () => {
      const t = (await f.api('POST', `/projects/${app.id}/access_tokens`, { token: owner.token, body: { name: 'rot', scopes: ['api'], access_level: 20 } })).body;
      const r = await f.api('POST', `/projects/${app.id}/access_tokens/${t.id}/rotate`, { token: maint.token });
      expectStatus(r, 200);
      assert.deepEqual([r.body.name, r.body.access_level, r.body.user_id, r.body.resource_id], ['rot', 20, t.user_id, app.id]);
      assert.deepEqual((await f.api('GET', '/user', { token: t.token })).body, REVOKED);
      const me = await f.api('GET', '/user', { token: r.body.token });
      assert.equal(me.body.id, t.user_id);
    });

    it('who may create project tokens, and at which level', async () => {
      const byDev = await f.api('POST', `/projects/${app.id}/access_tokens`, { token: dev.token, body: { name: 'x', scopes: ['api'] } });
      assert.deepEqual([byDev.status, byDev.body], [403, { message: '403 Forbidden' }]);
      const byOutsider = await f.api('POST', `/projects/${app.id}/access_tokens`, { token: outsider.token, body: { name: 'x', scopes: ['api'] } });
      assert.deepEqual([byOutsider.status, byOutsider.body], [404, { message: '404 Project Not Found' }]);
      const tooHigh = await f.api('POST', `/projects/${app.id}/access_tokens`, { token: maint.token, body: { name: 'x', scopes: ['api'], access_level: 50 } });
      assert.equal(tooHigh.status, 400);
      const sudo = await f.api('POST', `/projects/${app.id}/access_tokens`, { token: maint.token, body: { name: 'x', scopes: ['sudo'] } });
      assert.deepEqual([sudo.status, sudo.body], [400, { error: 'scopes does not have a valid value' }]);
      const listByDev = await f.api('GET', `/projects/${app.id}/access_tokens`, { token: dev.token });
      assert.equal(listByDev.status, 403);
      const members = await f.api('GET', `/projects/${app.id}/members`, { token: owner.token });
      assert.equal(members.body.filter((m: any) => m.username.includes('_bot_')).length, 2, 'refused requests created no bots');
    });

    it('a group token reaches the group\'s private projects; deleting the project or group ends its tokens', async () => {
      const gt = await f.api('POST', `/groups/${group.id}/access_tokens`, { token: owner.token, body: { name: 'group-bot', scopes: ['read_api'], access_level: 20 } });
      expectStatus(gt, 201);
      assert.deepEqual([gt.body.resource_type, gt.body.resource_id, gt.body.access_level], ['group', group.id, 20]);
      expectStatus(await f.api('GET', `/projects/${other.id}`, { token: gt.body.token }), 200);
      const gm = await f.api('GET', `/groups/${group.id}/members`, { token: owner.token });
      assert.ok(gm.body.some((m: any) => m.id === gt.body.user_id && m.access_level === 20));
      const byMaint = await f.api('POST', `/groups/${group.id}/access_tokens`, { token: maint.token, body: { name: 'x', scopes: ['api'] } });
      assert.equal(byMaint.status, 403, 'project Maintainers see the group but cannot manage its tokens');

      const doomed = await createProject(f, owner.token, { name: 'Doomed', namespace_id: group.id });
      const pt = (await f.api('POST', `/projects/${doomed.id}/access_tokens`, { token: owner.token, body: { name: 'd', scopes: ['api'] } })).body;
      expectStatus(await f.api('GET', '/user', { token: pt.token }), 200);
      expectStatus(await f.api('DELETE', `/projects/${doomed.id}`, { token: owner.token }), 202);
      const after = await f.api('GET', '/user', { token: pt.token });
      assert.equal(after.status, 401, 'the bot of a deleted project cannot authenticate');

      const gone = await createGroup(f, owner.token, { name: 'Gone', path: 'gone' });
      const goneProject = await createProject(f, owner.token, { name: 'Inside', namespace_id: gone.id });
      const goneGroupToken = (await f.api('POST', `/groups/${gone.id}/access_tokens`, { token: owner.token, body: { name: 'g', scopes: ['api'] } })).body;
      const goneProjectToken = (await f.api('POST', `/projects/${goneProject.id}/access_tokens`, { token: owner.token, body: { name: 'p', scopes: ['api'] } })).body;
      expectStatus(await f.api('DELETE', `/groups/${gone.id}`, { token: owner.token }), 202);
      for (const t of [goneGroupToken, goneProjectToken]) assert.equal((await f.api('GET', '/user', { token: t.token })).status, 401);
      expectStatus(await f.api('GET', '/user', { token: gt.body.token }), 200);
    });
  });
}
