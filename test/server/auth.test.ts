import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, expectStatus, rawRequest, snapshotCounts } from './http.js';

const UNAUTHORIZED = { message: '401 Unauthorized' };
const FORBIDDEN = { message: '403 Forbidden' };
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' };
const INSUFFICIENT_API = {
  error: 'insufficient_scope',
  error_description: 'The request requires higher privileges than provided by the access token.',
  scope: 'api',
};
const DAY = 86_400_000;
const dateOf = (d: Date) => d.toISOString().slice(0, 10);

for (const dialect of DIALECTS) {
  describe(`${dialect}: authentication`, () => {
    let f: TestForgelet;
    const clock = new ControllableClock();
    let alice: { id: number; username: string; token: string };
    let admin2: { id: number; username: string; token: string };

    before(async () => {
      f = await startTestServer(dialect, { clock });
      alice = await f.createUser('alice');
      admin2 = await f.createUser('admin2', { admin: true });
      await createGroup(f, f.rootToken, { name: 'Public', path: 'public', visibility: 'public' });
    });
    after(() => f.stop());

    async function newToken(userId: number, body: Record<string, unknown> = {}) {
      const r = await f.api('POST', `/users/${userId}/personal_access_tokens`, { body: { name: 'tok', scopes: ['api'], ...body } });
      expectStatus(r, 201);
      return r.body as { id: number; token: string };
    }

    it('accepts PRIVATE-TOKEN, the private_token parameter and Authorization: Bearer', async () => {
      const viaHeader = await f.api('GET', '/user', { token: alice.token });
      const viaQuery = await f.api('GET', `/user?private_token=${alice.token}`, { token: null });
      const viaBearer = await f.api('GET', '/user', { token: null, headers: { Authorization: `Bearer ${alice.token}` } });
      const viaLowerBearer = await f.api('GET', '/user', { token: null, headers: { authorization: `bearer ${alice.token}` } });
      for (const r of [viaHeader, viaQuery, viaBearer, viaLowerBearer]) {
        expectStatus(r, 200);
        assert.equal(r.body.username, 'alice');
      }
      const post = await f.api('POST', `/groups?private_token=${alice.token}`, { token: null, body: { name: 'Via Query', path: 'via-query' } });
      expectStatus(post, 201);
      const members = await f.api('GET', `/groups/${post.body.id}/members`);
      assert.deepEqual(members.body.map((m: any) => [m.username, m.access_level]), [['alice', 50]]);
    });

    it('an unknown token answers 401 even on routes open to anonymous callers', async () => {
      for (const path of ['/user', '/projects', '/groups', `/users/${alice.id}`, '/groups/public']) {
        for (const opts of [
          { token: 'glpat-doesnotexist' },
          { token: null, headers: { Authorization: 'Bearer glpat-doesnotexist' } },
        ]) {
          const r = await f.api('GET', path, opts);
          assert.deepEqual([r.status, r.body], [401, UNAUTHORIZED], path);
        }
        const q = await f.api('GET', `${path}?private_token=nope`, { token: null });
        assert.deepEqual([q.status, q.body], [401, UNAUTHORIZED], `${path}?private_token`);
      }
      const anon = await f.api('GET', '/groups/public', { token: null });
      expectStatus(anon, 200);
    });

    it('a revoked token answers 401 invalid_token "Token was revoked", on public routes too', async () => {
      const t = await newToken(alice.id);
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
      expectStatus(await f.api('DELETE', `/personal_access_tokens/${t.id}`), 204);
      for (const path of ['/user', '/projects', '/groups/public']) {
        const r = await f.api('GET', path, { token: t.token });
        assert.deepEqual([r.status, r.body], [401, REVOKED], path);
        assert.equal(r.headers.get('content-type'), 'application/json');
      }
      const bearer = await f.api('GET', '/user', { token: null, headers: { Authorization: `Bearer ${t.token}` } });
      assert.deepEqual([bearer.status, bearer.body], [401, REVOKED]);
    });

    it('a token stops working on its expiry date (server clock) with 401 "Token is expired"', async () => {
      const today = clock.now();
      const t = await newToken(alice.id, { expires_at: dateOf(new Date(today.getTime() + DAY)) });
      const later = await newToken(alice.id, { expires_at: dateOf(new Date(today.getTime() + 2 * DAY)) });
      assert.equal(t.token.startsWith('glpat-'), true);
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
      try {
        clock.set(new Date(Date.parse(`${dateOf(new Date(today.getTime() + DAY))}T00:00:00.000Z`)));
        for (const path of ['/user', '/projects']) {
          const r = await f.api('GET', path, { token: t.token });
          assert.deepEqual([r.status, r.body], [401, EXPIRED], path);
        }
        expectStatus(await f.api('GET', '/user', { token: later.token }), 200);
        const listed = await f.api('GET', `/personal_access_tokens?user_id=${alice.id}&state=inactive`);
        assert.ok(listed.body.some((x: any) => x.id === t.id && x.active === false && x.revoked === false));
      } finally {
        clock.set(new Date());
      }
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
    });

    it('refuses to create a token that is already expired', async () => {
      const r = await f.api('POST', `/users/${alice.id}/personal_access_tokens`, { body: { name: 'old', scopes: ['api'], expires_at: dateOf(clock.now()) } });
      expectStatus(r, 400);
    });

    it('read_api tokens may read but not write (403 insufficient_scope)', async () => {
      const t = await newToken(alice.id, { scopes: ['read_api'] });
      for (const path of ['/user', '/projects', '/groups', `/users/${alice.id}`]) expectStatus(await f.api('GET', path, { token: t.token }), 200);
      expectStatus(await rawRequest(f.url, 'HEAD', '/api/v4/projects', { headers: { 'PRIVATE-TOKEN': t.token } }), 200);
      const before = await snapshotCounts(f);
      const writes = [
        await f.api('POST', '/groups', { token: t.token, body: { name: 'No', path: 'no-write' } }),
        await f.api('POST', '/projects', { token: t.token, body: { name: 'No' } }),
        await f.api('PUT', '/groups/via-query', { token: t.token, body: { description: 'x' } }),
        await f.api('DELETE', '/personal_access_tokens/self', { token: t.token }),
      ];
      for (const r of writes) {
        assert.deepEqual([r.status, r.body], [403, INSUFFICIENT_API], r.text);
        assert.equal(r.headers.get('content-type'), 'application/json');
      }
      assert.deepEqual(await snapshotCounts(f), before);
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
    });

    it('read_user tokens read users but not projects', async () => {
      const t = await newToken(alice.id, { scopes: ['read_user'] });
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
      expectStatus(await f.api('GET', '/users', { token: t.token }), 200);
      const r = await f.api('GET', '/projects', { token: t.token });
      assert.equal(r.status, 403);
      assert.equal(r.body.error, 'insufficient_scope');
      assert.equal(r.body.error_description, INSUFFICIENT_API.error_description);
    });

    it('admin-only routes: 403 for other users, 401 for anonymous callers', async () => {
      const before = await snapshotCounts(f);
      const calls: [string, string, unknown][] = [
        ['POST', '/users', { username: 'sneaky', name: 'S', email: 's@example.com' }],
        ['PUT', `/users/${alice.id}`, { admin: true }],
        ['DELETE', `/users/${admin2.id}`, undefined],
        ['POST', `/users/${alice.id}/personal_access_tokens`, { name: 'x', scopes: ['api'] }],
      ];
      for (const [method, path, body] of calls) {
        const r = await f.api(method, path, { token: alice.token, body });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN], `${method} ${path}`);
        const anon = await f.api(method, path, { token: null, body });
        assert.deepEqual([anon.status, anon.body], [401, UNAUTHORIZED], `anonymous ${method} ${path}`);
      }
      assert.deepEqual(await snapshotCounts(f), before);
      assert.equal((await f.api('GET', '/user', { token: alice.token })).body.is_admin, undefined, 'alice did not become admin');
    });

    it('routes that need a user answer 401 to anonymous callers', async () => {
      for (const [method, path] of [['GET', '/user'], ['POST', '/groups'], ['POST', '/projects'], ['GET', '/personal_access_tokens'], ['GET', '/personal_access_tokens/self'], ['GET', '/version']]) {
        const r = await f.api(method!, path!, { token: null, body: method === 'POST' ? { name: 'x', path: 'x' } : undefined });
        assert.deepEqual([r.status, r.body], [401, UNAUTHORIZED], `${method} ${path}`);
      }
      const open = await f.api('GET', '/projects', { token: null });
      expectStatus(open, 200);
    });

    it('sudo: an admin token with the sudo scope acts as the named user', async () => {
      const byName = await f.api('GET', '/user', { headers: { Sudo: 'alice' } });
      expectStatus(byName, 200);
      assert.equal(byName.body.username, 'alice');
      assert.equal(byName.body.is_admin, undefined, 'alice sees what alice sees');
      assert.equal(byName.body.email, 'alice@example.com');
      const byId = await f.api('GET', '/user', { headers: { Sudo: String(alice.id) } });
      assert.equal(byId.body.username, 'alice');
      const byParam = await f.api('GET', '/user?sudo=ALICE');
      assert.equal(byParam.body.username, 'alice');
      const toAdmin = await f.api('GET', '/user', { headers: { Sudo: 'admin2' } });
      assert.deepEqual([toAdmin.body.username, toAdmin.body.is_admin], ['admin2', true]);
      const empty = await f.api('GET', '/user', { headers: { Sudo: '' } });
      assert.equal(empty.body.username, 'root');

      const g = await f.api('POST', '/groups', { headers: { Sudo: 'alice' }, body: { name: 'Sudo Made', path: 'sudo-made' } });
      expectStatus(g, 201);
      const members = await f.api('GET', `/groups/${g.body.id}/members`);
      assert.deepEqual(members.body.map((m: any) => [m.username, m.access_level, m.created_by.username]), [['alice', 50, 'alice']]);
    });

    it('sudo: refused for non-admins, without the sudo scope, and for unknown users', async () => {
      const nonAdmin = await f.api('GET', '/user', { token: alice.token, headers: { Sudo: 'root' } });
      assert.deepEqual([nonAdmin.status, nonAdmin.body], [403, { message: '403 Forbidden - Must be admin to use sudo' }]);

      const noScope = await f.api('GET', '/user', { token: admin2.token, headers: { Sudo: 'alice' } });
      assert.equal(noScope.status, 403);
      assert.deepEqual(noScope.body, { ...INSUFFICIENT_API, scope: 'sudo' });

      const unknown = await f.api('GET', '/user', { headers: { Sudo: 'ghost' } });
      assert.deepEqual([unknown.status, unknown.body], [404, { message: "404 User with ID or username 'ghost' Not Found" }]);
      const unknownId = await f.api('GET', '/projects?sudo=999999');
      assert.deepEqual([unknownId.status, unknownId.body], [404, { message: "404 User with ID or username '999999' Not Found" }]);
    });

    it('records when a token was last used', async () => {
      const t = await newToken(alice.id);
      const listed = async () => (await f.api('GET', `/personal_access_tokens?user_id=${alice.id}`)).body.find((x: any) => x.id === t.id);
      assert.equal((await listed()).last_used_at, null);
      expectStatus(await f.api('GET', '/user', { token: t.token }), 200);
      const used = (await listed()).last_used_at;
      assert.match(used, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });
  });
}
