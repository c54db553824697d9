/**
 * The web console's session (/-/console/session) and the API accepting it: cookie attributes,
 * the secret stored hashed, the CSRF token on writes, a session with a token's scopes and
 * lifetime, a Developer's session seeing what the API shows them (refused admin routes), and no
 * secret in a URL or the access log.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';

interface Browser {
  cookie: string;
  csrf: string;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: web console sessions`, () => {
    let f: TestForgelet;
    const logged: string[] = [];

    before(async () => {
      f = await startTestServer(dialect, { logger: { info: (l) => logged.push(l), error: (l) => logged.push(l) } });
    });
    after(() => f?.stop());

    const signIn = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${f.url}/-/console/session`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });

    async function session(body: unknown): Promise<Browser> {
      const res = await signIn(body);
      assert.equal(res.status, 201, await res.clone().text());
      const cookie = res.headers.get('set-cookie')!;
      const json = (await res.json()) as { csrf_token: string };
      return { cookie: cookie.split(';')[0]!, csrf: json.csrf_token };
    }

    const asBrowser = (b: Browser, method: string, path: string, options: { csrf?: boolean; body?: unknown } = {}) =>
      fetch(`${f.url}${path}`, {
        method,
        headers: {
          Cookie: b.cookie,
          ...(options.csrf !== false && { 'X-CSRF-Token': b.csrf }),
          ...(options.body !== undefined && { 'Content-Type': 'application/json' }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });

    it('signs in with a token: an HttpOnly, SameSite=Strict cookie whose secret is stored only as a digest', async () => {
      const res = await signIn({ token: f.rootToken });
      assert.equal(res.status, 201);
      const cookie = res.headers.get('set-cookie')!;
      assert.match(cookie, /^_forgelet_session=[\w-]{40,}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Strict$/);
      const body = (await res.json()) as { user: { username: string; is_admin: boolean }; csrf_token: string };
      assert.equal(body.user.username, 'root');
      assert.equal(body.user.is_admin, true);
      const secret = cookie.split(';')[0]!.split('=')[1]!;
      const rows = await f.forge.deps.db.selectFrom('console_sessions').selectAll().execute();
      assert.ok(rows.some((r) => r.session_digest === createHash('sha256').update(secret).digest('hex')));
      assert.ok(rows.every((r) => r.session_digest !== secret));
      // The page reads its user and CSRF token back after a reload.
      const current = await fetch(`${f.url}/-/console/session`, { headers: { Cookie: cookie.split(';')[0]! } });
      assert.equal(current.status, 200);
      assert.equal(((await current.json()) as { csrf_token: string }).csrf_token, body.csrf_token);
    });

    it('refuses bad credentials (401), missing ones (400), a form post and another origin', async () => {
      assert.equal((await signIn({ token: 'glpat-not-a-token' })).status, 401);
      const missing = await signIn({});
      assert.equal(missing.status, 400);
      assert.deepEqual(await missing.json(), { error: 'token, login are missing, exactly one parameter must be provided' });
      const form = await fetch(`${f.url}/-/console/session`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${f.rootToken}` });
      assert.equal(form.status, 400);
      assert.equal((await signIn({ token: f.rootToken }, { Origin: 'http://evil.example' })).status, 400);
      assert.equal((await fetch(`${f.url}/-/console/session`)).status, 401);
    });

    it('the API accepts the session; writes need the CSRF token', async () => {
      const b = await session({ token: f.rootToken });
      const me = await asBrowser(b, 'GET', '/api/v4/user', { csrf: false });
      assert.equal(me.status, 200);
      assert.equal(((await me.json()) as { username: string }).username, 'root');
      const forged = await asBrowser(b, 'POST', '/api/v4/projects', { csrf: false, body: { name: 'forged' } });
      assert.equal(forged.status, 403);
      assert.deepEqual(await forged.json(), { message: '403 Forbidden - CSRF token is missing or invalid' });
      const wrong = await fetch(`${f.url}/api/v4/projects`, { method: 'POST', headers: { Cookie: b.cookie, 'X-CSRF-Token': 'x'.repeat(40), 'Content-Type': 'application/json' }, body: '{"name":"forged"}' });
      assert.equal(wrong.status, 403);
      const made = await asBrowser(b, 'POST', '/api/v4/projects', { body: { name: 'console-made' } });
      assert.equal(made.status, 201);
    });

    it('a Developer signed in with username and password sees what the API shows them: admin routes refused, private projects hidden', async () => {
      const created = await f.api('POST', '/users', { body: { username: 'con-dev', name: 'Con Dev', email: 'con-dev@example.com', password: 'correct horse battery' } });
      assert.equal(created.status, 201, created.text);
      const group = await f.api('POST', '/groups', { body: { name: 'con-group', path: 'con-group' } });
      await f.api('POST', `/groups/${group.body.id}/members`, { body: { user_id: created.body.id, access_level: 30 } });
      await f.api('POST', '/projects', { body: { name: 'con-visible', namespace_id: group.body.id } });
      await f.api('POST', '/projects', { body: { name: 'con-hidden', visibility: 'private' } });
      assert.equal((await signIn({ login: 'con-dev', password: 'wrong' })).status, 401);
      const b = await session({ login: 'CON-DEV@example.com', password: 'correct horse battery' });
      const settings = await asBrowser(b, 'GET', '/api/v4/application/settings');
      assert.equal(settings.status, 403);
      const projects = (await (await asBrowser(b, 'GET', '/api/v4/projects?membership=true')).json()) as { name: string }[];
      assert.deepEqual(projects.map((p) => p.name), ['con-visible']);
    });

    it("a session from a read_api token has that token's scope and ends when the token is revoked", async () => {
      const user = await f.createUser('con-reader', { scopes: ['read_api'] });
      const b = await session({ token: user.token });
      assert.equal((await asBrowser(b, 'GET', '/api/v4/user')).status, 200);
      const write = await asBrowser(b, 'POST', '/api/v4/projects', { body: { name: 'nope' } });
      assert.equal(write.status, 403);
      assert.equal(((await write.json()) as { error: string }).error, 'insufficient_scope');
      const tokens = await f.api('GET', '/personal_access_tokens?user_id=' + user.id);
      await f.api('DELETE', `/personal_access_tokens/${tokens.body[0].id}`);
      assert.equal((await asBrowser(b, 'GET', '/api/v4/user')).status, 401);
    });

    it('signing out needs the CSRF token and ends the session', async () => {
      const b = await session({ token: f.rootToken });
      assert.equal((await asBrowser(b, 'DELETE', '/-/console/session', { csrf: false })).status, 403);
      assert.equal((await asBrowser(b, 'GET', '/api/v4/user')).status, 200);
      const out = await asBrowser(b, 'DELETE', '/-/console/session');
      assert.equal(out.status, 204);
      assert.match(out.headers.get('set-cookie')!, /^_forgelet_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
      assert.equal((await asBrowser(b, 'GET', '/api/v4/user')).status, 401);
    });

    it('expired sessions are swept: by the queued sweep when they expire, and on sign-in', async () => {
      const count = async () => Number((await f.forge.deps.db.selectFrom('console_sessions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      const before = await count();
      assert.ok(before > 0);
      const b = await session({ token: f.rootToken });
      assert.equal(await count(), before + 1);
      // A week and a minute later every session so far has expired: the sweep queued at sign-in deletes them.
      f.clock.freeze();
      await f.clock.advance(7 * 24 * 3600 + 60);
      assert.equal(await count(), 0);
      assert.equal((await asBrowser(b, 'GET', '/api/v4/user')).status, 401);
      // Signing in sweeps too (rows written behind the queue's back, as a crashed process could leave).
      await session({ token: f.rootToken });
      const expired = { user_id: 1, access_token_id: null, scopes: null, created_at: '2000-01-01T00:00:00.000Z', expires_at: '2000-01-08T00:00:00.000Z' };
      await f.forge.deps.db.insertInto('console_sessions').values([{ ...expired, session_digest: 'stale-1' }, { ...expired, session_digest: 'stale-2' }]).execute();
      assert.equal(await count(), 3);
      await session({ token: f.rootToken });
      assert.equal(await count(), 2);
      f.clock.unfreeze();
    });

    it('no token, password or session secret in the access log', () => {
      const text = logged.join('\n');
      assert.ok(text.includes('POST /-/console/session 201'), text.slice(0, 500));
      assert.ok(!text.includes(f.rootToken));
      assert.ok(!text.includes('correct horse'));
      assert.ok(!text.includes('_forgelet_session'));
    });
  });
}
