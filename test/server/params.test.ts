import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus, snapshotCounts, totalOf } from './http.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: parameter errors`, () => {
    let f: TestForgelet;
    let user: { id: number; username: string; token: string };
    let group: any;
    let project: any;

    before(async () => {
      f = await startTestServer(dialect);
      user = await f.createUser('paula');
      group = await createGroup(f, f.rootToken, { name: 'Params', path: 'params' });
      project = await createProject(f, f.rootToken, { name: 'P', namespace_id: group.id });
    });
    after(() => f.stop());

    const counts = async () => ({ ...(await snapshotCounts(f)), members: await totalOf(f, `/projects/${project.id}/members`) });

    /** Sends a bad request and checks the 400 body. */
    async function refused(method: string, path: string, body: unknown, error: string) {
      const r = await f.api(method, path, body === undefined ? {} : { body });
      expectStatus(r, 400);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.deepEqual(r.body, { error }, `${method} ${path}`);
    }

    /** Runs bad requests and checks that they left the database as it was. */
    async function unchanged(work: () => Promise<void>) {
      const before = await counts();
      await work();
      assert.deepEqual(await counts(), before, 'a refused request wrote something');
    }

    it('missing required parameters: "x is missing", several joined by ", "', async () => {
      await unchanged(async () => {
        await refused('POST', '/groups', {}, 'name is missing, path is missing');
        await refused('POST', '/groups', { path: 'only-path' }, 'name is missing');
        await refused('POST', '/users', {}, 'email is missing, username is missing, name is missing');
        await refused('POST', `/users/${user.id}/personal_access_tokens`, { name: 't' }, 'scopes is missing');
        await refused('POST', `/projects/${project.id}/members`, { user_id: user.id }, 'access_level is missing');
      });
    });

    it('wrong types: "x is invalid"', async () => {
      await unchanged(async () => {
        await refused('POST', '/groups', { name: 'G', path: 'g-typed', parent_id: 'abc' }, 'parent_id is invalid');
        await refused('POST', '/groups', { name: 'G', path: 'g-typed', lfs_enabled: 'sometimes' }, 'lfs_enabled is invalid');
        await refused('POST', '/users', { email: 'not-an-email', username: 'typed', name: 'T' }, 'email is invalid');
        await refused('POST', '/users', { email: 't@example.com', username: '-typed', name: 'T' }, 'username is invalid');
        await refused('POST', `/users/${user.id}/personal_access_tokens`, { name: 't', scopes: ['api'], expires_at: 'someday' }, 'expires_at is invalid');
        await refused('PUT', `/projects/${project.id}/members/${user.id}`, { access_level: 'lots' }, 'access_level does not have a valid value');
        await refused('DELETE', '/users/abc', undefined, 'id is invalid');
        await refused('GET', '/personal_access_tokens/first', undefined, 'token_id is invalid');
        await refused('GET', '/users?active=maybe', undefined, 'active is invalid');
      });
    });

    it('values outside an enum: "x does not have a valid value"', async () => {
      await unchanged(async () => {
        await refused('POST', '/groups', { name: 'G', path: 'g-enum', visibility: 'secret' }, 'visibility does not have a valid value');
        await refused('POST', `/projects/${project.id}/members`, { user_id: user.id, access_level: 35 }, 'access_level does not have a valid value');
        await refused('POST', `/users/${user.id}/personal_access_tokens`, { name: 't', scopes: ['api', 'everything'] }, 'scopes does not have a valid value');
        await refused('GET', '/users?order_by=karma', undefined, 'order_by does not have a valid value');
        await refused('GET', '/projects?sort=sideways', undefined, 'sort does not have a valid value');
      });
    });

    it('empty strings where a value is required: "x is empty"', async () => {
      await unchanged(async () => {
        await refused('POST', '/groups', { name: '', path: 'g-empty' }, 'name is empty');
        await refused('POST', `/users/${user.id}/personal_access_tokens`, { name: '  ', scopes: ['api'] }, 'name is empty');
      });
    });

    it('rules between parameters', async () => {
      await unchanged(async () => {
        await refused('POST', '/projects', {}, 'name, path are missing, at least one parameter must be provided');
        await refused('POST', `/projects/${project.id}/members`, { access_level: 30 }, 'user_id, username are missing, exactly one parameter must be provided');
        await refused('POST', `/projects/${project.id}/members`, { user_id: user.id, username: user.username, access_level: 30 }, 'user_id, username are mutually exclusive');
      });
    });

    it('several problems of different kinds in one message', async () => {
      await unchanged(async () => {
        await refused('POST', '/groups', { path: 'g-multi', visibility: 'nope', parent_id: 'x' }, 'name is missing, parent_id is invalid, visibility does not have a valid value');
      });
    });

    it('page and per_page below 1 are refused; per_page above 100 becomes 100', async () => {
      for (const q of ['per_page=0', 'per_page=-5']) await refused('GET', `/users?${q}`, undefined, 'per_page does not have a valid value');
      for (const q of ['page=0', 'page=-1']) await refused('GET', `/projects?${q}`, undefined, 'page does not have a valid value');
      await refused('GET', '/groups?per_page=ten', undefined, 'per_page is invalid');
      await refused('GET', '/groups?page=1.5', undefined, 'page is invalid');
      await refused('GET', '/users?page=0&per_page=0', undefined, 'page does not have a valid value, per_page does not have a valid value');

      const big = await f.api('GET', '/users?per_page=500');
      expectStatus(big, 200);
      assert.equal(big.headers.get('x-per-page'), '100');
      assert.match(big.headers.get('link') ?? '', /per_page=100/);
      assert.doesNotMatch(big.headers.get('link') ?? '', /per_page=500/);
    });

    it('authentication is checked before parameters', async () => {
      const anon = await f.api('POST', '/groups', { token: null, body: {} });
      assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }]);
      const nonAdmin = await f.api('POST', '/users', { token: user.token, body: {} });
      assert.deepEqual([nonAdmin.status, nonAdmin.body], [403, { message: '403 Forbidden' }]);
    });

    it('numbers, booleans and ids arrive as JSON values or as strings', async () => {
      const asStrings = await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: String(user.id), access_level: '20', expires_at: '2099-12-31' } });
      expectStatus(asStrings, 201);
      assert.equal(asStrings.body.access_level, 20);
      assert.equal(asStrings.body.expires_at, '2099-12-31');
      const edited = await f.api('PUT', `/projects/${project.id}/members/${user.id}?access_level=30`);
      expectStatus(edited, 200);
      assert.equal(edited.body.access_level, 30);
      const g = await f.api('POST', '/groups', { body: { name: 'Typed', path: 'typed', request_access_enabled: 'no', lfs_enabled: false } });
      expectStatus(g, 201);
      assert.equal(g.body.request_access_enabled, false);
      assert.equal(g.body.lfs_enabled, false);
    });
  });
}
