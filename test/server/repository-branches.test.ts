import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
// GitLab shows commit dates in their offset: `.000+00:00` for a commit written through the API.
const T0_COMMIT = '2026-04-01T10:00:00.000+00:00';
const T0 = '2026-04-01T10:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };

for (const dialect of DIALECTS) {
  describe(`${dialect}: repository branches`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: User;
    let maintainer: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let app: any; // private team/app
    let site: any; // public open/site
    let root: { name: string; email: string };
    let mainSha: string;
    let team: any;

    const db = () => f.forge.database.db;
    const branchesOf = async (project: any, query = '', token?: string | null) => {
      const r = await f.api('GET', `/projects/${project.id}/repository/branches${query}`, { token });
      expectStatus(r, 200);
      return r.body.map((b: any) => b.name);
    };
    /** A protection rule written straight to the tables (the protected branches API is another suite's). */
    async function protect(projectId: number, name: string, levels: { push: number; merge: number }) {
      const now = clock.now().toISOString();
      const pb = await db().insertInto('protected_branches').values({ project_id: projectId, name, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      await db()
        .insertInto('protected_branch_access_levels')
        .values([
          { protected_branch_id: pb.id, action: 'push', access_level: levels.push, user_id: null, group_id: null },
          { protected_branch_id: pb.id, action: 'merge', access_level: levels.merge, user_id: null, group_id: null },
        ])
        .execute();
    }

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [dev, maintainer, reporter, guest, outsider] = await createUsers(f, ['brdev', 'brmaint', 'brrep', 'brguest', 'brout']);
      const me = await f.api('GET', '/user');
      root = { name: me.body.name, email: me.body.email };
      team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await addMember(f, 'projects', app.id, maintainer.id, 40);
      await addMember(f, 'projects', app.id, reporter.id, 20);
      await addMember(f, 'projects', app.id, guest.id, 10);
      const open = await createGroup(f, f.rootToken, { name: 'Open', path: 'open', visibility: 'public' });
      site = await createProject(f, f.rootToken, { name: 'Site', namespace_id: open.id, visibility: 'public' });
      mainSha = await commitFiles(f, app.id, 'main', { 'README.md': '# App\n' }, { message: 'Initial commit' });
    });
    after(() => f.stop());

    it('POST creates branches from a branch, tag-less sha or name; GET shows GitLab\'s entity', async () => {
      for (const [branch, ref] of [['feature/a', 'main'], ['feature/b', mainSha], ['fix-1', 'main']]) {
        const r = await f.api('POST', `/projects/${app.id}/repository/branches`, { token: dev.token, body: { branch, ref } });
        expectStatus(r, 201);
        assert.deepEqual([r.body.name, r.body.commit.id, r.body.default, r.body.protected, r.body.can_push], [branch, mainSha, false, false, true]);
      }
      const r = await f.api('GET', `/projects/${encodeURIComponent('team/app')}/repository/branches/main`, { token: dev.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, {
        name: 'main',
        commit: {
          id: mainSha, short_id: mainSha.slice(0, 8), created_at: T0_COMMIT, parent_ids: [], title: 'Initial commit', message: 'Initial commit',
          author_name: root.name, author_email: root.email, authored_date: T0_COMMIT, committer_name: root.name, committer_email: root.email, committed_date: T0_COMMIT,
          trailers: {}, extended_trailers: {}, web_url: `${f.url}/team/app/-/commit/${mainSha}`,
        },
        merged: false,
        // The first push protects the default branch for Maintainers.
        protected: true,
        developers_can_push: false,
        developers_can_merge: false,
        can_push: false,
        default: true,
        web_url: `${f.url}/team/app/-/tree/main`,
      });
      const slash = await f.api('GET', `/projects/${app.id}/repository/branches/${encodeURIComponent('feature/a')}`, { token: reporter.token });
      assert.deepEqual([slash.status, slash.body.name, slash.body.can_push], [200, 'feature/a', false]);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/feature/a`)).status, 404, 'an unencoded slash is another route');
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/branches/branch*`)).body, { message: 'The branch refname is invalid' });
      const missing = await f.api('GET', `/projects/${app.id}/repository/branches/nope`);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Branch Not Found' }]);
      const head = await f.api('HEAD', `/projects/${app.id}/repository/branches/${encodeURIComponent('feature/a')}`);
      assert.deepEqual([head.status, head.text], [204, '']);
      const headMissing = await f.api('HEAD', `/projects/${app.id}/repository/branches/nope`);
      assert.deepEqual([headMissing.status, headMissing.text], [404, '']);
    });

    it('POST refuses bad names, existing branches, unknown refs and callers without push access', async () => {
      const post = (body: Record<string, unknown>, token: string | null = dev.token) => f.api('POST', `/projects/${app.id}/repository/branches`, { token, body });
      const cases: [Record<string, unknown>, number, unknown][] = [
        [{ branch: 'new design', ref: 'main' }, 400, { message: 'Branch name is invalid' }],
        [{ branch: '../x', ref: 'main' }, 400, { message: 'Branch name is invalid' }],
        [{ branch: 'main', ref: 'main' }, 400, { message: 'Branch already exists' }],
        [{ branch: 'nd3', ref: 'foo' }, 400, { message: "Failed to create branch 'nd3': invalid reference name 'foo'" }],
        [{ branch: 'a'.repeat(40), ref: 'main' }, 400, { message: 'You cannot create a branch with a SHA-1 or SHA-256 branch name.' }],
        [{ branch: 'x' }, 400, { error: 'ref is missing' }],
        [{ branch: '', ref: 'main' }, 400, { error: 'branch is empty' }],
      ];
      for (const [body, status, expected] of cases) {
        const r = await post(body);
        assert.deepEqual([r.status, r.body], [status, expected], JSON.stringify(body));
      }
      assert.deepEqual((await post({ branch: 'r1', ref: 'main' }, reporter.token)).body, FORBIDDEN);
      assert.deepEqual((await post({ branch: 'r1', ref: 'main' }, guest.token)).body, FORBIDDEN);
      assert.deepEqual((await post({ branch: 'r1', ref: 'main' }, outsider.token)).body, { message: '404 Project Not Found' });
      assert.equal((await post({ branch: 'r1', ref: 'main' }, null)).status, 401);
      // A branch matching a rule the caller can neither push nor merge to.
      await protect(app.id, 'release/*', { push: 40, merge: 40 });
      assert.deepEqual((await post({ branch: 'release/1', ref: 'main' })).body, { message: 'You are not allowed to create protected branches on this project.' });
      expectStatus(await post({ branch: 'release/1', ref: 'main' }, maintainer.token), 201);
    });

    it('GET list: by name, paged in SQL with headers, search, regex, sort', async () => {
      const all = await branchesOf(app);
      assert.deepEqual(all, ['feature/a', 'feature/b', 'fix-1', 'main', 'release/1']);
      const page = await f.api('GET', `/projects/${app.id}/repository/branches?per_page=2&page=2`);
      assert.deepEqual(page.body.map((b: any) => b.name), ['fix-1', 'main']);
      assert.deepEqual(
        ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => page.headers.get(h)),
        ['2', '2', '5', '3', '3', '1'],
      );
      assert.match(page.headers.get('link')!, /rel="next"/);
      assert.deepEqual(await branchesOf(app, '?search=FEATURE'), ['feature/a', 'feature/b']);
      assert.deepEqual(await branchesOf(app, '?search=%5Efix'), ['fix-1']);
      assert.deepEqual(await branchesOf(app, '?search=1%24'), ['fix-1', 'release/1']);
      assert.deepEqual(await branchesOf(app, '?search=100%25'), []);
      assert.deepEqual(await branchesOf(app, `?regex=${encodeURIComponent('^(main|feature/b)$')}`), ['feature/b', 'main']);
      const bad = await f.api('GET', `/projects/${app.id}/repository/branches?regex=(invalid`);
      assert.deepEqual([bad.status, bad.body], [400, { message: 'Regex is invalid' }]);
      const lookahead = await f.api('GET', `/projects/${app.id}/repository/branches?regex=${encodeURIComponent('^(?!main)')}`);
      assert.deepEqual([lookahead.status, lookahead.body], [400, { message: 'Regex is invalid' }], 'RE2 has no lookarounds');
      const badSort = await f.api('GET', `/projects/${app.id}/repository/branches?sort=unknown`);
      assert.deepEqual([badSort.status, badSort.body], [400, { error: 'sort does not have a valid value' }]);
      clock.advance(60_000);
      await commitFiles(f, app.id, 'fix-1', { 'fix.txt': 'fixed\n' });
      assert.deepEqual((await branchesOf(app, '?sort=updated_desc')).slice(0, 1), ['fix-1']);
      assert.deepEqual((await branchesOf(app, '?sort=updated_asc')).slice(-1), ['fix-1']);
      assert.deepEqual(await branchesOf(app, '?page_token=fix-1'), ['main', 'release/1']);
    });

    it('merged, protected and push flags follow the default branch and the protection rules', async () => {
      await protect(app.id, 'feature/*', { push: 30, merge: 40 });
      const list = await f.api('GET', `/projects/${app.id}/repository/branches`, { token: dev.token });
      const flags = Object.fromEntries(list.body.map((b: any) => [b.name, [b.merged, b.protected, b.developers_can_push, b.developers_can_merge, b.can_push]]));
      assert.deepEqual(flags, {
        // feature/* heads equal main's head: not merged (GitLab leaves out identical heads)
        'feature/a': [false, true, true, false, true],
        'feature/b': [false, true, true, false, true],
        'fix-1': [false, false, false, false, true],
        main: [false, true, false, false, false],
        'release/1': [false, true, false, false, false],
      });
      clock.advance(1000);
      await commitFiles(f, app.id, 'main', { 'CHANGELOG.md': 'v1\n' });
      const merged = await f.api('GET', `/projects/${app.id}/repository/branches/${encodeURIComponent('feature/a')}`);
      assert.equal(merged.body.merged, true);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/fix-1`)).body.merged, false);
    });

    it('reading needs the code: 404 for outsiders of a private project, 403 for its guests, public ones are open', async () => {
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/branches`, { token: outsider.token })).body, { message: '404 Project Not Found' });
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/branches`, { token: null })).body, { message: '404 Project Not Found' });
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/repository/branches/main`, { token: guest.token })).body, FORBIDDEN);
      await commitFiles(f, site.id, 'main', { 'index.html': '<h1>Hi</h1>\n' });
      const open = await f.api('GET', `/projects/${site.id}/repository/branches/main`, { token: null });
      assert.deepEqual([open.status, open.body.can_push], [200, false]);
    });

    it('DELETE: 204; the default branch, protected branches below Maintainer, missing and invalid names refused', async () => {
      const del = (name: string, token: string | null = dev.token, headers?: Record<string, string>) =>
        f.api('DELETE', `/projects/${app.id}/repository/branches/${encodeURIComponent(name)}`, { token, headers });
      const gone = await f.api('POST', `/projects/${app.id}/repository/branches`, { token: dev.token, body: { branch: 'gone', ref: 'main' } });
      expectStatus(gone, 201);
      assert.deepEqual((await del('gone', reporter.token)).body, FORBIDDEN);
      const stale = await del('gone', dev.token, { 'If-Unmodified-Since': new Date(Date.parse(T0) - 86_400_000).toUTCString() });
      assert.equal(stale.status, 412);
      const r = await del('gone');
      assert.deepEqual([r.status, r.text], [204, '']);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/gone`)).status, 404);
      assert.deepEqual((await del('gone')).body, { message: '404 Branch Not Found' });
      assert.deepEqual((await del('branch*')).body, { message: 'The branch refname is invalid' });
      const main = await del('main', maintainer.token);
      assert.deepEqual([main.status, main.body], [400, { message: 'The default branch of a project cannot be deleted.' }]);
      const prot = await del('release/1');
      assert.deepEqual([prot.status, prot.body], [400, {
        message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
      }]);
      expectStatus(await del('release/1', maintainer.token), 204);
      const count = await db().selectFrom('repository_files').select((eb) => eb.fn.countAll().as('n')).where('ref_id', 'not in', (eb) => eb.selectFrom('repository_refs').select('id')).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0, 'a deleted branch takes its files along');
    });

    it('empty_repo until a branch exists; POST branch in an empty project first commits README.md; initialize_with_readme', async () => {
      const blank = await createProject(f, f.rootToken, { name: 'Blank', namespace_id: team.id });
      assert.equal(blank.empty_repo, true);
      const r = await f.api('POST', `/projects/${blank.id}/repository/branches`, { body: { branch: 'dev', ref: 'main' } });
      expectStatus(r, 201);
      assert.deepEqual([r.body.name, r.body.commit.title, r.body.merged], ['dev', 'Add README.md', false]);
      assert.equal((await f.api('GET', `/projects/${blank.id}`)).body.empty_repo, false);
      assert.deepEqual(await branchesOf(blank), ['dev', 'main']);
      const readme = await f.api('GET', `/projects/${blank.id}/repository/files/README.md/raw`);
      assert.deepEqual([readme.status, readme.text], [200, '']);

      const seeded = await createProject(f, dev.token, { name: 'Seeded', description: 'About it', initialize_with_readme: true });
      assert.equal(seeded.empty_repo, false);
      const listed = await f.api('GET', `/projects?search=Seeded`, { token: dev.token });
      assert.deepEqual(listed.body.map((p: any) => [p.name, p.empty_repo]), [['Seeded', false]]);
      const main = await f.api('GET', `/projects/${seeded.id}/repository/branches/main`, { token: dev.token });
      assert.deepEqual([main.body.commit.title, main.body.commit.author_name, main.body.protected, main.body.default], ['Initial commit', 'brdev', true, true]);
      const text = await f.api('GET', `/projects/${seeded.id}/repository/files/README.md/raw`, { token: dev.token });
      assert.equal(text.text, '# Seeded\n\nAbout it\n');
    });

    it('DELETE merged_branches: 202, removes merged unprotected branches only', async () => {
      const made = [];
      for (const name of ['old-1', 'old-2']) {
        made.push(await f.api('POST', `/projects/${app.id}/repository/branches`, { token: dev.token, body: { branch: name, ref: 'main' } }));
      }
      clock.advance(1000);
      await commitFiles(f, app.id, 'main', { 'later.txt': 'x\n' });
      await commitFiles(f, app.id, 'old-2', { 'own.txt': 'y\n' });
      assert.deepEqual((await f.api('DELETE', `/projects/${app.id}/repository/merged_branches`, { token: guest.token })).body, FORBIDDEN);
      assert.equal((await f.api('DELETE', `/projects/${site.id}/repository/merged_branches`, { token: null })).status, 403);
      const r = await f.api('DELETE', `/projects/${app.id}/repository/merged_branches`, { token: dev.token });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      // old-1 and the feature branches were merged, but feature/* is protected.
      assert.deepEqual(await branchesOf(app), ['feature/a', 'feature/b', 'fix-1', 'main', 'old-2']);
    });
  });
}
