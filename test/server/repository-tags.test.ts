import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2026-04-02T08:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const SHA = /^[0-9a-f]{40}$/;
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository tags`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let app: any;
    let first: string;
    let second: string;

    const db = () => f.forge.database.db;
    const names = async (query = '') => {
      const r = await f.api('GET', `/projects/${app.id}/repository/tags${query}`);
      expectStatus(r, 200);
      return r.body.map((t: any) => t.name);
    };
    const post = (body: Record<string, unknown>, token: string | null = dev.token) => f.api('POST', `/projects/${app.id}/repository/tags`, { token, body });

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [dev, reporter, guest, outsider] = await createUsers(f, ['tgdev', 'tgrep', 'tgguest', 'tgout']);
      const team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await addMember(f, 'projects', app.id, reporter.id, 20);
      await addMember(f, 'projects', app.id, guest.id, 10);
      first = await commitFiles(f, app.id, 'main', { 'a.txt': 'a\n' }, { message: 'First' });
      clock.advance(60_000);
      second = await commitFiles(f, app.id, 'main', { 'b.txt': 'b\n' }, { message: 'Second' });
    });
    after(() => f.stop());

    it('POST creates lightweight and annotated tags; GET shows them with their release', async () => {
      const light = await post({ tag_name: 'v1.2.0', ref: first });
      expectStatus(light, 201);
      assert.deepEqual(
        { ...light.body, commit: light.body.commit.id },
        { name: 'v1.2.0', message: null, target: first, commit: first, release: null, protected: false, created_at: null },
      );
      clock.advance(1000);
      const annotated = await post({ tag_name: 'v1.10.0', ref: 'main', message: '  Release 1.10  ' });
      expectStatus(annotated, 201);
      const at = clock.now().toISOString();
      assert.deepEqual([annotated.body.message, annotated.body.commit.id, annotated.body.created_at], ['Release 1.10', second, at]);
      assert.match(annotated.body.target, SHA);
      assert.notEqual(annotated.body.target, second, 'an annotated tag targets its tag object');
      assert.deepEqual(annotated.body.commit, (await f.api('GET', `/projects/${app.id}/repository/branches/main`)).body.commit);

      await db()
        .insertInto('releases')
        .values({ project_id: app.id, tag_name: 'v1.10.0', name: 'R', description: 'Notes', author_id: null, sha: second, released_at: at, created_at: at, updated_at: at })
        .execute();
      const shown = await f.api('GET', `/projects/${encodeURIComponent('team/app')}/repository/tags/v1.10.0`, { token: reporter.token });
      expectStatus(shown, 200);
      assert.deepEqual(shown.body, { ...annotated.body, release: { tag_name: 'v1.10.0', description: 'Notes' } });
      const missing = await f.api('GET', `/projects/${app.id}/repository/tags/nope`);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Tag Not Found' }]);
      const slash = await post({ tag_name: 'rel/2', ref: 'main' });
      expectStatus(slash, 201);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/tags/${encodeURIComponent('rel/2')}`)).body.name, 'rel/2');
    });

    it('POST refuses invalid names, existing tags, unknown targets and callers without push access', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ tag_name: 'bad name', ref: 'main' }, { message: 'Tag name invalid' }],
        [{ tag_name: 'v1.2.0', ref: 'main' }, { message: 'Tag v1.2.0 already exists' }],
        [{ tag_name: 'v9', ref: 'nowhere' }, { message: 'Target nowhere is invalid' }],
        [{ tag_name: 'v9', ref: '' }, { message: 'Target is empty' }],
        [{ ref: 'main' }, { error: 'tag_name is missing' }],
      ];
      for (const [body, expected] of cases) {
        const r = await post(body);
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.deepEqual((await post({ tag_name: 'v9', ref: 'main' }, reporter.token)).body, FORBIDDEN);
      assert.deepEqual((await post({ tag_name: 'v9', ref: 'main' }, outsider.token)).body, { message: '404 Project Not Found' });
      assert.equal((await post({ tag_name: 'v9', ref: 'main' }, null)).status, 401);
    });

    it('GET list: updated (newest first) by default, name and version orders, search, pagination', async () => {
      assert.deepEqual(await names(), ['v1.10.0', 'rel/2', 'v1.2.0']);
      assert.deepEqual(await names('?sort=asc'), ['v1.2.0', 'rel/2', 'v1.10.0']);
      assert.deepEqual(await names('?order_by=name&sort=asc'), ['rel/2', 'v1.10.0', 'v1.2.0']);
      assert.deepEqual(await names('?order_by=version&sort=asc'), ['rel/2', 'v1.2.0', 'v1.10.0']);
      assert.deepEqual(await names('?order_by=version'), ['v1.10.0', 'v1.2.0', 'rel/2']);
      assert.deepEqual(await names('?search=%5EV1'), ['v1.10.0', 'v1.2.0']);
      assert.deepEqual(await names('?search=2%24'), ['rel/2']);
      const page = await f.api('GET', `/projects/${app.id}/repository/tags?order_by=version&per_page=2&page=2`);
      assert.deepEqual(page.body.map((t: any) => t.name), ['rel/2']);
      assert.deepEqual(['x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => page.headers.get(h)), ['3', '2', '1', '']);
      const byName = await f.api('GET', `/projects/${app.id}/repository/tags?order_by=name&per_page=1`);
      assert.deepEqual([byName.body.map((t: any) => t.name), byName.headers.get('x-total'), byName.headers.get('x-next-page')], [['v1.2.0'], '3', '2']);
      const bad = await f.api('GET', `/projects/${app.id}/repository/tags?order_by=date`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'order_by does not have a valid value' }]);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/tags`, { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/tags`, { token: null })).body, { message: '404 Project Not Found' });
    });

    it('DELETE removes the tag and its release: 204; 404, 412 and 403 otherwise', async () => {
      const del = (name: string, token: string | null = dev.token, headers?: Record<string, string>) =>
        f.api('DELETE', `/projects/${app.id}/repository/tags/${encodeURIComponent(name)}`, { token, headers });
      assert.deepEqual((await del('v1.10.0', reporter.token)).body, FORBIDDEN);
      assert.equal((await del('v1.10.0', dev.token, { 'If-Unmodified-Since': 'Mon, 01 Jan 2024 00:00:00 GMT' })).status, 412);
      const r = await del('v1.10.0');
      assert.deepEqual([r.status, r.text], [204, '']);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/tags/v1.10.0`)).status, 404);
      const releases = await db().selectFrom('releases').select('tag_name').where('project_id', '=', app.id).execute();
      assert.deepEqual(releases, []);
      assert.deepEqual((await del('v1.10.0')).body, { message: '404 Tag Not Found' });
      expectStatus(await del('rel/2'), 204);
      assert.deepEqual(await names(), ['v1.2.0']);
    });
  });
}
