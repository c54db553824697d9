/**
 * Push pipelines: commits, files, branches, tags and merges written through the API run the
 * ref's `.gitlab-ci.yml` (source `push`), as GitLab's post-receive does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, allowDevelopersToMerge, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const CI = 'build:\n  script: make\n';

for (const dialect of DIALECTS) {
  describe(`${dialect}: push pipelines`, () => {
    let f: TestForgelet;
    let dev: User;
    let reporter: User;
    let project: any;

    const pipelines = async (projectId = project.id) => {
      const r = await f.api('GET', `/projects/${projectId}/pipelines?sort=asc`);
      expectStatus(r, 200);
      return r.body.map((p: any) => ({ ref: p.ref, source: p.source, status: p.status, sha: p.sha }));
    };
    const commit = (branch: string, actions: unknown[], message = 'Change', extra: Record<string, unknown> = {}) =>
      f.api('POST', `/projects/${project.id}/repository/commits`, { token: dev.token, body: { branch, commit_message: message, actions, ...extra } });

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2026-03-02T10:00:00.000Z') });
      [dev, reporter] = await createUsers(f, ['pushdev', 'pushrep']);
      project = await createProject(f, f.rootToken, { name: 'Pushed', path: 'pushed' });
      await addMember(f, 'projects', project.id, dev.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
    });
    after(() => f.stop());

    it('no CI file, no pipeline; committing one runs it on that branch, as the pusher', async () => {
      expectStatus(await commit('main', [{ action: 'create', file_path: 'README.md', content: 'hi' }]), 201);
      assert.deepEqual(await pipelines(), []);
      await allowDevelopersToMerge(f, project.id);
      expectStatus(await f.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'dev-*', push_access_level: 30 } }), 201);
      const r = await commit('dev-ci', [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }], 'Add CI', { start_branch: 'main' });
      expectStatus(r, 201);
      assert.deepEqual(await pipelines(), [{ ref: 'dev-ci', source: 'push', status: 'pending', sha: r.body.id }]);
      const one = (await f.api('GET', `/projects/${project.id}/pipelines?source=push`)).body[0];
      assert.equal(one.user?.username ?? (await f.api('GET', `/projects/${project.id}/pipelines/${one.id}`)).body.user.username, 'pushdev');
    });

    it('[skip ci] / [ci skip] in the message skips it; the files API pushes too', async () => {
      const before = (await pipelines()).length;
      expectStatus(await commit('dev-ci', [{ action: 'create', file_path: 'a.txt', content: 'a' }], 'Docs [skip ci]'), 201);
      expectStatus(await commit('dev-ci', [{ action: 'create', file_path: 'b.txt', content: 'b' }], 'Docs [CI SKIP]'), 201);
      assert.equal((await pipelines()).length, before);
      const put = await f.api('PUT', `/projects/${project.id}/repository/files/a.txt`, { token: dev.token, body: { branch: 'dev-ci', content: 'a2', commit_message: 'Edit a' } });
      expectStatus(put, 200);
      const all = await pipelines();
      assert.equal(all.length, before + 1);
      assert.deepEqual([all.at(-1).ref, all.at(-1).source], ['dev-ci', 'push']);
    });

    it('a new branch and a new tag run their pipelines; a merge runs the target\'s', async () => {
      const before = (await pipelines()).length;
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/branches`, { token: dev.token, body: { branch: 'feature', ref: 'dev-ci' } }), 201);
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { token: dev.token, body: { tag_name: 'v1.0.0', ref: 'dev-ci' } }), 201);
      const mr = await f.api('POST', `/projects/${project.id}/merge_requests`, { token: dev.token, body: { source_branch: 'feature', target_branch: 'main', title: 'CI' } });
      expectStatus(mr, 201);
      const merged = await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { token: dev.token });
      expectStatus(merged, 200);
      const added = (await pipelines()).slice(before);
      assert.deepEqual(
        added.map((p: any) => [p.ref, p.source]),
        [['feature', 'push'], ['v1.0.0', 'push'], ['main', 'push']],
      );
      assert.equal(added[2].sha, merged.body.merge_commit_sha);
      const tagPipeline = (await f.api('GET', `/projects/${project.id}/pipelines?ref=v1.0.0`)).body[0];
      assert.equal((await f.api('GET', `/projects/${project.id}/pipelines/${tagPipeline.id}`)).body.tag, true);
    });

    it("before_sha is the push's before: the branch's previous head, blank for a new branch or tag; API pipelines keep it blank", async () => {
      const BLANK = '0'.repeat(40);
      const full = async (ref: string) => {
        const last = (await f.api('GET', `/projects/${project.id}/pipelines?ref=${ref}&sort=desc`)).body[0];
        return (await f.api('GET', `/projects/${project.id}/pipelines/${last.id}`)).body;
      };
      const head = async (branch: string) => (await f.api('GET', `/projects/${project.id}/repository/branches/${branch}`)).body.commit.id;
      const previous = await head('dev-ci');
      const r = await commit('dev-ci', [{ action: 'create', file_path: 'before.txt', content: 'x' }], 'Before');
      expectStatus(r, 201);
      assert.deepEqual([(await full('dev-ci')).sha, (await full('dev-ci')).before_sha], [r.body.id, previous]);
      // The files API pushes the same way.
      const put = await f.api('PUT', `/projects/${project.id}/repository/files/before.txt`, { token: dev.token, body: { branch: 'dev-ci', content: 'y', commit_message: 'Again' } });
      expectStatus(put, 200);
      assert.equal((await full('dev-ci')).before_sha, r.body.id);
      // A branch made by a commit from another one is new: blank, as a tag.
      expectStatus(await commit('dev-new', [{ action: 'create', file_path: 'n.txt', content: 'n' }], 'New', { start_branch: 'dev-ci' }), 201);
      assert.equal((await full('dev-new')).before_sha, BLANK);
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { token: dev.token, body: { tag_name: 'v-before', ref: 'dev-ci' } }), 201);
      assert.equal((await full('v-before')).before_sha, BLANK);
      // A merge's before is the target's head it merged into.
      const target = await head('main');
      const mr = await f.api('POST', `/projects/${project.id}/merge_requests`, { token: dev.token, body: { source_branch: 'dev-new', target_branch: 'main', title: 'Before' } });
      expectStatus(mr, 201);
      expectStatus(await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { token: dev.token }), 200);
      assert.equal((await full('main')).before_sha, target);
      const api = await f.api('POST', `/projects/${project.id}/pipeline`, { token: dev.token, body: { ref: 'dev-ci' } });
      expectStatus(api, 201);
      assert.equal(api.body.before_sha, BLANK);
    });

    it('a broken CI file gives a failed push pipeline naming the error; the commit stands', async () => {
      const r = await commit('dev-ci', [{ action: 'update', file_path: '.gitlab-ci.yml', content: 'build:\n  script: [make\n' }], 'Break CI');
      expectStatus(r, 201);
      const last = (await f.api('GET', `/projects/${project.id}/pipelines?ref=dev-ci&sort=desc`)).body[0];
      assert.deepEqual([last.sha, last.status, last.source], [r.body.id, 'failed', 'push']);
      const full = (await f.api('GET', `/projects/${project.id}/pipelines/${last.id}`)).body;
      assert.match(full.yaml_errors, /\S/);
    });

    it('CI turned off for the project: pushes run nothing', async () => {
      const count = async () =>
        Number((await f.forge.database.db.selectFrom('ci_pipelines').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow()).n);
      const start = await count();
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { jobs_enabled: false } }), 200);
      expectStatus(await commit('dev-ci', [{ action: 'update', file_path: '.gitlab-ci.yml', content: CI }], 'Fix CI'), 201);
      assert.equal(await count(), start);
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { jobs_enabled: true } }), 200);
      expectStatus(await commit('dev-ci', [{ action: 'create', file_path: 'c.txt', content: 'c' }], 'More'), 201);
      assert.equal(await count(), start + 1);
    });
  });
}
