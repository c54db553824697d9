/**
 * Merge requests and the repository: `sha` follows the source branch (null while it does not
 * exist) and merging records a merge commit on the target with the source's changes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, allowDevelopersToMerge, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2026-04-07T11:00:00.000Z';
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge requests on the repository`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: User;
    let app: any;

    const openMr = async (body: Record<string, unknown>) => {
      const r = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: dev.token, body: { target_branch: 'main', title: 'Change', ...body } });
      expectStatus(r, 201);
      return r.body;
    };
    /** The merge request once its mergeability check ran (the server's own worker may be the one running it). */
    const settled = async (mr: any) => {
      for (let i = 0; ; i++) {
        await f.forge.deps.queue.runDue();
        const body = (await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body;
        if (body.merge_status !== 'checking' || i === 50) return body;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const merge = (mr: any, body: Record<string, unknown> = {}) => f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}/merge`, { token: dev.token, body });
    const raw = async (path: string, ref = 'main') => {
      const r = await f.api('GET', `/projects/${app.id}/repository/files/${encodeURIComponent(path)}/raw?ref=${ref}`);
      return r.status === 200 ? r.text : r.status;
    };

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      [dev] = await createUsers(f, ['mgdev']);
      const team = await createGroup(f, f.rootToken, { name: 'Team', path: 'team' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: team.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await commitFiles(f, app.id, 'main', { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'shared.txt': 'base\n' }, { message: 'Base' });
      await allowDevelopersToMerge(f, app.id);
    });
    after(() => f.stop());

    it('sha is null until the source branch exists, then its head', async () => {
      const mr = await openMr({ source_branch: 'later' });
      assert.deepEqual([mr.sha, mr.diff_refs.head_sha], [null, null]);
      assert.deepEqual((await merge(mr)).body, { message: 'Branch cannot be merged' });
      const branch = await f.api('POST', `/projects/${app.id}/repository/branches`, { token: dev.token, body: { branch: 'later', ref: 'main' } });
      expectStatus(branch, 201);
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body.sha, branch.body.commit.id);
      const noTarget = await openMr({ source_branch: 'later', target_branch: 'stable' });
      assert.deepEqual([(await merge(noTarget)).status, (await merge(noTarget)).body], [422, { message: 'Branch cannot be merged' }]);
    });

    it('merge: a real merge commit (git merge-tree) brings the source\'s changes onto a target that moved on', async () => {
      clock.advance(1000);
      const f1 = await commitFiles(f, app.id, 'feature', { 'b.txt': 'b2\n', 'c.txt': null, 'new.txt': 'new\n', 'shared.txt': 'source\n' }, { startBranch: 'main', message: 'Feature work' });
      clock.advance(1000);
      const m1 = await commitFiles(f, app.id, 'main', { 'a.txt': 'a2\n', 'main-only.txt': 'm\n' }, { message: 'Main work' });
      const mr = await openMr({ source_branch: 'feature', title: 'Feature', description: 'Does things' });
      assert.equal(mr.sha, f1);
      clock.advance(1000);
      const r = await merge(mr, { sha: f1 });
      expectStatus(r, 200);
      assert.deepEqual([r.body.state, r.body.squash_commit_sha], ['merged', null]);
      const head = (await f.api('GET', `/projects/${app.id}/repository/commits/main`)).body;
      assert.equal(head.id, r.body.merge_commit_sha);
      assert.deepEqual(head.parent_ids, [m1, f1]);
      assert.equal(head.message, `Merge branch 'feature' into 'main'\n\nFeature\n\nDoes things\n\nSee merge request team/app!${mr.iid}`);
      assert.deepEqual(
        await Promise.all(['a.txt', 'b.txt', 'c.txt', 'new.txt', 'main-only.txt', 'shared.txt'].map((p) => raw(p))),
        ['a2\n', 'b2\n', 404, 'new\n', 'm\n', 'source\n'],
      );
      const b = await f.api('GET', `/projects/${app.id}/repository/files/b.txt?ref=main`);
      assert.equal(b.body.last_commit_id, f1, 'a merged file keeps the commit that changed it');
      assert.deepEqual(head.stats, { additions: 3, deletions: 3, total: 6 });
      const titles = async (q: string) => (await f.api('GET', `/projects/${app.id}/repository/commits?${q}`)).body.map((c: any) => c.title);
      assert.deepEqual(await titles('ref_name=main'), [head.title, 'Main work', 'Feature work', 'Base']);
      assert.deepEqual(await titles('ref_name=main&first_parent=true'), [head.title, 'Main work', 'Base']);
      const feature = await f.api('GET', `/projects/${app.id}/repository/branches/feature`);
      assert.deepEqual([feature.status, feature.body.merged], [200, true], 'kept: removal was not asked for');
    });

    it('conflicts: both branches change a line; the check finds them (cannot_be_merged, conflict) and merging is 422 (GitLab\'s mergeable? git checks)', async () => {
      clock.advance(1000);
      await commitFiles(f, app.id, 'clash', { 'a.txt': 'clash\n' }, { startBranch: 'main', message: 'Clash' });
      await commitFiles(f, app.id, 'main', { 'a.txt': 'a3\n' }, { message: 'Main again' });
      const mr = await openMr({ source_branch: 'clash', title: 'Clash' });
      assert.deepEqual([mr.merge_status, mr.detailed_merge_status, mr.has_conflicts], ['checking', 'checking', false]);
      const checked = await settled(mr);
      assert.deepEqual([checked.merge_status, checked.detailed_merge_status, checked.has_conflicts], ['cannot_be_merged', 'conflict', true]);
      assert.deepEqual([(await merge(mr)).status, (await merge(mr)).body], [422, { message: 'Branch cannot be merged' }]);
      // The source resolves it: a new head is unchecked again, then mergeable.
      await commitFiles(f, app.id, 'clash', { 'a.txt': 'a3\n' }, { message: 'Resolve' });
      const again = (await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body;
      assert.deepEqual([again.merge_status, again.detailed_merge_status, again.has_conflicts], ['checking', 'checking', false]);
      const resolved = await settled(mr);
      assert.deepEqual([resolved.merge_status, resolved.detailed_merge_status], ['can_be_merged', 'mergeable']);
      expectStatus(await merge(mr), 200);
    });

    it('versions: a new target and reopening record one (reopening takes the head the branch moved to while closed)', async () => {
      clock.advance(1000);
      const v1 = await commitFiles(f, app.id, 'vtopic', { 'v.txt': 'one\n' }, { startBranch: 'main', message: 'V one' });
      const otherHead = await commitFiles(f, app.id, 'vother', { 'o.txt': 'other\n' }, { startBranch: 'main', message: 'Other' });
      const other = { body: { commit: { id: otherHead } } };
      const mr = await openMr({ source_branch: 'vtopic', title: 'Versions' });
      const versions = async () => (await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}/versions`)).body.map((v: any) => [v.head_commit_sha, v.start_commit_sha]);
      const main = (await f.api('GET', `/projects/${app.id}/repository/branches/main`)).body.commit.id;
      assert.deepEqual(await versions(), [[v1, main]]);
      expectStatus(await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { target_branch: 'vother' } }), 200);
      assert.deepEqual(await versions(), [[v1, other.body.commit.id], [v1, main]]);
      expectStatus(await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { state_event: 'close' } }), 200);
      const v2 = await commitFiles(f, app.id, 'vtopic', { 'v.txt': 'two\n' }, { message: 'V two' });
      assert.equal((await versions()).length, 2, 'a closed merge request records no version');
      const reopened = await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { state_event: 'reopen' } });
      assert.deepEqual([reopened.body.sha, reopened.body.diff_refs.head_sha, reopened.body.merge_status], [v2, v2, 'checking']);
      assert.deepEqual((await versions())[0], [v2, other.body.commit.id]);
      const bad = await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}/versions/abc`);
      assert.deepEqual([bad.status, bad.body], [400, { error: 'version_id is invalid' }]);
    });

    it('squash and remove_source_branch: a squash commit as second parent; the source branch goes unless protected', async () => {
      clock.advance(1000);
      const s1 = await commitFiles(f, app.id, 'topic', { 'topic.txt': 'one\n' }, { startBranch: 'main', message: 'Topic 1' });
      await commitFiles(f, app.id, 'topic', { 'topic.txt': 'two\n' }, { message: 'Topic 2' });
      const mr = await openMr({ source_branch: 'topic', title: 'Topic', remove_source_branch: true, squash: true });
      const r = await merge(mr, { squash_commit_message: 'Topic, squashed' });
      expectStatus(r, 200);
      const head = (await f.api('GET', `/projects/${app.id}/repository/commits/main`)).body;
      const squash = (await f.api('GET', `/projects/${app.id}/repository/commits/${r.body.squash_commit_sha}`)).body;
      assert.deepEqual([head.parent_ids[1], squash.title], [r.body.squash_commit_sha, 'Topic, squashed']);
      assert.notEqual(squash.id, s1);
      assert.equal(await raw('topic.txt'), 'two\n');
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/topic`)).status, 404);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/files/topic.txt?ref=main`)).body.last_commit_id, r.body.squash_commit_sha);

      const now = clock.now().toISOString();
      const db = f.forge.database.db;
      const rule = await db.insertInto('protected_branches').values({ project_id: app.id, name: 'keep-*', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      await db.insertInto('protected_branch_access_levels').values({ protected_branch_id: rule.id, action: 'push', access_level: 40, user_id: null, group_id: null }).execute();
      await commitFiles(f, app.id, 'keep-me', { 'keep.txt': 'k\n' }, { startBranch: 'main' });
      const kept = await openMr({ source_branch: 'keep-me', title: 'Keep' });
      expectStatus(await merge(kept, { should_remove_source_branch: true }), 200);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/keep-me`)).status, 200, 'a protected source branch stays');
    });

    it('the target branch\'s protection decides who merges: Developers get 401 where only Maintainers may merge or push', async () => {
      const base = `/projects/${app.id}/protected_branches`;
      expectStatus(await f.api('POST', base, { body: { name: 'release', push_access_level: 40, merge_access_level: 40 } }), 201);
      await commitFiles(f, app.id, 'release', { 'r.txt': 'r\n' }, { startBranch: 'main' });
      await commitFiles(f, app.id, 'fix', { 'fix.txt': 'f\n' }, { startBranch: 'release' });
      const mr = await openMr({ source_branch: 'fix', target_branch: 'release', title: 'Fix' });
      const denied = await merge(mr);
      assert.deepEqual([denied.status, denied.body], [401, { message: '401 Unauthorized' }]);
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body.state, 'opened', 'nothing was written');
      // Developers allowed to push (not merge) may merge too, as GitLab's can_update_branch?
      expectStatus(await f.api('DELETE', `${base}/release`), 204);
      expectStatus(await f.api('POST', base, { body: { name: 'release', push_access_level: 30, merge_access_level: 40 } }), 201);
      expectStatus(await merge(mr), 200);
    });
  });
}
