import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2026-04-05T07:00:00.000Z';
const SHA = /^[0-9a-f]{40}$/;
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };
const blobId = (s: string) => createHash('sha1').update(`blob ${Buffer.byteLength(s)}\0`).update(s).digest('hex');

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository tree`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let guest: User;
    let outsider: User;
    let app: any;
    let site: any;
    let empty: any;

    const tree = async (query = '', project = app, token?: string | null) => {
      const r = await f.api('GET', `/projects/${project.id}/repository/tree${query}`, { token });
      expectStatus(r, 200);
      return r.body.map((e: any) => `${e.type}:${e.path}`);
    };

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [guest, outsider] = await createUsers(f, ['trguest', 'trout']);
      const team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      empty = await createProject(f, f.rootToken, { name: 'Empty', namespace_id: team.id });
      await addMember(f, 'projects', app.id, guest.id, 10);
      const open = await createGroup(f, f.rootToken, { name: 'Open', path: 'open', visibility: 'public' });
      site = await createProject(f, f.rootToken, { name: 'Site', namespace_id: open.id, visibility: 'public' });
      await commitFiles(f, app.id, 'main', {
        'README.md': '# App\n', '.gitlab-ci.yml': 'job: {}\n', 'src/a.ts': 'a\n', 'src/lib/b.ts': 'b\n', 'src/lib/deep/c.ts': 'c\n',
        'src-x.txt': 'x\n', 'docs/guide.md': 'g\n',
      });
      const exe = await f.api('POST', `/projects/${app.id}/repository/files/${encodeURIComponent('bin/run')}`, {
        body: { branch: 'main', commit_message: 'Add run', content: '#!/bin/sh\n', execute_filemode: true },
      });
      expectStatus(exe, 201);
      await commitFiles(f, site.id, 'main', { 'index.html': 'hi\n' });
    });
    after(() => f.stop());

    it('one level: directories first, then files, each by path; GitLab\'s entry shape', async () => {
      const r = await f.api('GET', `/projects/${encodeURIComponent('team/app')}/repository/tree`);
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((e: any) => `${e.type}:${e.path}`), ['tree:bin', 'tree:docs', 'tree:src', 'blob:.gitlab-ci.yml', 'blob:README.md', 'blob:src-x.txt']);
      const readme = r.body.find((e: any) => e.name === 'README.md');
      assert.deepEqual(readme, { id: blobId('# App\n'), name: 'README.md', type: 'blob', path: 'README.md', mode: '100644' });
      const src = r.body.find((e: any) => e.name === 'src');
      assert.deepEqual({ ...src, id: '' }, { id: '', name: 'src', type: 'tree', path: 'src', mode: '040000' });
      assert.match(src.id, SHA);
      const again = await f.api('GET', `/projects/${app.id}/repository/tree`);
      assert.equal(again.body.find((e: any) => e.name === 'src').id, src.id, 'a directory id is stable');
      assert.deepEqual(await tree('?path=src'), ['tree:src/lib', 'blob:src/a.ts']);
      assert.deepEqual(await tree('?path=src%2F'), ['tree:src/lib', 'blob:src/a.ts']);
      assert.deepEqual(await tree('?path=src%2Flib'), ['tree:src/lib/deep', 'blob:src/lib/b.ts']);
      const bin = await f.api('GET', `/projects/${app.id}/repository/tree?path=bin`);
      assert.deepEqual(bin.body, [{ id: blobId('#!/bin/sh\n'), name: 'run', type: 'blob', path: 'bin/run', mode: '100755' }]);
      // Not a directory at the ref: Gitaly's resolve-tree error as GitLab shows it.
      for (const path of ['nope', 'README.md', '..%2Fsrc']) {
        const missing = await f.api('GET', `/projects/${app.id}/repository/tree?path=${path}`);
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 invalid revision or path Not Found' }], path);
      }
    });

    it('recursive: every directory, then every file under the path', async () => {
      assert.deepEqual(await tree('?recursive=true&per_page=100'), [
        'tree:bin', 'tree:docs', 'tree:src', 'tree:src/lib', 'tree:src/lib/deep',
        'blob:.gitlab-ci.yml', 'blob:README.md', 'blob:bin/run', 'blob:docs/guide.md', 'blob:src-x.txt', 'blob:src/a.ts', 'blob:src/lib/b.ts', 'blob:src/lib/deep/c.ts',
      ]);
      assert.deepEqual(await tree('?recursive=true&path=src'), ['tree:src/lib', 'tree:src/lib/deep', 'blob:src/a.ts', 'blob:src/lib/b.ts', 'blob:src/lib/deep/c.ts']);
      const page = await f.api('GET', `/projects/${app.id}/repository/tree?recursive=true&per_page=4&page=2`);
      assert.deepEqual(page.body.map((e: any) => e.path), ['src/lib/deep', '.gitlab-ci.yml', 'README.md', 'bin/run']);
      assert.deepEqual(['x-total', 'x-total-pages', 'x-page', 'x-next-page', 'x-prev-page'].map((h) => page.headers.get(h)), ['13', '4', '2', '3', '1']);
      assert.match(page.headers.get('link')!, /page=3&per_page=4&recursive=true>; rel="next"/);
    });

    it('ref: branch, tag or sha; an unknown ref or an empty repository is 404 Tree Not Found', async () => {
      expectStatus(await f.api('POST', `/projects/${app.id}/repository/branches`, { body: { branch: 'old', ref: 'main' } }), 201);
      await commitFiles(f, app.id, 'main', { 'later.txt': 'l\n', 'docs/guide.md': null });
      expectStatus(await f.api('POST', `/projects/${app.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'old' } }), 201);
      const oldHead = (await f.api('GET', `/projects/${app.id}/repository/branches/old`)).body.commit.id;
      for (const ref of ['old', 'v1', oldHead]) assert.deepEqual(await tree(`?ref=${ref}`), ['tree:bin', 'tree:docs', 'tree:src', 'blob:.gitlab-ci.yml', 'blob:README.md', 'blob:src-x.txt'], ref);
      assert.deepEqual(await tree(), ['tree:bin', 'tree:src', 'blob:.gitlab-ci.yml', 'blob:README.md', 'blob:later.txt', 'blob:src-x.txt']);
      for (const [project, query] of [[app, '?ref=nowhere'], [empty, '']]) {
        const r = await f.api('GET', `/projects/${project.id}/repository/tree${query}`);
        assert.deepEqual([r.status, r.body], [404, { message: '404 Tree Not Found' }]);
      }
    });

    it('access: private code needs Reporter (403 for guests, 404 for outsiders); public trees are open', async () => {
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/tree`, { token: guest.token })).body, { message: '403 Forbidden' });
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/tree`, { token: outsider.token })).body, { message: '404 Project Not Found' });
      assert.deepEqual(await tree('', site, null), ['blob:index.html']);
    });
  });
}
