import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2026-04-04T09:30:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const INVALID_PATH = { error: 'file_path should be a valid file path' };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };
const enc = encodeURIComponent;
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const blobId = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository files`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let app: any;
    let head: string;

    const files = (path: string, query = '') => `/projects/${app.id}/repository/files/${path}${query}`;
    const write = (method: string, path: string, body: Record<string, unknown>, token: string | null = dev.token) => f.api(method, files(path), { token, body });

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [dev, reporter, guest, outsider] = await createUsers(f, ['fldev', 'flrep', 'flguest', 'flout']);
      const team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await addMember(f, 'projects', app.id, reporter.id, 20);
      await addMember(f, 'projects', app.id, guest.id, 10);
      head = await commitFiles(f, app.id, 'main', { 'README.md': '# App\n', 'dir/sub/file.txt': 'nested\n', '.gitlab-ci.yml': 'test:\n  script: echo\n' });
      const png = await f.api('POST', files('image.png'), { body: { branch: 'main', commit_message: 'Logo', content: PNG.toString('base64'), encoding: 'base64' } });
      expectStatus(png, 201);
      expectStatus(await f.api('POST', `/projects/${app.id}/repository/branches`, { body: { branch: 'work', ref: 'main' } }), 201);
    });
    after(() => f.stop());

    it('GET: GitLab\'s JSON for a file at a branch, tag or sha, with the same data in X-Gitlab-* headers', async () => {
      const content = Buffer.from('nested\n');
      const r = await f.api('GET', files(enc('dir/sub/file.txt'), '?ref=main'), { token: reporter.token });
      expectStatus(r, 200);
      assert.deepEqual(Object.keys(r.body), [
        'file_name', 'file_path', 'size', 'encoding', 'content_sha256', 'ref', 'blob_id', 'commit_id', 'last_commit_id', 'execute_filemode', 'content',
      ]);
      const mainHead = (await f.api('GET', `/projects/${app.id}/repository/branches/main`)).body.commit.id;
      assert.deepEqual(r.body, {
        file_name: 'file.txt', file_path: 'dir/sub/file.txt', size: 7, encoding: 'base64', content_sha256: sha256(content), ref: 'main',
        blob_id: blobId(content), commit_id: mainHead, last_commit_id: head, execute_filemode: false, content: content.toString('base64'),
      });
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.deepEqual(
        ['file-name', 'file-path', 'size', 'encoding', 'content-sha256', 'ref', 'blob-id', 'commit-id', 'last-commit-id', 'execute-filemode'].map((h) => r.headers.get(`x-gitlab-${h}`)),
        ['file.txt', 'dir/sub/file.txt', '7', 'base64', sha256(content), 'main', blobId(content), mainHead, head, 'false'],
      );
      const ci = await f.api('GET', files('.gitlab-ci.yml', '?ref=main'));
      assert.deepEqual([ci.status, Buffer.from(ci.body.content, 'base64').toString()], [200, 'test:\n  script: echo\n']);
      expectStatus(await f.api('POST', `/projects/${app.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } }), 201);
      for (const ref of ['v1', mainHead, 'work']) {
        const byRef = await f.api('GET', files('README.md', `?ref=${ref}`));
        assert.deepEqual([byRef.status, byRef.body.ref, byRef.body.commit_id], [200, ref, mainHead], ref);
      }
      const headReq = await f.api('HEAD', files(enc('dir/sub/file.txt'), '?ref=main'));
      assert.deepEqual([headReq.status, headReq.text, headReq.headers.get('x-gitlab-file-path'), headReq.headers.get('x-gitlab-size')], [200, '', 'dir/sub/file.txt', '7']);
      assert.equal((await f.api('HEAD', files('nope.txt', '?ref=main'))).status, 404);
    });

    it('GET: missing ref, unknown ref or file, traversal and absolute paths, and access', async () => {
      const cases: [string, number, unknown][] = [
        [files('README.md'), 400, { error: 'ref is missing' }],
        [files('README.md', '?ref='), 400, { error: 'ref is empty' }],
        [files('README.md', '?ref=nowhere'), 404, { message: '404 Commit Not Found' }],
        [files('nope.txt', '?ref=main'), 404, { message: '404 File Not Found' }],
        [files(enc('dir/sub'), '?ref=main'), 404, { message: '404 File Not Found' }],
        [files(enc('../README.md'), '?ref=main'), 400, INVALID_PATH],
        [files(enc('dir/../../etc/passwd'), '?ref=main'), 400, INVALID_PATH],
        [files(enc('/etc/passwd.rb'), '?ref=main'), 400, INVALID_PATH],
        [files('dir/sub/file.txt', '?ref=main'), 404, { error: '404 Not Found' }],
      ];
      for (const [path, status, body] of cases) {
        const r = await f.api('GET', path);
        assert.deepEqual([r.status, r.body], [status, body], path);
      }
      // Sent verbatim: `%2e%2e%2f` decodes to `../`.
      const raw = await rawRequest(f.url, 'GET', `/api/v4${files('%2e%2e%2fsecret', '?ref=main')}`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
      assert.deepEqual([raw.status, raw.body], [400, INVALID_PATH]);
      assert.deepEqual((await f.api('GET', files('README.md', '?ref=main'), { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', files('README.md', '?ref=main'), { token: outsider.token })).body, { message: '404 Project Not Found' });
      assert.deepEqual((await f.api('GET', files('README.md', '?ref=main'), { token: null })).body, { message: '404 Project Not Found' });
    });

    it('GET raw: the bytes, text as text/plain, the default branch unless ref is given', async () => {
      const text = await f.api('GET', files(enc('dir/sub/file.txt'), '/raw'));
      assert.deepEqual([text.status, text.text, text.headers.get('content-type')], [200, 'nested\n', 'text/plain; charset=utf-8']);
      assert.equal(text.headers.get('content-disposition'), `inline; filename="file.txt"; filename*=UTF-8''file.txt`);
      assert.deepEqual([text.headers.get('x-gitlab-ref'), text.headers.get('x-gitlab-file-path'), text.headers.get('cache-control')], ['', 'dir/sub/file.txt', 'no-cache, no-store']);
      const leading = await f.api('GET', files(enc('/README.md'), '/raw?ref=work'));
      assert.deepEqual([leading.status, leading.text, leading.headers.get('x-gitlab-ref')], [200, '# App\n', 'work']);
      const img = await fetch(`${f.url}/api/v4${files('image.png', '/raw')}`, { headers: { 'PRIVATE-TOKEN': f.rootToken } });
      assert.deepEqual([img.status, img.headers.get('content-type'), Buffer.from(await img.arrayBuffer()).equals(PNG)], [200, 'image/png', true]);
      const missing = await f.api('GET', files('nope', '/raw'));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 File Not Found' }]);
      assert.deepEqual((await f.api('GET', files(enc('../x'), '/raw'))).body, INVALID_PATH);
      assert.deepEqual((await f.api('GET', files('README.md', '/raw'), { token: guest.token })).body, FORBIDDEN);
    });

    it('POST creates a file in a commit: 201 {file_path, branch}; push rules and errors', async () => {
      const r = await write('POST', enc('new/dir/x.sh'), { branch: 'work', commit_message: 'Add x', content: '#!/bin/sh\n', execute_filemode: true, author_name: 'A', author_email: 'a@example.com' });
      assert.deepEqual([r.status, r.body], [201, { file_path: 'new/dir/x.sh', branch: 'work' }]);
      const made = await f.api('GET', files(enc('new/dir/x.sh'), '?ref=work'));
      assert.deepEqual([made.body.execute_filemode, Buffer.from(made.body.content, 'base64').toString()], [true, '#!/bin/sh\n']);
      const last = await f.api('GET', `/projects/${app.id}/repository/commits/${made.body.last_commit_id}`);
      assert.deepEqual([last.body.title, last.body.author_name, last.body.author_email], ['Add x', 'A', 'a@example.com']);
      const b64 = await write('POST', 'data.bin', { branch: 'feature-1', start_branch: 'work', commit_message: 'Data', content: 'AAEC/w==', encoding: 'base64' });
      assert.deepEqual([b64.status, b64.body], [201, { file_path: 'data.bin', branch: 'feature-1' }]);
      assert.equal((await f.api('GET', files('data.bin', '?ref=feature-1'))).body.content, 'AAEC/w==');
      const cases: [string, Record<string, unknown>, string | null, number, unknown][] = [
        ['README.md', { branch: 'work', commit_message: 'm', content: 'x' }, dev.token, 400, { message: 'A file with this name already exists' }],
        ['x.txt', { branch: 'main', commit_message: 'm', content: 'x' }, dev.token, 400, { message: 'You are not allowed to push into this branch' }],
        ['x.txt', { branch: 'work', commit_message: 'm', content: 'x' }, reporter.token, 403, FORBIDDEN],
        ['x.txt', { branch: 'work', commit_message: 'm', content: 'x' }, outsider.token, 404, { message: '404 Project Not Found' }],
        ['x.txt', { branch: 'work', commit_message: 'm' }, dev.token, 400, { error: 'content is missing' }],
        ['x.txt', { branch: 'work', commit_message: '', content: 'x' }, dev.token, 400, { error: 'commit_message is empty' }],
        ['x.txt', { branch: 'work', commit_message: 'm', content: 'x', encoding: 'utf8' }, dev.token, 400, { error: 'encoding does not have a valid value' }],
        ['x.txt', { branch: 'nope', commit_message: 'm', content: 'x' }, dev.token, 400, { message: 'You can only create or edit files when you are on a branch' }],
        [enc('../x.txt'), { branch: 'work', commit_message: 'm', content: 'x' }, dev.token, 400, INVALID_PATH],
      ];
      for (const [path, body, token, status, expected] of cases) {
        const res = await write('POST', path, body, token);
        assert.deepEqual([res.status, res.body], [status, expected], `${path} ${JSON.stringify(body)}`);
      }
      assert.equal((await write('POST', 'x.txt', { branch: 'work', commit_message: 'm', content: 'x' }, null)).status, 401);
    });

    it('PUT updates (last_commit_id checked, null base64 content empties), DELETE removes: 200 / 204', async () => {
      const before = await f.api('GET', files('README.md', '?ref=work'));
      const stale = await write('PUT', 'README.md', { branch: 'work', commit_message: 'm', content: 'x', last_commit_id: '0'.repeat(40) });
      assert.deepEqual([stale.status, stale.body], [400, { message: 'You are attempting to update a file that has changed since you started editing it.' }]);
      const ok = await write('PUT', 'README.md', { branch: 'work', commit_message: 'Edit readme', content: '# App 2\n', last_commit_id: before.body.last_commit_id });
      assert.deepEqual([ok.status, ok.body], [200, { file_path: 'README.md', branch: 'work' }]);
      assert.equal(Buffer.from((await f.api('GET', files('README.md', '?ref=work'))).body.content, 'base64').toString(), '# App 2\n');
      const emptied = await write('PUT', '.gitlab-ci.yml', { branch: 'work', commit_message: 'Empty', content: null, encoding: 'base64' });
      expectStatus(emptied, 200);
      assert.equal((await f.api('GET', files('.gitlab-ci.yml', '?ref=work'))).body.size, 0);
      const missing = await write('PUT', 'nope.txt', { branch: 'work', commit_message: 'm', content: 'x' });
      assert.deepEqual([missing.status, missing.body], [400, { message: "A file with this name doesn't exist" }]);
      const del = await f.api('DELETE', files(enc('dir/sub/file.txt')), { token: dev.token, body: { branch: 'work', commit_message: 'Remove' } });
      assert.deepEqual([del.status, del.text], [204, '']);
      assert.equal((await f.api('GET', files(enc('dir/sub/file.txt'), '?ref=work'))).status, 404);
      assert.equal((await f.api('GET', files(enc('dir/sub/file.txt'), '?ref=main'))).status, 200);
      const again = await f.api('DELETE', files(enc('dir/sub/file.txt')), { token: dev.token, body: { branch: 'work', commit_message: 'Remove' } });
      assert.deepEqual([again.status, again.body], [400, { message: "A file with this name doesn't exist" }]);
      assert.deepEqual((await f.api('DELETE', files('README.md'), { token: reporter.token, body: { branch: 'work', commit_message: 'x' } })).body, FORBIDDEN);
    });
  });
}
