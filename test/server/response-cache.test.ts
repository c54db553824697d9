/**
 * The server's response cache (packages/server/src/response-cache.ts): a cacheable GET asked
 * again, the database unchanged, gets the same answer from memory without a query; each
 * credential has its own answers; what would change an answer (a write, the injected clock
 * reaching a token's next recorded use or the next day, a tier switch) makes the next request
 * answered afresh; requests it cannot match exactly (Sudo, a job token, a token in the query,
 * `Cache-Control: no-cache`) are always answered afresh. Invalidation by writes of this and
 * other connections: read-cache.test.ts (its `warm` proves each case was a kept answer first);
 * by another process: test/served/shared-database.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { ResponseCache } from '../../packages/server/src/response-cache.js';
import { DIALECTS, ownClusterUrl } from '../support/databases.js';
import { queriesDuring } from '../support/queries.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest, uniq } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';

describe('ResponseCache', () => {
  const answer = (text: string) => ({ status: 200, headers: { 'Content-Type': 'application/json' }, text, actor: { kind: 'anonymous' as const, user: null, token: null, isAdmin: false } });

  it('keeps answers up to its byte budget, the oldest going first; an answer over an eighth of it is not kept', () => {
    const cache = new ResponseCache(800);
    for (const k of ['a', 'b', 'c', 'd']) cache.set(k, 1, 0, 10, answer('x'.repeat(100)));
    assert.equal(cache.size, 4);
    cache.set('big', 1, 0, 10, answer('x'.repeat(101)));
    assert.equal(cache.get('big', 1, 5), undefined, 'over 800 / 8 bytes');
    for (const k of ['e', 'f', 'g', 'h', 'i']) cache.set(k, 1, 0, 10, answer('x'.repeat(100)));
    assert.equal(cache.size, 8);
    assert.equal(cache.get('a', 1, 5), undefined, 'the oldest went');
    assert.equal(cache.get('i', 1, 5)?.body.toString(), 'x'.repeat(100));
  });

  it('answers only under the generation it was made under, and only from its time until its end', () => {
    const cache = new ResponseCache(1 << 20);
    cache.set('k', 3, 100, 200, answer('{}'));
    assert.ok(cache.get('k', 3, 100));
    assert.equal(cache.get('k', 3, 99), undefined, 'the clock went back: dropped');
    cache.set('k', 3, 100, 200, answer('{}'));
    assert.equal(cache.get('k', 3, 200), undefined, 'its end reached');
    cache.set('k', 3, 100, 200, answer('{}'));
    assert.equal(cache.get('k', 4, 150), undefined, 'the database changed');
    assert.equal(cache.size, 0, 'everything older went with it');
    cache.set('late', 3, 100, 200, answer('{}'));
    assert.equal(cache.get('late', 4, 150), undefined, 'an answer made under an older generation is not kept');
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: answers repeated from memory`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: { id: number; username: string; token: string };
    let dev: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };
    let group: any;
    let project: any;

    const hits = () => f.server.responses!.hits;
    /** The request's answer and how many queries it ran. */
    async function counted(path: string, options: Parameters<TestForgelet['api']>[2] = {}) {
      const { result: r, queries } = await queriesDuring(f.forge.deps.db, () => f.api('GET', path, options));
      return { r, queries: queries.length };
    }
    /** Asks until an answer was kept (the first request of a day records activity, a write, so its answer is not). */
    async function kept(path: string, options: Parameters<TestForgelet['api']>[2] = {}) {
      for (let i = 0; i < 3; i++) await f.api('GET', path, options);
      const before = hits();
      const r = await f.api('GET', path, options);
      assert.equal(hits(), before + 1, `${path} was answered from memory`);
      return r;
    }

    let stopCluster: () => Promise<void> = async () => {};

    before(async () => {
      clock = fixedClock(NOW);
      const own = await ownClusterUrl(dialect);
      stopCluster = own.stop;
      f = await startTestServer(dialect, { testMode: true, clock, tier: 'ultimate', ...(own.url ? { databaseUrl: own.url } : {}) });
      [owner, dev, outsider] = await createUsers(f, [uniq('rcowner'), uniq('rcdev'), uniq('rcout')]);
      group = await createGroup(f, owner.token, { name: 'Kept', path: uniq('kept'), visibility: 'private' });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'projects', project.id, dev.id, 30);
    });
    after(async () => {
      await f.stop();
      await stopCluster();
    });

    it('a repeated GET /projects/:id runs no query and gets the same body, with its own request id', async () => {
      const first = await kept(`/projects/${project.id}`, { token: dev.token });
      const again = await counted(`/projects/${project.id}`, { token: dev.token });
      expectStatus(again.r, 200);
      assert.deepEqual(again.r.body, first.body);
      assert.equal(again.r.headers.get('content-type'), 'application/json');
      assert.notEqual(again.r.headers.get('x-request-id'), first.headers.get('x-request-id'));
      // SQLite: none; PostgreSQL: at most the once-a-turn check for other processes' commits.
      assert.ok(again.queries <= (dialect === 'postgres' ? 1 : 0), `${again.queries} queries`);
    });

    it('each credential has its own answers: permissions, a non-member, anonymous', async () => {
      const path = `/projects/${project.id}`;
      const asOwner = await kept(path, { token: owner.token });
      const asDev = await kept(path, { token: dev.token });
      assert.equal(asOwner.body.permissions.project_access, null);
      assert.equal(asOwner.body.permissions.group_access.access_level, 50);
      assert.equal(asDev.body.permissions.project_access.access_level, 30);
      assert.equal(typeof asOwner.body.runners_token, 'string');
      assert.equal(asDev.body.runners_token, undefined);
      expectStatus(await f.api('GET', path, { token: outsider.token }), 404);
      expectStatus(await f.api('GET', path, { token: null }), 404);
      // The same token as a Bearer: the same user's answer.
      const bearer = await f.api('GET', path, { token: null, headers: { Authorization: `Bearer ${dev.token}` } });
      assert.deepEqual(bearer.body, asDev.body);
      const open = await createProject(f, owner.token, { name: 'open', visibility: 'public' });
      const anonymous = await kept(`/projects/${open.id}`, { token: null });
      assert.equal(anonymous.body.permissions, undefined);
      expectStatus(await f.api('PUT', `/projects/${open.id}`, { token: owner.token, body: { visibility: 'private' } }), 200);
      expectStatus(await f.api('GET', `/projects/${open.id}`, { token: null }), 404);
    });

    it('a page of a group\'s projects is repeated with its pagination headers; a new project shows on the next request', async () => {
      const path = `/groups/${group.id}/projects?per_page=1`;
      const first = await kept(path, { token: owner.token });
      const total = Number(first.headers.get('x-total'));
      assert.ok(total >= 1);
      assert.match(first.headers.get('link') ?? '', /rel="first"/);
      const again = await f.api('GET', path, { token: owner.token });
      assert.equal(again.headers.get('x-total'), String(total));
      assert.equal(again.headers.get('link'), first.headers.get('link'));
      await createProject(f, owner.token, { name: uniq('more'), namespace_id: group.id });
      const after = await f.api('GET', path, { token: owner.token });
      assert.equal(after.headers.get('x-total'), String(total + 1));
    });

    it('answered afresh every time: Sudo, a token in the query, Cache-Control: no-cache', async () => {
      const path = `/projects/${project.id}`;
      await kept(path, { token: dev.token });
      const sudoToken = await f.api('POST', `/users/1/personal_access_tokens`, { body: { name: 'sudo', scopes: ['api', 'sudo'] } });
      expectStatus(sudoToken, 201);
      const fresh: { token: string | null; headers?: Record<string, string>; query?: string }[] = [
        { token: sudoToken.body.token, headers: { Sudo: dev.username } },
        { token: null, query: `?private_token=${dev.token}` },
        { token: dev.token, headers: { 'Cache-Control': 'no-cache' } },
        { token: dev.token, headers: { Pragma: 'no-cache' } },
      ];
      for (const c of fresh) {
        for (let i = 0; i < 3; i++) {
          const before = hits();
          const r = await f.api('GET', `${path}${c.query ?? ''}`, { token: c.token, headers: c.headers });
          expectStatus(r, 200);
          assert.equal(r.body.permissions.project_access.access_level, 30, 'the developer\'s answer');
          assert.equal(hits(), before, `not from memory: ${JSON.stringify(c.headers ?? c.query)}`);
        }
      }
    });

    it('a GET with a body (its parameters count) is answered afresh', async () => {
      const path = `/groups/${group.id}/projects`;
      const all = await kept(path, { token: owner.token });
      assert.ok(all.body.length >= 1);
      const before = hits();
      const body = JSON.stringify({ search: 'no-such-project' });
      const searched = await rawRequest(f.url, 'GET', `/api/v4${path}`, { headers: { 'PRIVATE-TOKEN': owner.token, 'Content-Type': 'application/json' }, body });
      expectStatus(searched, 200);
      assert.deepEqual(searched.body, []);
      assert.equal(hits(), before);
    });

    it("the token's use is still recorded every ten minutes, and a membership ending at midnight ends with the day", async () => {
      const path = `/projects/${project.id}`;
      const member = (await createUsers(f, [uniq('rcday')]))[0]!;
      expectStatus(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: member.id, access_level: 30, expires_at: '2024-06-16' } }), 201);
      clock.set(new Date(NOW));
      await kept(path, { token: member.token });
      const lastUsed = async () =>
        (await f.forge.deps.db.selectFrom('access_tokens').select('last_used_at').where('user_id', '=', member.id).executeTakeFirstOrThrow()).last_used_at;
      assert.equal(await lastUsed(), NOW);
      clock.set(new Date('2024-06-15T12:09:59.000Z'));
      await f.api('GET', path, { token: member.token });
      assert.equal(await lastUsed(), NOW, 'within ten minutes: nothing written');
      clock.set(new Date('2024-06-15T12:10:01.000Z'));
      expectStatus(await f.api('GET', path, { token: member.token }), 200);
      assert.equal(await lastUsed(), '2024-06-15T12:10:01.000Z', 'recorded although the answer had been kept');
      await kept(path, { token: member.token });
      clock.set(new Date('2024-06-16T00:00:00.000Z'));
      expectStatus(await f.api('GET', path, { token: member.token }), 404);
      clock.set(new Date(NOW));
    });

    it('a tier switched in test mode, or by the embedding application, shows on the next request', async () => {
      const path = `/projects/${project.id}`;
      assert.ok('approvals_before_merge' in (await kept(path, { token: owner.token })).body);
      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } }), 200);
      assert.equal('approvals_before_merge' in (await f.api('GET', path, { token: owner.token })).body, false);
      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'ultimate' } }), 200);
      assert.ok('approvals_before_merge' in (await f.api('GET', path, { token: owner.token })).body);
      f.forge.deps.config.tier = 'free';
      try {
        assert.equal('approvals_before_merge' in (await f.api('GET', path, { token: owner.token })).body, false);
      } finally {
        f.forge.deps.config.tier = 'ultimate';
      }
    });
  });
}

describe('response cache off', () => {
  it('--response-cache 0: nothing kept, every answer made afresh', async () => {
    const f = await startTestServer('sqlite', { responseCacheBytes: 0 });
    try {
      assert.equal(f.server.responses, null);
      const project = await createProject(f, f.rootToken, { name: 'plain' });
      for (let i = 0; i < 3; i++) expectStatus(await f.api('GET', `/projects/${project.id}`), 200);
    } finally {
      await f.stop();
    }
  });
});
