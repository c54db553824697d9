/**
 * Project fields GitLab computes (issue 30): `open_issues_count` (open issues that are not
 * confidential, kept by every issue write, import, seed and snapshot restore) and `readme_url`
 * (the README of the default branch), in every shape that carries them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { backfillProjectCounters } from '../../packages/core/src/storage/migrations/027-project-counters.js';
import { DIALECTS, ownClusterUrl } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { queriesDuring } from '../support/queries.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, expectStatus } from './http.js';

const NOW = '2024-06-15T12:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: project fields GitLab computes`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let dev: { id: number; username: string; token: string };
    let group: any;

    const project = async (id: number) => {
      const r = await f.api('GET', `/projects/${id}`);
      expectStatus(r, 200);
      return r.body;
    };
    const count = async (id: number) => (await project(id)).open_issues_count;
    const issue = async (projectId: number, body: Record<string, unknown>) => {
      const r = await f.api('POST', `/projects/${projectId}/issues`, { token: dev.token, body });
      expectStatus(r, 201);
      return r.body;
    };
    const edit = async (i: any, body: Record<string, unknown>) => expectStatus(await f.api('PUT', `/projects/${i.project_id}/issues/${i.iid}`, { body }), 200);
    const inList = async (path: string, id: number) => {
      const r = await f.api('GET', path);
      expectStatus(r, 200);
      const found = r.body.find((p: any) => p.id === id);
      assert.ok(found, `${path} lists project ${id}`);
      return found;
    };

    before(async () => {
      clock = fixedClock(NOW);
      f = await startTestServer(dialect, { testMode: true, clock });
      dev = await f.createUser('counterdev');
      group = await createGroup(f, f.rootToken, { name: 'Counted', path: 'counted' });
    });
    after(() => f.stop());

    it('open_issues_count: open issues that are not confidential, through create, close, reopen, confidential changes and delete', async () => {
      const p = await createProject(f, f.rootToken, { name: 'tracker', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      assert.equal(p.open_issues_count, 0);
      const a = await issue(p.id, { title: 'A' });
      const b = await issue(p.id, { title: 'B' });
      const c = await issue(p.id, { title: 'C', confidential: true });
      assert.equal(await count(p.id), 2, 'the confidential issue is not counted');
      // Every shape of the full project entity says the same; the simple one has no count (BasicProjectDetails).
      assert.equal((await inList(`/projects?search=tracker`, p.id)).open_issues_count, 2);
      assert.equal((await inList(`/groups/${group.id}/projects`, p.id)).open_issues_count, 2);
      assert.equal('open_issues_count' in (await inList(`/projects?search=tracker&simple=true`, p.id)), false);

      await edit(a, { state_event: 'close' });
      assert.equal(await count(p.id), 1);
      await edit(a, { state_event: 'close' }); // already closed: nothing changes
      await edit(c, { state_event: 'close' });
      assert.equal(await count(p.id), 1, 'closing a confidential issue changes nothing');
      await edit(a, { state_event: 'reopen' });
      await edit(c, { state_event: 'reopen' });
      assert.equal(await count(p.id), 2);
      await edit(c, { confidential: false });
      assert.equal(await count(p.id), 3, 'made public');
      await edit(b, { confidential: true, title: 'B secret' });
      assert.equal(await count(p.id), 2, 'made confidential');
      await edit(b, { confidential: true, state_event: 'close' });
      await edit(b, { confidential: false });
      assert.equal(await count(p.id), 2, 'a closed issue made public is still closed');
      expectStatus(await f.api('DELETE', `/projects/${p.id}/issues/${a.iid}`), 204);
      assert.equal(await count(p.id), 1);
      expectStatus(await f.api('DELETE', `/projects/${p.id}/issues/${b.iid}`), 204);
      assert.equal(await count(p.id), 1, 'deleting a closed issue changes nothing');
      // Concurrent writes to one project add up.
      await Promise.all(Array.from({ length: 8 }, (_, i) => issue(p.id, { title: `Burst ${i}` })));
      assert.equal(await count(p.id), 9);
      const stored = await f.forge.deps.db.selectFrom('issues').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', p.id).where('state', '=', 'opened').where('confidential', '=', 0).executeTakeFirstOrThrow();
      assert.equal(Number(stored.n), 9);
    });

    it('open_issues_count and the issues link are absent while the project has issues disabled, as GitLab hides them', async () => {
      const p = await createProject(f, f.rootToken, { name: 'quiet', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      await issue(p.id, { title: 'one' });
      const off = await f.api('PUT', `/projects/${p.id}`, { body: { issues_enabled: false } });
      expectStatus(off, 200);
      assert.equal('open_issues_count' in off.body, false);
      assert.equal('open_issues_count' in (await project(p.id)), false);
      // So are the links to the features that are off.
      assert.deepEqual(Object.keys(off.body._links), ['self', 'merge_requests', 'repo_branches', 'labels', 'events', 'members', 'cluster_agents']);
      const noMrs = await f.api('PUT', `/projects/${p.id}`, { body: { issues_enabled: true, merge_requests_enabled: false } });
      assert.deepEqual(Object.keys(noMrs.body._links), ['self', 'issues', 'repo_branches', 'labels', 'events', 'members', 'cluster_agents']);
      assert.equal(await count(p.id), 1);
    });

    it('a snapshot restore brings back the counts of the issues it restores, even from a snapshot holding none', async () => {
      const p = await createProject(f, f.rootToken, { name: 'snapped', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      await issue(p.id, { title: 'one' });
      await issue(p.id, { title: 'two' });
      expectStatus(await f.api('POST', '/forgelet/snapshots', { body: { name: 'counts-two' } }), 201);
      await issue(p.id, { title: 'three' });
      assert.equal(await count(p.id), 3);
      expectStatus(await f.api('POST', '/forgelet/snapshots/counts-two/restore'), 200);
      assert.equal(await count(p.id), 2);
      // A snapshot taken before the counter existed holds 0 for every project.
      await f.forge.deps.db.deleteFrom('project_counters').execute();
      expectStatus(await f.api('POST', '/forgelet/snapshots', { body: { name: 'counts-stale' } }), 201);
      expectStatus(await f.api('POST', '/forgelet/snapshots/counts-stale/restore'), 200);
      assert.equal(await count(p.id), 2);
    });

    it('seeded issues count, and seeded READMEs give readme_url', async () => {
      const r = await f.api('POST', '/forgelet/seed', {
        headers: { 'Content-Type': 'application/json' },
        raw: JSON.stringify({
          projects: [{
            path: 'seeded', namespace: 'counted', files: { 'README.md': '# Seeded\n' },
            issues: [{ title: 'open' }, { title: 'secret', confidential: true }, { title: 'done', state: 'closed' }, { title: 'also open' }],
          }],
        }),
      });
      expectStatus(r, 201);
      const seeded = await project(r.body.projects['counted/seeded']);
      assert.equal(seeded.open_issues_count, 2);
      assert.equal(seeded.readme_url, `${seeded.web_url}/-/blob/main/README.md`);
    });

    it('the migration computes the counts of projects that had issues before it', async () => {
      const p = await createProject(f, f.rootToken, { name: 'migrated', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      const one = await issue(p.id, { title: 'one' });
      await issue(p.id, { title: 'two' });
      await issue(p.id, { title: 'hidden', confidential: true });
      await edit(one, { state_event: 'close' });
      await f.forge.deps.db.deleteFrom('project_counters').execute(); // as before migration 027 filled it
      assert.equal(await count(p.id), 0);
      await backfillProjectCounters(f.forge.deps.db);
      assert.equal(await count(p.id), 1);
    });

    it('last_activity_at: moved by the project\'s events (issues, merge requests, comments, pushes, milestones), at most once an hour', async () => {
      const p = await createProject(f, f.rootToken, { name: 'busy', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      const activity = async () => (await project(p.id)).last_activity_at;
      const created = p.last_activity_at;
      const hour = 60 * 60 * 1000;
      const at = () => clock.now().toISOString();
      clock.advance(10 * 60 * 1000);
      const first = await issue(p.id, { title: 'within the hour' });
      assert.equal(await activity(), created, 'GitLab updates it at most once an hour');
      const steps: [string, () => Promise<unknown>][] = [
        ['issue opened', () => issue(p.id, { title: 'an hour later' })],
        ['issue closed', () => edit(first, { state_event: 'close' })],
        ['comment', () => f.api('POST', `/projects/${p.id}/issues/${first.iid}/notes`, { token: dev.token, body: { body: 'noted' } })],
        ['push', () => commitFiles(f, p.id, 'main', { 'a.txt': 'a\n' })],
        ['merge request opened', async () => {
          await commitFiles(f, p.id, 'topic', { 'b.txt': 'b\n' }, { startBranch: 'main' });
          clock.advance(hour);
          return f.api('POST', `/projects/${p.id}/merge_requests`, { token: dev.token, body: { source_branch: 'topic', target_branch: 'main', title: 'Topic' } });
        }],
        ['milestone', () => f.api('POST', `/projects/${p.id}/milestones`, { body: { title: 'v1' } })],
      ];
      for (const [what, step] of steps) {
        clock.advance(hour);
        await step();
        assert.equal(await activity(), at(), what);
      }
      // A title edit is not an event.
      clock.advance(hour);
      await edit(first, { title: 'renamed' });
      assert.notEqual(await activity(), at());
      const listed = await f.api('GET', `/groups/${group.id}/projects?order_by=last_activity_at&sort=desc&per_page=1`);
      assert.deepEqual(listed.body.map((x: any) => x.id), [p.id], 'the most recently active project first');
    });

    it('readme_url: the README of the default branch, in every project shape; null without one', async () => {
      const p = await createProject(f, f.rootToken, { name: 'docs', namespace_id: group.id });
      const blob = (branch: string, path: string) => `${p.web_url}/-/blob/${branch}/${path}`;
      const readme = async () => (await project(p.id)).readme_url;
      assert.equal(p.readme_url, null, 'an empty repository');
      await commitFiles(f, p.id, 'main', { 'src/app.ts': 'x\n', 'docs/README.md': 'nested\n', 'readme-first.md': 'not a readme\n' });
      assert.equal(await readme(), null, 'no README at the root');
      await commitFiles(f, p.id, 'other', { 'README.md': 'elsewhere\n' }, { startBranch: 'main' });
      assert.equal(await readme(), null, 'a README on another branch is not the project\'s');
      await commitFiles(f, p.id, 'main', { 'README.txt': 'plain\n' });
      assert.equal(await readme(), blob('main', 'README.txt'));
      // Markup wins over plain text though it sorts after it (GitLab's Tree#readme_path).
      await commitFiles(f, p.id, 'main', { 'readme.rst': 'markup\n' });
      assert.equal(await readme(), blob('main', 'readme.rst'));
      await commitFiles(f, p.id, 'main', { 'README.md': '# Docs\n' });
      assert.equal(await readme(), blob('main', 'README.md'), 'of two markup READMEs, the first in byte order');
      assert.equal((await inList(`/projects?search=docs`, p.id)).readme_url, blob('main', 'README.md'));
      assert.equal((await inList(`/projects?search=docs&simple=true`, p.id)).readme_url, blob('main', 'README.md'));
      assert.equal((await inList(`/groups/${group.id}/projects`, p.id)).readme_url, blob('main', 'README.md'));
      // The default branch moves: its README.
      expectStatus(await f.api('PUT', `/projects/${p.id}`, { body: { default_branch: 'other' } }), 200);
      assert.equal(await readme(), blob('other', 'README.md'));
      expectStatus(await f.api('PUT', `/projects/${p.id}`, { body: { default_branch: 'main' } }), 200);
      await commitFiles(f, p.id, 'main', { 'README.md': null, 'README.txt': null, 'readme.rst': null });
      assert.equal(await readme(), null, 'deleted');
      // Other entities that carry the project: the job token allowlist.
      await commitFiles(f, p.id, 'main', { 'index.md': '# Index\n' });
      const allow = await f.api('GET', `/projects/${p.id}/job_token_scope/allowlist`);
      expectStatus(allow, 200);
      assert.deepEqual(allow.body.map((x: any) => x.readme_url), [blob('main', 'index.md')]);
    });

    it('readme_url of a project created with initialize_with_readme', async () => {
      const p = await createProject(f, dev.token, { name: 'started', initialize_with_readme: true });
      assert.equal(p.readme_url, `${p.web_url}/-/blob/main/README.md`);
    });
  });

  describe(`${dialect}: an issue write and the read cache`, () => {
    let f: TestForgelet;
    let stopCluster: () => Promise<void> = async () => {};

    before(async () => {
      const own = await ownClusterUrl(dialect);
      stopCluster = own.stop;
      f = await startTestServer(dialect, { testMode: true, clock: fixedClock(NOW), ...(own.url ? { databaseUrl: own.url } : {}) });
    });
    after(async () => {
      await f.stop();
      await stopCluster();
    });

    it('leaves the project row in the read cache: only the counter is read again', async () => {
      const dev = await f.createUser('cachedev');
      const group = await createGroup(f, f.rootToken, { name: 'Cached', path: 'cached' });
      const count = async (id: number) => {
        const r = await f.api('GET', `/projects/${id}`);
        expectStatus(r, 200);
        return r.body.open_issues_count;
      };
      const issue = async (projectId: number, body: Record<string, unknown>) => expectStatus(await f.api('POST', `/projects/${projectId}/issues`, { token: dev.token, body }), 201);
      const p = await createProject(f, f.rootToken, { name: 'cached', namespace_id: group.id });
      await addMember(f, 'projects', p.id, dev.id, 30);
      await issue(p.id, { title: 'one' });
      assert.equal(await count(p.id), 1);
      await count(p.id); // everything it reads is cached now
      await issue(p.id, { title: 'two' });
      const { result: counted, queries: read } = await queriesDuring(f.forge.deps.db, () => count(p.id));
      assert.equal(counted, 2);
      assert.ok(read.some((q) => /from "project_counters"/.test(q)), read.join('\n'));
      assert.ok(!read.some((q) => /from "projects"/.test(q)), `the project row was read again:\n${read.join('\n')}`);
    });

    it('a page of projects read again afresh runs its list query alone, and each of its lookups follows the writes', async () => {
      const group = await createGroup(f, f.rootToken, { name: 'Paged', path: 'paged' });
      const ps = [];
      for (let i = 0; i < 3; i++) ps.push(await createProject(f, f.rootToken, { name: `paged-${i}`, namespace_id: group.id }));
      // Cache-Control: no-cache: past the response cache, to the read cache's lookups.
      const page = async () => {
        const r = await f.api('GET', `/groups/${group.id}/projects`, { headers: { 'Cache-Control': 'no-cache' } });
        expectStatus(r, 200);
        return new Map<number, any>(r.body.map((x: any) => [x.id, x]));
      };
      await page();
      const { queries } = await queriesDuring(f.forge.deps.db, page);
      // (On SQLite a statement run through Kysely's executor is counted twice: there and as prepared.)
      assert.deepEqual([...new Set(queries.filter((q) => !/^\s*(begin|commit|rollback)/i.test(q)).map((q) => /from "(\w+)"/.exec(q)?.[1]))], ['projects'], queries.join('\n'));
      // Each lookup of the page, changed under it: the next page shows the change.
      expectStatus(await f.api('POST', `/projects/${ps[0].id}/issues`, { body: { title: 'counted' } }), 201);
      assert.equal((await page()).get(ps[0].id).open_issues_count, 1, 'project_counters');
      await commitFiles(f, ps[1].id, 'main', { 'README.md': '# hi\n' });
      const afterPush = await page();
      assert.equal(afterPush.get(ps[1].id).readme_url, `${ps[1].web_url}/-/blob/main/README.md`, 'repository_files');
      assert.equal(afterPush.get(ps[1].id).empty_repo, false, 'repository_refs');
      expectStatus(await f.api('PUT', `/groups/${group.id}`, { body: { name: 'Paged Renamed' } }), 200);
      const renamed = await page();
      assert.equal(renamed.get(ps[2].id).namespace.name, 'Paged Renamed', 'namespaces');
      assert.equal(renamed.get(ps[2].id).name_with_namespace, 'Paged Renamed / paged-2');
    });
  });
}
