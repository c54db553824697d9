import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
// GitLab shows commit dates in their offset: `.000+00:00` for a commit written through the API.
const T0_COMMIT = '2026-04-03T12:00:00.000+00:00';
const T0 = '2026-04-03T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NO_PUSH = { message: '403 Forbidden - You are not allowed to push into this branch' };
const SHA = /^[0-9a-f]{40}$/;
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository commits`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: User;
    let maintainer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let app: any;
    let site: any;
    const shas: Record<string, string> = {};

    const commit = (body: Record<string, unknown>, token: string | null = dev.token, project = app) =>
      f.api('POST', `/projects/${project.id}/repository/commits`, { token, body });
    const list = async (query = '', token?: string | null) => {
      const r = await f.api('GET', `/projects/${app.id}/repository/commits${query}`, { token });
      expectStatus(r, 200);
      return r.body.map((c: any) => c.title);
    };
    const fileOn = async (branch: string, path: string) =>
      f.api('GET', `/projects/${app.id}/repository/files/${encodeURIComponent(path)}?ref=${encodeURIComponent(branch)}`);

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [dev, maintainer, reporter, guest, outsider] = await createUsers(f, ['cmdev', 'cmmaint', 'cmrep', 'cmguest', 'cmout']);
      const team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      for (const [u, level] of [[dev, 30], [maintainer, 40], [reporter, 20], [guest, 10]] as const) await addMember(f, 'projects', app.id, u.id, level);
      const open = await createGroup(f, f.rootToken, { name: 'Open', path: 'open', visibility: 'public' });
      site = await createProject(f, f.rootToken, { name: 'Site', namespace_id: open.id, visibility: 'public' });
    });
    after(() => f.stop());

    it('POST records the first commit of an empty repository: 201 with GitLab\'s commit detail and stats', async () => {
      const r = await commit({
        branch: 'main',
        commit_message: 'Start\n\nThe beginning.\n\nSigned-off-by: Dev <dev@example.com>',
        actions: [
          { action: 'create', file_path: 'a.txt', content: 'one\ntwo\n' },
          { action: 'create', file_path: 'dir/b.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
          { action: 'create', file_path: 'run.sh', content: '#!/bin/sh\necho hi\n', execute_filemode: true },
        ],
      });
      expectStatus(r, 201);
      shas.start = r.body.id;
      assert.match(r.body.id, SHA);
      assert.deepEqual(r.body, {
        id: r.body.id, short_id: r.body.id.slice(0, 8), created_at: T0_COMMIT, parent_ids: [], title: 'Start',
        message: 'Start\n\nThe beginning.\n\nSigned-off-by: Dev <dev@example.com>',
        author_name: 'cmdev', author_email: 'cmdev@example.com', authored_date: T0_COMMIT,
        committer_name: 'cmdev', committer_email: 'cmdev@example.com', committed_date: T0_COMMIT,
        trailers: { 'Signed-off-by': 'Dev <dev@example.com>' }, extended_trailers: { 'Signed-off-by': ['Dev <dev@example.com>'] },
        web_url: `${f.url}/team/app/-/commit/${r.body.id}`,
        stats: { additions: 4, deletions: 0, total: 4 }, status: null, project_id: app.id, last_pipeline: null,
      });
      const bin = await fileOn('main', 'dir/b.bin');
      assert.deepEqual([bin.body.content, bin.body.size], [Buffer.from([0, 1, 2, 255]).toString('base64'), 4]);
      assert.equal((await fileOn('main', 'run.sh')).body.execute_filemode, true);
      // The first push made main the protected default branch.
      assert.deepEqual((await commit({ branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'x', content: '' }] })).body, NO_PUSH);
    });

    it('POST: push access, branch start rules and action errors answer as GitLab', async () => {
      const add = [{ action: 'create', file_path: 'new.txt', content: 'n\n' }];
      assert.deepEqual((await commit({ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: add }, reporter.token)).body, NO_PUSH);
      assert.deepEqual((await commit({ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: add }, guest.token)).body, FORBIDDEN);
      assert.deepEqual((await commit({ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: add }, outsider.token)).body, { message: '404 Project Not Found' });
      assert.equal((await commit({ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: add }, null)).status, 401);
      const bad: [Record<string, unknown>, unknown][] = [
        [{ branch: 'f1', commit_message: 'm', actions: add }, { message: 'You can only create or edit files when you are on a branch' }],
        [{ branch: 'f1', start_branch: 'nope', commit_message: 'm', actions: add }, { message: 'You can only create or edit files when you are on a branch' }],
        [{ branch: 'f1', start_sha: 'xyz', commit_message: 'm', actions: add }, { message: "Invalid start_sha 'xyz'" }],
        [{ branch: 'f1', start_sha: 'e'.repeat(40), commit_message: 'm', actions: add }, { message: `Cannot find start_sha '${'e'.repeat(40)}'` }],
        [{ branch: 'f1', start_sha: shas.start, start_branch: 'main', commit_message: 'm', actions: add }, { error: 'start_branch, start_sha are mutually exclusive' }],
        [{ branch: 'bad name', start_branch: 'main', commit_message: 'm', actions: add },
          { message: "Something went wrong when we tried to create 'bad name' for you: Branch name is invalid" }],
        [{ branch: 'f1', start_branch: 'main', commit_message: '', actions: add }, { error: 'commit_message is empty' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [] }, { message: '400 Bad request - actions is required' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'copy', file_path: 'x' }] }, { error: 'actions[0][action] does not have a valid value' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'update', file_path: 'a.txt' }] },
          { message: '400 Bad request - actions[0][content] is required for update action' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'a.txt', content: '' }] }, { message: 'A file with this name already exists' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'a.txt/c', content: '' }] }, { message: 'A file with this name already exists' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'dir', content: '' }] }, { message: 'A directory with this name already exists' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'update', file_path: 'zz', content: '' }] }, { message: "A file with this name doesn't exist" }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'delete', file_path: 'zz' }] }, { message: "A file with this name doesn't exist" }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'move', file_path: 'y', previous_path: 'zz' }] }, { message: "A file with this name doesn't exist" }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: '../x', content: '' }] }, { message: 'Path cannot include directory traversal' }],
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [{ action: 'update', file_path: 'a.txt', content: 'x', last_commit_id: 'f'.repeat(40) }] },
          { message: 'The file has changed since you started editing it: a.txt' }],
        // The first action is valid: nothing of the commit stays when a later one fails.
        [{ branch: 'f1', start_branch: 'main', commit_message: 'm', actions: [...add, { action: 'delete', file_path: 'zz' }] }, { message: "A file with this name doesn't exist" }],
      ];
      for (const [body, expected] of bad) {
        const r = await commit(body);
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/f1`)).status, 404);
    });

    it('POST on a new branch from start_branch, then updates, moves, chmods and deletes on it; force resets it', async () => {
      clock.advance(60_000);
      const created = await commit({ branch: 'feature', start_branch: 'main', commit_message: 'Add c', actions: [{ action: 'create', file_path: 'dir/c.txt', content: 'c\n' }] });
      expectStatus(created, 201);
      shas.addC = created.body.id;
      assert.deepEqual(created.body.parent_ids, [shas.start]);
      clock.advance(60_000);
      const edit = await commit({
        branch: 'feature',
        commit_message: 'Edit',
        author_name: 'Someone',
        author_email: 'someone@example.com',
        stats: false,
        actions: [
          { action: 'update', file_path: 'a.txt', content: 'one\n2\nthree\n', last_commit_id: shas.start },
          { action: 'move', file_path: 'dir/moved.txt', previous_path: 'dir/c.txt' },
          { action: 'chmod', file_path: 'run.sh', execute_filemode: false },
          { action: 'delete', file_path: 'dir/b.bin' },
        ],
      });
      expectStatus(edit, 201);
      shas.edit = edit.body.id;
      assert.deepEqual([edit.body.author_name, edit.body.author_email, edit.body.parent_ids, 'stats' in edit.body], ['Someone', 'someone@example.com', [shas.addC], false]);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/commits/${shas.edit}`)).body.stats, { additions: 2, deletions: 1, total: 3 });
      assert.equal((await fileOn('feature', 'dir/moved.txt')).body.content, Buffer.from('c\n').toString('base64'));
      assert.equal((await fileOn('feature', 'dir/c.txt')).status, 404);
      assert.equal((await fileOn('feature', 'run.sh')).body.execute_filemode, false);
      assert.equal((await fileOn('main', 'dir/b.bin')).status, 200, 'main keeps its files');
      const again = await commit({ branch: 'feature', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'z', content: '' }] });
      assert.deepEqual(again.body, { message: "A branch called 'feature' already exists. Switch to that branch in order to make changes" });
      const forced = await commit({ branch: 'scratch', start_branch: 'main', commit_message: 'Scratch', actions: [{ action: 'create', file_path: 's', content: '' }] });
      expectStatus(forced, 201);
      const reset = await commit({ branch: 'scratch', start_branch: 'main', force: true, commit_message: 'Again', actions: [{ action: 'create', file_path: 't', content: '' }] });
      expectStatus(reset, 201);
      assert.deepEqual(reset.body.parent_ids, [shas.start]);
      assert.equal((await fileOn('scratch', 's')).status, 404, 'force dropped the old head');
      const fromSha = await commit({ branch: 'from-sha', start_sha: shas.start, commit_message: 'From sha', actions: [{ action: 'create', file_path: 'u', content: '' }] });
      assert.deepEqual([fromSha.status, fromSha.body.parent_ids], [201, [shas.start]]);
      const tag = await f.api('POST', `/projects/${app.id}/repository/tags`, { token: dev.token, body: { tag_name: 'v1', ref: shas.addC } });
      expectStatus(tag, 201);
    });

    it('GET list: ancestry of a ref, newest first, paged without totals; filters', async () => {
      assert.deepEqual(await list(), ['Start']);
      assert.deepEqual(await list('?ref_name=feature'), ['Edit', 'Add c', 'Start']);
      const page = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=feature&per_page=2`);
      assert.deepEqual(page.body.map((c: any) => c.title), ['Edit', 'Add c']);
      assert.deepEqual(['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map((h) => page.headers.get(h)), ['1', '2', '2', '', null, null]);
      assert.match(page.headers.get('link')!, /page=2&per_page=2&ref_name=feature>; rel="next"/);
      const last = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=feature&per_page=2&page=2`);
      assert.deepEqual([last.body.map((c: any) => c.title), last.headers.get('x-next-page')], [['Start'], '']);
      assert.deepEqual(await list('?ref_name=v1'), ['Add c', 'Start']);
      assert.deepEqual(await list(`?ref_name=${shas.addC.slice(0, 10)}`), ['Add c', 'Start']);
      assert.deepEqual(await list('?ref_name=nowhere'), []);
      const invalid = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=-x`);
      assert.deepEqual([invalid.status, invalid.body], [400, { error: 'ref_name is invalid' }]);
      assert.deepEqual(await list(`?ref_name=feature&since=${encodeURIComponent(new Date(Date.parse(T0) + 60_000).toISOString())}`), ['Edit', 'Add c']);
      assert.deepEqual(await list(`?ref_name=feature&until=${encodeURIComponent(new Date(Date.parse(T0) + 60_000).toISOString())}`), ['Add c', 'Start']);
      assert.deepEqual(await list('?ref_name=feature&path=dir'), ['Edit', 'Add c', 'Start']);
      assert.deepEqual(await list('?ref_name=feature&path=dir%2Fc.txt'), ['Edit', 'Add c']);
      assert.deepEqual(await list('?ref_name=feature&path=run.sh'), ['Edit', 'Start']);
      assert.deepEqual(await list('?ref_name=feature&author=someone%40example'), ['Edit']);
      // Every branch and tag; these commits share their commit times, so git's order among them is its own.
      assert.deepEqual((await list('?all=true')).sort(), ['Add c', 'Again', 'Edit', 'From sha', 'Start']);
      assert.deepEqual(await list('?ref_name=feature&order=topo'), ['Edit', 'Add c', 'Start']);
      const stats = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=feature&with_stats=true&per_page=1`);
      assert.deepEqual(stats.body[0].stats, { additions: 2, deletions: 1, total: 3 });
      const plain = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=main`);
      assert.deepEqual([plain.body[0].trailers, 'stats' in plain.body[0]], [{}, false]);
      const trailers = await f.api('GET', `/projects/${app.id}/repository/commits?ref_name=main&trailers=true`);
      assert.deepEqual(trailers.body[0].trailers, { 'Signed-off-by': 'Dev <dev@example.com>' });
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/commits`, { token: guest.token })).body, FORBIDDEN);
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/commits`, { token: outsider.token })).body, { message: '404 Project Not Found' });
      await commitFiles(f, site.id, 'main', { 'index.html': 'hi\n' }, { message: 'Public' });
      const open = await f.api('GET', `/projects/${site.id}/repository/commits`, { token: null });
      assert.deepEqual(open.body.map((c: any) => c.title), ['Public']);
    });

    it('GET one by sha, short sha, branch or tag, with stats unless stats=false; refs containing it', async () => {
      const bySha = await f.api('GET', `/projects/${app.id}/repository/commits/${shas.addC}`, { token: reporter.token });
      expectStatus(bySha, 200);
      assert.deepEqual([bySha.body.id, bySha.body.stats, bySha.body.project_id], [shas.addC, { additions: 1, deletions: 0, total: 1 }, app.id]);
      for (const ref of [shas.addC.slice(0, 8), 'v1']) assert.equal((await f.api('GET', `/projects/${app.id}/repository/commits/${ref}`)).body.id, shas.addC);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/commits/feature`)).body.id, shas.edit);
      const noStats = await f.api('GET', `/projects/${app.id}/repository/commits/feature?stats=false`);
      assert.equal('stats' in noStats.body, false);
      const missing = await f.api('GET', `/projects/${app.id}/repository/commits/${'0'.repeat(40)}`);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Commit Not Found' }]);
      const refs = await f.api('GET', `/projects/${app.id}/repository/commits/${shas.start}/refs`);
      assert.deepEqual(refs.body, [
        { type: 'branch', name: 'feature' }, { type: 'branch', name: 'from-sha' }, { type: 'branch', name: 'main' },
        { type: 'branch', name: 'scratch' }, { type: 'tag', name: 'v1' },
      ]);
      const tags = await f.api('GET', `/projects/${app.id}/repository/commits/${shas.edit}/refs?type=tag`);
      assert.deepEqual(tags.body, []);
      const paged = await f.api('GET', `/projects/${app.id}/repository/commits/${shas.addC}/refs?per_page=1`);
      assert.deepEqual([paged.body, paged.headers.get('x-total')], [[{ type: 'branch', name: 'feature' }], '2']);
    });
  });
}
