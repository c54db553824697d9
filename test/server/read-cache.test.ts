/**
 * The read cache behind `GET /projects/:id` and token lookups (storage/read-cache.ts: SQLite's
 * and PostgreSQL's), and the server's response cache in front of it (server/response-cache.ts),
 * never outlive a write: a revoked or expired token, a removed or lowered
 * membership, an edited project, and writes made by another connection to the same database
 * are all seen on the very next request. Every case warms the cache with two identical
 * requests first.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { fixedClock, readCacheOf, type ControllableClock } from '@forgelet/core';
import { DIALECTS, ownClusterUrl } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';
const UNAUTHORIZED = { message: '401 Unauthorized' };
const PROJECT_NOT_FOUND = { message: '404 Project Not Found' };

type User = { id: number; username: string; token: string };

/** Runs SQL on a second connection to the server's database, as another process would. */
interface OtherConnection {
  run(text: string, params?: unknown[]): Promise<void>;
  close(): Promise<void>;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: read cache invalidation`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let dir: string;
    let dropDatabase: () => Promise<void> = async () => {};
    let other: OtherConnection;
    let owner: User;
    let group: any;
    let project: any;

    /**
     * Identical requests, same answer: the second from the read cache; the third, for a 200 of
     * GET /projects/:id, from the server's response cache (the first recorded the token's use
     * and the day's activity, a write, so only the second's answer was kept). What follows
     * proves both caches are dropped.
     */
    async function warm(path: string, token: string): Promise<any> {
      const first = await f.api('GET', path, { token });
      const second = await f.api('GET', path, { token });
      const hits = f.server.responses!.hits;
      const third = await f.api('GET', path, { token });
      for (const again of [second, third]) {
        assert.equal(again.status, first.status);
        assert.deepEqual(again.body, first.body);
      }
      if (first.status === 200 && path.startsWith('/projects/')) assert.equal(f.server.responses!.hits, hits + 1, 'the third answer was the kept one');
      return first;
    }

    async function newUser(name: string): Promise<User> {
      return (await createUsers(f, [`${name}${Math.random().toString(36).slice(2, 6)}`]))[0]!;
    }

    before(async () => {
      clock = fixedClock(NOW);
      dir = mkdtempSync(join(tmpdir(), 'forgelet-read-cache-'));
      let databaseUrl: string;
      if (dialect === 'sqlite') {
        databaseUrl = join(dir, 'forgelet.db');
        f = await startTestServer(dialect, { clock, databaseUrl });
        const conn = new Database(databaseUrl);
        conn.pragma('busy_timeout = 5000');
        other = {
          run: async (text, params = []) => void conn.prepare(text).run(...params),
          close: async () => void conn.close(),
        };
      } else {
        // A cluster of its own: `warm` checks the caches were used.
        const own = await ownClusterUrl(dialect);
        databaseUrl = own.url!;
        dropDatabase = own.stop;
        f = await startTestServer(dialect, { clock, databaseUrl });
        const client = new pg.Client({ connectionString: databaseUrl });
        client.on('error', () => {});
        await client.connect();
        other = {
          // `?` placeholders as in the SQLite statements, numbered for pg
          run: async (text, params = []) => {
            let i = 0;
            await client.query(text.replace(/\?/g, () => `$${++i}`), params);
          },
          close: () => client.end(),
        };
      }
      [owner] = await createUsers(f, ['cacheowner']);
      group = await createGroup(f, owner.token, { name: 'Cached', path: 'cached', visibility: 'private' });
      project = await createProject(f, owner.token, { name: 'app', namespace_id: group.id, visibility: 'private' });
    });
    after(async () => {
      await other.close();
      await f.stop();
      await dropDatabase();
      rmSync(dir, { recursive: true, force: true });
    });

    it('is on for both dialects', () => {
      assert.ok(readCacheOf(f.forge.deps.db));
    });

    it('a revoked token is refused on the next request', async () => {
      const dev = await newUser('rev');
      await addMember(f, 'projects', project.id, dev.id, 30);
      expectStatus(await warm(`/projects/${project.id}`, dev.token), 200);
      const self = await f.api('GET', '/personal_access_tokens/self', { token: dev.token });
      expectStatus(self, 200);
      expectStatus(await f.api('DELETE', `/personal_access_tokens/${self.body.id}`), 204);
      const after = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      expectStatus(after, 401);
      assert.equal(after.body.error, 'invalid_token');
    });

    it('a token is refused once the injected clock passes its expiry date', async () => {
      const dev = await newUser('exp');
      await addMember(f, 'projects', project.id, dev.id, 30);
      const pat = await f.api('POST', `/users/${dev.id}/personal_access_tokens`, { body: { name: 'short', scopes: ['api'], expires_at: '2024-06-17' } });
      expectStatus(pat, 201);
      expectStatus(await warm(`/projects/${project.id}`, pat.body.token), 200);
      clock.set(new Date('2024-06-16T23:59:59.000Z'));
      expectStatus(await f.api('GET', `/projects/${project.id}`, { token: pat.body.token }), 200);
      clock.set(new Date('2024-06-17T00:00:00.000Z'));
      const expired = await f.api('GET', `/projects/${project.id}`, { token: pat.body.token });
      expectStatus(expired, 401);
      assert.equal(expired.body.error, 'invalid_token');
      clock.set(new Date(NOW));
    });

    it('a removed project membership hides the project on the next request', async () => {
      const dev = await newUser('mem');
      await addMember(f, 'projects', project.id, dev.id, 30);
      const before = await warm(`/projects/${project.id}`, dev.token);
      expectStatus(before, 200);
      assert.deepEqual(before.body.permissions, { project_access: { access_level: 30, notification_level: 3 }, group_access: null });
      expectStatus(await f.api('DELETE', `/projects/${project.id}/members/${dev.id}`), 204);
      const after = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      expectStatus(after, 404);
      assert.deepEqual(after.body, PROJECT_NOT_FOUND);
    });

    it('a removed group membership hides the group\'s projects on the next request (by id and by path)', async () => {
      const dev = await newUser('grp');
      await addMember(f, 'groups', group.id, dev.id, 20);
      const path = `/projects/${encodeURIComponent(project.path_with_namespace)}`;
      const before = await warm(path, dev.token);
      expectStatus(before, 200);
      assert.deepEqual(before.body.permissions, { project_access: null, group_access: { access_level: 20, notification_level: 3 } });
      expectStatus(await warm(`/projects/${project.id}`, dev.token), 200);
      expectStatus(await f.api('DELETE', `/groups/${group.id}/members/${dev.id}`), 204);
      expectStatus(await f.api('GET', path, { token: dev.token }), 404);
      expectStatus(await f.api('GET', `/projects/${project.id}`, { token: dev.token }), 404);
    });

    it('a changed access level and an edited project show on the next request', async () => {
      const dev = await newUser('lvl');
      await addMember(f, 'projects', project.id, dev.id, 40);
      const before = await warm(`/projects/${project.id}`, dev.token);
      assert.equal(before.body.permissions.project_access.access_level, 40);
      assert.equal(typeof before.body.runners_token, 'string');
      expectStatus(await f.api('PUT', `/projects/${project.id}/members/${dev.id}`, { body: { access_level: 30 } }), 200);
      const lowered = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      assert.equal(lowered.body.permissions.project_access.access_level, 30);
      assert.equal(lowered.body.runners_token, undefined);
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { description: 'edited' } }), 200);
      const edited = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      assert.equal(edited.body.description, 'edited');
    });

    it('a token revoked by another connection is refused on the next request', async () => {
      const dev = await newUser('oth');
      await addMember(f, 'projects', project.id, dev.id, 30);
      expectStatus(await warm(`/projects/${project.id}`, dev.token), 200);
      const self = await f.api('GET', '/personal_access_tokens/self', { token: dev.token });
      await other.run('update access_tokens set revoked = 1 where id = ?', [self.body.id]);
      const after = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      expectStatus(after, 401);
      assert.equal(after.body.error, 'invalid_token');
    });

    it('a membership removed by another connection hides the project on the next request', async () => {
      const dev = await newUser('othm');
      await addMember(f, 'projects', project.id, dev.id, 30);
      expectStatus(await warm(`/projects/${project.id}`, dev.token), 200);
      await other.run(`delete from members where user_id = ? and source_kind = 'project' and source_id = ?`, [dev.id, project.id]);
      const after = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      expectStatus(after, 404);
      assert.deepEqual(after.body, PROJECT_NOT_FOUND);
    });

    it('a user blocked and a project renamed by another connection: both seen on the next request', async () => {
      const dev = await newUser('othb');
      await addMember(f, 'projects', project.id, dev.id, 30);
      expectStatus(await warm(`/projects/${project.id}`, owner.token), 200);
      expectStatus(await warm(`/projects/${project.id}`, dev.token), 200);
      await other.run('update projects set name = ? where id = ?', ['renamed elsewhere', project.id]);
      const renamed = await f.api('GET', `/projects/${project.id}`, { token: owner.token });
      assert.equal(renamed.body.name, 'renamed elsewhere');
      await other.run(`update users set state = 'blocked' where id = ?`, [dev.id]);
      const blocked = await f.api('GET', `/projects/${project.id}`, { token: dev.token });
      expectStatus(blocked, 401);
      assert.deepEqual(blocked.body, UNAUTHORIZED);
    });

    it('a project deleted by another connection answers 404 on the next request', async () => {
      const doomed = await createProject(f, owner.token, { name: 'doomed', namespace_id: group.id, visibility: 'private' });
      expectStatus(await warm(`/projects/${doomed.id}`, owner.token), 200);
      await other.run('delete from projects where id = ?', [doomed.id]);
      const after = await f.api('GET', `/projects/${doomed.id}`, { token: owner.token });
      expectStatus(after, 404);
    });
  });
}
