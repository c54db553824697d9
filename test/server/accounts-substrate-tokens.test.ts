/**
 * Impersonation tokens (admin, authenticate as the user, `impersonation: true`) and deploy
 * tokens (project, group, instance list; Basic auth on the NuGet feed within their scope).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, uniq } from './http.js';
import { basic, getRaw, nupkg, putPackage } from './packages-fixtures.js';

type User = { id: number; username: string; token: string };
const IMP_KEYS = ['active', 'created_at', 'description', 'expires_at', 'id', 'impersonation', 'last_used_at', 'name', 'revoked', 'scopes', 'user_id'];
const DEPLOY_KEYS = ['expired', 'expires_at', 'id', 'name', 'revoked', 'scopes', 'username'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: impersonation tokens`, () => {
    let f: TestForgelet;
    let alice: User;
    let bob: User;

    before(async () => {
      f = await startTestServer(dialect);
      [alice, bob] = await createUsers(f, [uniq('imp-alice'), uniq('imp-bob')]);
    });
    after(() => f.stop());

    it('an admin creates one: shown once, authenticates as the user, impersonation true, stored hashed', async () => {
      const r = await f.api('POST', `/users/${alice.id}/impersonation_tokens`, { body: { name: 'support', scopes: ['api', 'read_user'], expires_at: '2099-01-01' } });
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), [...IMP_KEYS, 'token'].sort());
      assert.match(r.body.token, /^glpat-/);
      assert.deepEqual([r.body.impersonation, r.body.user_id, r.body.scopes, r.body.active], [true, alice.id, ['api', 'read_user'], true]);
      const me = await f.api('GET', '/user', { token: r.body.token });
      assert.equal(me.body.username, alice.username);
      const shown = await f.api('GET', `/users/${alice.id}/impersonation_tokens/${r.body.id}`);
      assert.deepEqual(Object.keys(shown.body).sort(), IMP_KEYS, 'never shown again');
      const stored = await f.api('GET', `/users/${bob.id}/impersonation_tokens/${r.body.id}`);
      assert.deepEqual([stored.status, stored.body], [404, { message: '404 Impersonation Token Not Found' }], "another user's path");
      const own = await f.api('GET', '/personal_access_tokens', { token: alice.token });
      assert.ok(own.body.every((t: any) => t.id !== r.body.id), 'users do not list the impersonation tokens made for them');
    });

    it('lists with a state filter; revoke is 204 and the token stops working', async () => {
      const a = (await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { body: { name: 'one', scopes: 'api' } })).body;
      const b = (await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { body: { name: 'two', scopes: ['read_api'] } })).body;
      expectStatus(await f.api('DELETE', `/users/${bob.id}/impersonation_tokens/${a.id}`), 204);
      const revoked = await f.api('GET', '/user', { token: a.token });
      assert.equal(revoked.status, 401);
      const all = await f.api('GET', `/users/${bob.id}/impersonation_tokens`);
      assert.deepEqual(all.body.map((t: any) => t.id), [a.id, b.id]);
      const active = await f.api('GET', `/users/${bob.id}/impersonation_tokens?state=active`);
      assert.deepEqual(active.body.map((t: any) => t.id), [b.id]);
      const inactive = await f.api('GET', `/users/${bob.id}/impersonation_tokens?state=inactive`);
      assert.deepEqual(inactive.body.map((t: any) => [t.id, t.revoked, t.active]), [[a.id, true, false]]);
    });

    it('admins only; bad input names the field', async () => {
      const asUser = await f.api('GET', `/users/${bob.id}/impersonation_tokens`, { token: alice.token });
      assert.equal(asUser.status, 403);
      const create = await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { token: alice.token, body: { name: 'x', scopes: ['api'] } });
      assert.equal(create.status, 403);
      const noScopes = await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { body: { name: 'x' } });
      assert.deepEqual([noScopes.status, noScopes.body], [400, { error: 'scopes is missing' }]);
      const badScope = await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { body: { name: 'x', scopes: ['everything'] } });
      assert.deepEqual([badScope.status, badScope.body], [400, { error: 'scopes does not have a valid value' }]);
      const past = await f.api('POST', `/users/${bob.id}/impersonation_tokens`, { body: { name: 'x', scopes: ['api'], expires_at: '2000-01-01' } });
      assert.equal(past.status, 400);
      assert.match(JSON.stringify(past.body), /expires_at/);
      const state = await f.api('GET', `/users/${bob.id}/impersonation_tokens?state=gone`);
      assert.deepEqual([state.status, state.body], [400, { error: 'state does not have a valid value' }]);
      const ghost = await f.api('GET', '/users/99999999/impersonation_tokens');
      assert.deepEqual([ghost.status, ghost.body], [404, { message: '404 User Not Found' }]);
    });
  });

  describe(`${dialect}: deploy tokens`, () => {
    let f: TestForgelet;
    let maintainer: User;
    let developer: User;
    let group: any;
    let sub: any;
    let project: any;
    let elsewhere: any;

    before(async () => {
      f = await startTestServer(dialect);
      [maintainer, developer] = await createUsers(f, [uniq('dt-maint'), uniq('dt-dev')]);
      group = await createGroup(f, f.rootToken, { name: 'Deploy', path: uniq('deploy') });
      sub = await createGroup(f, f.rootToken, { name: 'Sub', path: 'sub', parent_id: group.id });
      project = await createProject(f, f.rootToken, { name: 'feed', namespace_id: sub.id });
      elsewhere = await createProject(f, f.rootToken, { name: 'elsewhere' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', group.id, developer.id, 30);
    });
    after(() => f.stop());

    it('project tokens: create (shown once, default username), get, list with active, delete; Maintainer only', async () => {
      const r = await f.api('POST', `/projects/${project.id}/deploy_tokens`, {
        token: maintainer.token,
        body: { name: 'ci', scopes: ['read_package_registry', 'write_package_registry'], expires_at: '2099-01-01T00:00:00Z' },
      });
      expectStatus(r, 201);
      assert.deepEqual(Object.keys(r.body).sort(), [...DEPLOY_KEYS, 'token'].sort());
      assert.match(r.body.token, /^gldt-/);
      assert.deepEqual(
        { ...r.body, id: 0, token: '' },
        { id: 0, name: 'ci', username: `gitlab+deploy-token-${r.body.id}`, expires_at: '2099-01-01T00:00:00.000Z', scopes: ['read_package_registry', 'write_package_registry'], revoked: false, expired: false, token: '' },
      );
      const got = await f.api('GET', `/projects/${project.id}/deploy_tokens/${r.body.id}`, { token: maintainer.token });
      assert.deepEqual(Object.keys(got.body).sort(), DEPLOY_KEYS);
      const named = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'named', scopes: 'read_repository', username: 'deployer+1' } });
      assert.equal(named.body.username, 'deployer+1');
      const list = await f.api('GET', `/projects/${project.id}/deploy_tokens?active=true`, { token: maintainer.token });
      assert.deepEqual(list.body.map((t: any) => t.name), ['ci', 'named']);
      const asDev = await f.api('GET', `/projects/${project.id}/deploy_tokens`, { token: developer.token });
      assert.equal(asDev.status, 403);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/deploy_tokens/${named.body.id}`, { token: maintainer.token }), 204);
      const gone = await f.api('GET', `/projects/${project.id}/deploy_tokens/${named.body.id}`, { token: maintainer.token });
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Deploy Token Not Found' }]);
      const instance = await f.api('GET', '/deploy_tokens');
      assert.ok(instance.body.some((t: any) => t.id === r.body.id));
      assert.equal((await f.api('GET', '/deploy_tokens', { token: maintainer.token })).status, 403);
    });

    it('bad input names the field', async () => {
      const scope = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'x', scopes: ['api'] } });
      assert.deepEqual([scope.status, scope.body], [400, { error: 'scopes does not have a valid value' }]);
      const noName = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { scopes: ['read_repository'] } });
      assert.deepEqual([noName.status, noName.body], [400, { error: 'name is missing' }]);
      const empty = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'x', scopes: [] } });
      assert.deepEqual([empty.status, empty.body], [400, { message: "Scopes can't be blank" }]);
      const user = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'x', scopes: ['read_repository'], username: 'has space' } });
      assert.equal(user.status, 400);
      assert.match(user.body.message, /Username/);
      const when = await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'x', scopes: ['read_repository'], expires_at: 'soon' } });
      assert.deepEqual([when.status, when.body], [400, { error: 'expires_at is invalid' }]);
    });

    it('a project token pushes and reads packages of its project only, with the Basic username it was given', async () => {
      const t = (await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'feed', scopes: ['read_package_registry', 'write_package_registry'] } })).body;
      const file = await nupkg({ id: 'Deploy.Pkg', version: '1.0.0' });
      const pushed = await putPackage(f, `/projects/${project.id}/packages/nuget`, file, { Authorization: basic(t.username, t.token) });
      assert.deepEqual([pushed.status, pushed.body], [201, { message: '201 Created' }]);
      const search = await getRaw(f, `/projects/${project.id}/packages/nuget/query?q=deploy`, { Authorization: basic(t.username, t.token) });
      assert.equal(search.status, 200);
      assert.deepEqual(search.json.data.map((d: any) => d.id), ['Deploy.Pkg']);
      const header = await getRaw(f, `/projects/${project.id}/packages/nuget/query?q=deploy`, { 'Deploy-Token': t.token });
      assert.deepEqual([header.status, header.json?.totalHits], [200, 1], 'the Deploy-Token header');
      const apiKey = await putPackage(f, `/projects/${project.id}/packages/nuget`, await nupkg({ id: 'Deploy.Pkg', version: '1.0.2' }), { 'X-NuGet-ApiKey': t.token });
      assert.equal(apiKey.status, 201, 'the NuGet API key');
      const wrongName = await putPackage(f, `/projects/${project.id}/packages/nuget`, file, { Authorization: basic('someone', t.token) });
      assert.equal(wrongName.status, 401);
      const other = await putPackage(f, `/projects/${elsewhere.id}/packages/nuget`, file, { Authorization: basic(t.username, t.token) });
      assert.equal(other.status, 401, 'another project');
      const api = await f.api('GET', `/projects/${project.id}`, { token: t.token });
      assert.equal(api.status, 401, 'deploy tokens are for the package routes only');
      const readOnly = (await f.api('POST', `/projects/${project.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'ro', scopes: ['read_package_registry'] } })).body;
      const denied = await putPackage(f, `/projects/${project.id}/packages/nuget`, await nupkg({ id: 'Deploy.Pkg', version: '1.0.1' }), { Authorization: basic(readOnly.username, readOnly.token) });
      assert.equal(denied.status, 401, 'read_package_registry cannot push');
      expectStatus(await f.api('DELETE', `/projects/${project.id}/deploy_tokens/${t.id}`, { token: maintainer.token }), 204);
      const afterDelete = await getRaw(f, `/projects/${project.id}/packages/nuget/query?q=deploy`, { Authorization: basic(t.username, t.token) });
      assert.equal(afterDelete.status, 401);
    });

    it('a group token reads the group feed and pushes to projects under the group', async () => {
      const t = (await f.api('POST', `/groups/${group.id}/deploy_tokens`, { token: maintainer.token, body: { name: 'grp', scopes: ['read_package_registry', 'write_package_registry'] } })).body;
      assert.deepEqual((await f.api('GET', `/groups/${group.id}/deploy_tokens`, { token: maintainer.token })).body.map((x: any) => x.id), [t.id]);
      const pushed = await putPackage(f, `/projects/${project.id}/packages/nuget`, await nupkg({ id: 'Group.Pkg', version: '2.0.0' }), { Authorization: basic(t.username, t.token) });
      expectStatus(pushed, 201);
      const search = await getRaw(f, `/groups/${group.id}/-/packages/nuget/query?q=group`, { Authorization: basic(t.username, t.token) });
      assert.equal(search.status, 200);
      assert.deepEqual(search.json.data.map((d: any) => d.id), ['Group.Pkg']);
      const other = await putPackage(f, `/projects/${elsewhere.id}/packages/nuget`, await nupkg({ id: 'Group.Pkg', version: '2.0.1' }), { Authorization: basic(t.username, t.token) });
      assert.equal(other.status, 401);
      const got = await f.api('GET', `/groups/${group.id}/deploy_tokens/${t.id}`, { token: maintainer.token });
      assert.equal(got.body.name, 'grp');
      expectStatus(await f.api('DELETE', `/groups/${group.id}/deploy_tokens/${t.id}`, { token: maintainer.token }), 204);
    });
  });

  describe(`${dialect}: token rotation`, () => {
    let f: TestForgelet;
    before(async () => {
      f = await startTestServer(dialect, { testMode: true });
      await f.api('PUT', '/forgelet/clock', { body: { now: '2030-01-10T12:00:00.000Z', frozen: true } });
    });
    after(() => f.stop());

    it('keep_token_lifetime keeps the lifetime; with expires_at it is refused naming both', async () => {
      const [carol] = await createUsers(f, [uniq('rot-carol')]);
      const t = (await f.api('POST', `/users/${carol.id}/personal_access_tokens`, { body: { name: 'life', scopes: ['api'], expires_at: '2030-02-09' } })).body;
      const both = await f.api('POST', `/personal_access_tokens/${t.id}/rotate`, { body: { expires_at: '2030-03-01', keep_token_lifetime: true } });
      assert.deepEqual([both.status, both.body], [400, { error: 'expires_at, keep_token_lifetime are mutually exclusive' }]);
      await f.api('PUT', '/forgelet/clock', { body: { now: '2030-01-20T12:00:00.000Z', frozen: true } });
      const kept = await f.api('POST', `/personal_access_tokens/${t.id}/rotate`, { body: { keep_token_lifetime: true } });
      expectStatus(kept, 200);
      assert.equal(kept.body.expires_at, '2030-02-19', '30 days from the rotation, as the old token had');
      const impersonation = (await f.api('POST', `/users/${carol.id}/impersonation_tokens`, { body: { name: 'imp', scopes: ['api'] } })).body;
      const rotatedImp = await f.api('POST', `/personal_access_tokens/${impersonation.id}/rotate`);
      expectStatus(rotatedImp, 200);
      const stillImp = await f.api('GET', `/users/${carol.id}/impersonation_tokens/${rotatedImp.body.id}`);
      assert.equal(stillImp.body.impersonation, true, 'a rotated impersonation token stays one');
    });

    it("a rotated project bot keeps its membership past the old token's expiry", async () => {
      const project = await createProject(f, f.rootToken, { name: uniq('rotbot') });
      const t = (await f.api('POST', `/projects/${project.id}/access_tokens`, { body: { name: 'bot', scopes: ['api'], expires_at: '2030-01-22' } })).body;
      const rotated = await f.api('POST', `/projects/${project.id}/access_tokens/${t.id}/rotate`, { body: { expires_at: '2030-06-01' } });
      expectStatus(rotated, 200);
      await f.api('PUT', '/forgelet/clock', { body: { now: '2030-03-01T12:00:00.000Z', frozen: true } });
      const read = await f.api('GET', `/projects/${project.id}`, { token: rotated.body.token });
      assert.equal(read.status, 200, 'the bot is still a member');
    });
  });
}
