import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Not found' };
const SCHEMES = 'Url is blocked: Only allowed schemes are http, https, ftp';

for (const dialect of DIALECTS) {
  describe(`${dialect}: release links`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let owner: User;
    let dev: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let app: any; // private
    let pub: any; // public
    let web: string;

    const enc = encodeURIComponent;
    const links = (project: any, tag: string, id?: number) => `/projects/${project.id}/releases/${enc(tag)}/assets/links${id ? `/${id}` : ''}`;
    async function link(body: Record<string, unknown>, tag = 'v1.0', token = dev.token): Promise<any> {
      const r = await f.api('POST', links(app, tag), { token, body });
      expectStatus(r, 201);
      return r.body;
    }
    async function count(): Promise<number> {
      const row = await f.forge.database.db.selectFrom('release_links').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    }

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { clock });
      [owner, dev, reporter, guest, outsider] = await createUsers(f, ['lowner', 'ldev', 'lreporter', 'lguest', 'loutsider']);
      const group = await createGroup(f, owner.token, { name: 'Links', path: 'links', visibility: 'public' });
      app = await createProject(f, owner.token, { name: 'app', namespace_id: group.id, visibility: 'private' });
      pub = await createProject(f, owner.token, { name: 'pub', namespace_id: group.id, visibility: 'public' });
      await addMember(f, 'groups', group.id, dev.id, 30);
      await addMember(f, 'groups', group.id, reporter.id, 20);
      await addMember(f, 'groups', group.id, guest.id, 10);
      await commitFiles(f, app.id, 'main', { 'README.md': 'app' });
      await commitFiles(f, pub.id, 'main', { 'README.md': 'pub' });
      for (const [project, tag] of [[app, 'v1.0'], [app, 'release/1.0'], [pub, 'p1']] as const) {
        const r = await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: tag, ref: 'main' } });
        expectStatus(r, 201);
      }
      web = `${f.url}/links/app`;
    });
    after(() => f.stop());

    it('create: the entity; link_type defaults to other; direct_asset_url from the path; external; filepath alias; ftp', async () => {
      const a = await link({ name: 'Binary', url: 'https://example.com/app.bin', direct_asset_path: '/bin/app.bin', link_type: 'package' });
      assert.deepEqual(a, {
        id: a.id,
        name: 'Binary',
        url: 'https://example.com/app.bin',
        direct_asset_url: `${web}/-/releases/v1.0/downloads/bin/app.bin`,
        external: true,
        link_type: 'package',
      });
      assert.deepEqual(Object.keys(a), ['id', 'name', 'url', 'direct_asset_url', 'external', 'link_type']);
      clock.set(new Date('2024-06-15T12:01:00.000Z'), true);
      const b = await link({ name: 'Runbook', url: `  ${web}/-/wikis/runbook  ` });
      assert.deepEqual([b.url, b.direct_asset_url, b.external, b.link_type], [`${web}/-/wikis/runbook`, `${web}/-/wikis/runbook`, false, 'other']);
      clock.set(new Date('2024-06-15T12:02:00.000Z'), true);
      const c = await link({ name: 'Mirror', url: 'ftp://files.example.com/app.tar', filepath: '/mirror/app.tar', link_type: 'other' });
      assert.equal(c.direct_asset_url, `${web}/-/releases/v1.0/downloads/mirror/app.tar`);
      clock.set(new Date(NOW), true);

      const list = await f.api('GET', links(app, 'v1.0'), { token: guest.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body, [c, b, a], 'newest first');
      assert.equal(list.headers.get('x-total'), '3');
      const page = await f.api('GET', `${links(app, 'v1.0')}?per_page=1&page=3`);
      assert.deepEqual(page.body, [a]);
      const one = await f.api('GET', links(app, 'v1.0', a.id), { token: guest.token });
      assert.deepEqual([one.status, one.body], [200, a]);
      const release = await f.api('GET', `/projects/${app.id}/releases/v1.0`);
      assert.deepEqual(release.body.assets.links, [c, b, a]);
      assert.equal(release.body.assets.count, 7);
    });

    it('a tag with a slash, as python-gitlab and gitbeaker send it (release%2F1.0)', async () => {
      const r = await f.api('POST', `/projects/${app.id}/releases/release%2F1.0/assets/links`, { token: dev.token, body: { name: 'bin', url: 'https://ex.com/bin', direct_asset_path: '/bin/app' } });
      expectStatus(r, 201);
      assert.equal(r.body.direct_asset_url, `${web}/-/releases/release%2F1.0/downloads/bin/app`);
      const put = await f.api('PUT', `/projects/${app.id}/releases/release%2F1.0/assets/links/${r.body.id}`, { token: dev.token, body: { name: 'bin2' } });
      expectStatus(put, 200);
      assert.equal(put.body.name, 'bin2');
    });

    it('every validation error: 400 with the full messages, in the model order; nothing written', async () => {
      const before = await count();
      const long = `/${'a'.repeat(128)}`;
      const cases: Array<[Record<string, unknown>, unknown]> = [
        [{ url: 'https://x.example/1' }, { error: 'name is missing' }],
        [{ name: 'x' }, { error: 'url is missing' }],
        [{ name: 'x', url: 'https://x.example/1', link_type: 'exe' }, { error: 'link_type does not have a valid value' }],
        [{ name: '', url: 'https://x.example/1' }, { message: ["Name can't be blank"] }],
        [{ name: 'x', url: '' }, { message: ["Url can't be blank", 'Url must be a valid URL'] }],
        [{ name: 'x', url: 'javascript:alert(1)' }, { message: [SCHEMES] }],
        [{ name: 'x', url: 'not a url' }, { message: [SCHEMES] }],
        [{ name: 'x', url: 'file:///etc/passwd' }, { message: [SCHEMES] }],
        [{ name: 'x', url: 'https://-bad.example/x' }, { message: ['Url is blocked: Hostname or IP address invalid'] }],
        [{ name: 'x', url: 'https://exa mple.com/x' }, { message: ['Url is blocked: URI is invalid'] }],
        [{ name: 'x', url: 'https://x.example/a%0Ab' }, { message: ['Url is blocked: URI is invalid'] }],
        [{ name: 'Binary', url: 'https://x.example/1' }, { message: ['Name has already been taken'] }],
        [{ name: 'x', url: 'https://example.com/app.bin' }, { message: ['Url has already been taken'] }],
        [{ name: 'x', url: 'https://x.example/1', direct_asset_path: '/bin/app.bin' }, { message: ['Filepath has already been taken'] }],
        [{ name: 'x', url: 'https://x.example/1', direct_asset_path: 'bin/app' }, { message: ['Filepath is in an invalid format'] }],
        [{ name: 'x', url: 'https://x.example/1', direct_asset_path: '/bin//app' }, { message: ['Filepath is in an invalid format'] }],
        [{ name: 'x', url: 'https://x.example/1', direct_asset_path: '/bin/app-' }, { message: ['Filepath is in an invalid format'] }],
        [{ name: 'x', url: 'https://x.example/1', filepath: long }, { message: ['Filepath is too long (maximum is 128 characters)'] }],
        [{ name: 'Binary', url: 'javascript:x', direct_asset_path: 'x' }, { message: [SCHEMES, 'Name has already been taken', 'Filepath is in an invalid format'] }],
      ];
      for (const [body, expected] of cases) {
        const r = await f.api('POST', links(app, 'v1.0'), { token: dev.token, body });
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.equal(await count(), before);
      // the same name, url and path are fine on another release
      const other = await f.api('POST', links(app, 'release/1.0'), { token: dev.token, body: { name: 'Binary', url: 'https://example.com/app.bin', direct_asset_path: '/bin/app.bin' } });
      expectStatus(other, 201);
    });

    it('update: one of name or url required; the rest kept; uniqueness excludes the link itself; 404s', async () => {
      const a = await link({ name: 'Editable', url: 'https://x.example/edit', direct_asset_path: '/edit/me', link_type: 'image' });
      let r = await f.api('PUT', links(app, 'v1.0', a.id), { token: dev.token, body: { name: 'Edited' } });
      expectStatus(r, 200);
      assert.deepEqual(r.body, { ...a, name: 'Edited' });
      r = await f.api('PUT', links(app, 'v1.0', a.id), { token: dev.token, body: { url: 'https://x.example/edit', direct_asset_path: '/edit/again', link_type: 'runbook' } });
      assert.deepEqual(r.body, { ...a, name: 'Edited', direct_asset_url: `${web}/-/releases/v1.0/downloads/edit/again`, link_type: 'runbook' });
      r = await f.api('GET', links(app, 'v1.0', a.id));
      assert.equal(r.body.link_type, 'runbook');

      const cases: Array<[number, Record<string, unknown>, number, unknown]> = [
        [a.id, {}, 400, { error: 'name, url are missing, at least one parameter must be provided' }],
        [a.id, { link_type: 'other', direct_asset_path: '/x/y' }, 400, { error: 'name, url are missing, at least one parameter must be provided' }],
        [a.id, { name: 'Binary' }, 400, { message: ['Name has already been taken'] }],
        [a.id, { url: 'ssh://x.example' }, 400, { message: [SCHEMES] }],
        [a.id, { name: 'Edited', direct_asset_path: '/bin/app.bin' }, 400, { message: ['Filepath has already been taken'] }],
        [a.id, { name: 'x', link_type: 'exe' }, 400, { error: 'link_type does not have a valid value' }],
        [999999, { name: 'x' }, 404, NOT_FOUND],
      ];
      for (const [id, body, status, expected] of cases) {
        const res = await f.api('PUT', links(app, 'v1.0', id), { token: dev.token, body });
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body));
      }
      r = await f.api('PUT', links(app, 'nope', a.id), { token: dev.token, body: { name: 'x' } });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      r = await f.api('PUT', links(app, 'release/1.0', a.id), { token: dev.token, body: { name: 'x' } });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND], 'a link is found under its own release only');
    });

    it('delete answers the deleted link; then it is gone', async () => {
      const a = await link({ name: 'Temporary', url: 'https://x.example/tmp' });
      let r = await f.api('DELETE', links(app, 'v1.0', a.id), { token: dev.token });
      assert.deepEqual([r.status, r.body], [200, a]);
      r = await f.api('GET', links(app, 'v1.0', a.id));
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      r = await f.api('DELETE', links(app, 'v1.0', a.id), { token: dev.token });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
    });

    it('permissions: read as Guest (anyone on public projects), write as Developer; outsiders 404 on private', async () => {
      const a = await link({ name: 'Perm', url: 'https://x.example/perm' });
      for (const token of [reporter.token, guest.token]) {
        let r = await f.api('POST', links(app, 'v1.0'), { token, body: { name: 'no', url: 'https://x.example/no' } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        r = await f.api('PUT', links(app, 'v1.0', a.id), { token, body: { name: 'no' } });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
        r = await f.api('DELETE', links(app, 'v1.0', a.id), { token });
        assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      }
      for (const token of [outsider.token, null]) {
        let r = await f.api('GET', links(app, 'v1.0'), { token });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
        r = await f.api('GET', links(app, 'v1.0', a.id), { token });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
      }
      let r = await f.api('POST', links(app, 'v1.0'), { token: outsider.token, body: { name: 'no', url: 'https://x.example/no' } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
      r = await f.api('GET', links(app, 'nope'), { token: guest.token });
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);

      const p = await f.api('POST', links(pub, 'p1'), { token: dev.token, body: { name: 'pub', url: 'https://x.example/pub' } });
      expectStatus(p, 201);
      r = await f.api('GET', links(pub, 'p1'), { token: null });
      assert.deepEqual([r.status, r.body], [200, [p.body]]);
      r = await f.api('GET', links(pub, 'p1', p.body.id), { token: outsider.token });
      assert.deepEqual([r.status, r.body], [200, p.body]);
      r = await f.api('POST', links(pub, 'p1'), { token: outsider.token, body: { name: 'no', url: 'https://x.example/no' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('POST', links(pub, 'p1'), { token: null, body: { name: 'no', url: 'https://x.example/no' } });
      assert.equal(r.status, 401);
    });
  });
}
