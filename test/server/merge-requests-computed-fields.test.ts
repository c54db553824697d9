/**
 * Merge request fields GitLab computes (issues 30, 22): task_completion_status (the issue's
 * computation), changes_count and diff_refs, head_pipeline and the metrics (pipeline,
 * latest_build_*), first_deployed_to_production_at, first_contribution.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { backfillMergeRequestMetrics } from '../../packages/core/src/storage/migrations/015-counters-metrics.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createRunner, finishJob, requestJob } from './ci-support.js';
import { addMember, allowDevelopersToMerge, createGroup, createProject, expectStatus } from './http.js';

const T0 = '2026-03-02T09:00:00.000Z';
const CI = 'build:\n  script: echo ok\n';
const CI_FIELDS = ['latest_build_started_at', 'latest_build_finished_at', 'first_deployed_to_production_at', 'pipeline', 'head_pipeline'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge request fields GitLab computes`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let dev: { id: number; username: string; token: string };
    let group: any;
    let app: any;
    let runner: { id: number; token: string };

    const get = async (mr: any, token?: string) => {
      const r = await f.api('GET', `/projects/${mr.project_id}/merge_requests/${mr.iid}`, { token });
      expectStatus(r, 200);
      return r.body;
    };
    const open = async (project: any, body: Record<string, unknown>) => {
      const r = await f.api('POST', `/projects/${project.id}/merge_requests`, { token: dev.token, body: { target_branch: 'main', title: 'Change', ...body } });
      expectStatus(r, 201);
      return r.body;
    };
    const merge = async (mr: any) => {
      const r = await f.api('PUT', `/projects/${mr.project_id}/merge_requests/${mr.iid}/merge`, { token: dev.token });
      expectStatus(r, 200);
      return r.body;
    };
    const branchHead = async (project: any, branch: string) => (await f.api('GET', `/projects/${project.id}/repository/branches/${branch}`)).body.commit.id;

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock });
      dev = await f.createUser('fieldsdev');
      group = await createGroup(f, f.rootToken, { name: 'Fields', path: 'fields' });
      app = await createProject(f, f.rootToken, { name: 'App', namespace_id: group.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await commitFiles(f, app.id, 'main', { 'README.md': '# App\n', 'old.txt': 'old\n', 'keep.txt': 'keep\n', '.gitlab-ci.yml': CI });
      await allowDevelopersToMerge(f, app.id);
      runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: app.id });
    });
    after(() => f.stop());

    it('task_completion_status: counted from the description as for an issue, in lists and the single merge request', async () => {
      const description = 'Steps:\n- [x] write it\n- [ ] test it\n* [X] ship it\n1. [ ] announce\n\n- not a task\n';
      await commitFiles(f, app.id, 'tasks', { 'tasks.txt': 'x\n' }, { startBranch: 'main' });
      const mr = await open(app, { source_branch: 'tasks', description });
      const issue = await f.api('POST', `/projects/${app.id}/issues`, { token: dev.token, body: { title: 'Same', description } });
      expectStatus(issue, 201);
      const expected = { count: 4, completed_count: 2 };
      assert.deepEqual(issue.body.task_completion_status, expected);
      assert.equal(issue.body.task_status, '2 of 4 checklist items completed', "the issue's task_status (GitLab's Entities::Issue)");
      const one = await f.api('POST', `/projects/${app.id}/issues`, { token: dev.token, body: { title: 'One task', description: '- [ ] only\n' } });
      const none = await f.api('POST', `/projects/${app.id}/issues`, { token: dev.token, body: { title: 'No tasks' } });
      assert.deepEqual([one.body.task_status, 'task_status' in none.body], ['0 of 1 checklist item completed', false]);
      assert.deepEqual(mr.task_completion_status, expected);
      assert.deepEqual((await get(mr)).task_completion_status, expected);
      const list = await f.api('GET', `/projects/${app.id}/merge_requests?source_branch=tasks`);
      assert.deepEqual(list.body.map((m: any) => m.task_completion_status), [expected]);
      const groupList = await f.api('GET', `/groups/${group.id}/merge_requests?source_branch=tasks`);
      assert.deepEqual(groupList.body.map((m: any) => m.task_completion_status), [expected]);
      const edited = await f.api('PUT', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { description: '- [x] all done\n' } });
      assert.deepEqual(edited.body.task_completion_status, { count: 1, completed_count: 1 });
    });

    it('changes_count and diff_refs: the files the diff changes, as a string; its start, base and head', async () => {
      const base = await branchHead(app, 'main');
      const head = await commitFiles(f, app.id, 'diffy', { 'new.txt': 'new\n', 'keep.txt': 'changed\n', 'old.txt': null }, { startBranch: 'main' });
      const mr = await open(app, { source_branch: 'diffy' });
      assert.equal(mr.changes_count, '3', 'added, modified and deleted');
      assert.deepEqual(mr.diff_refs, { base_sha: base, head_sha: head, start_sha: base });
      // The target moves on: the diff version stays (GitLab records one when the source head
      // moves, not the target); a file changed only on the target is not in the diff.
      await commitFiles(f, app.id, 'main', { 'README.md': '# App, moved\n' });
      const now = await get(mr);
      assert.deepEqual([now.changes_count, now.diff_refs], ['3', { base_sha: base, head_sha: head, start_sha: base }]);
      // Merged: the diff it was merged with.
      await f.forge.deps.queue.runDue();
      const merged = await merge(mr);
      assert.equal(merged.changes_count, '3');
      assert.deepEqual(merged.diff_refs, { base_sha: base, head_sha: head, start_sha: base });
      assert.deepEqual((await get(mr)).diff_refs, { base_sha: base, head_sha: head, start_sha: base });
      assert.equal((await get(mr)).changes_count, '3');
      // No commits ahead of the target: GitLab's empty diff has no count.
      await f.api('POST', `/projects/${app.id}/repository/branches`, { body: { branch: 'same', ref: 'main' } });
      const same = await open(app, { source_branch: 'same' });
      const mainHead = await branchHead(app, 'main');
      assert.equal(same.changes_count, null);
      assert.deepEqual(same.diff_refs, { base_sha: mainHead, head_sha: mainHead, start_sha: mainHead });
      // Lists carry neither.
      const list = await f.api('GET', `/projects/${app.id}/merge_requests?source_branch=diffy`);
      assert.equal('changes_count' in list.body[0], false);
      assert.equal('diff_refs' in list.body[0], false);
    });

    it('changes_count beyond GitLab\'s 1,000-file limit reads "1000+"', async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 1001; i++) files[`many/f${i}.txt`] = `${i}\n`;
      await commitFiles(f, app.id, 'many', files, { startBranch: 'main' });
      const mr = await open(app, { source_branch: 'many' });
      assert.equal(mr.changes_count, '1000+');
      await commitFiles(f, app.id, 'many', { 'many/f0.txt': null });
      assert.equal((await get(mr)).changes_count, '1000');
    });

    it('head_pipeline: the newest pipeline of the source branch at the head; pipeline and latest_build_* once it runs and succeeds', async () => {
      await commitFiles(f, app.id, 'ci', { 'ci.txt': 'one\n' }, { startBranch: 'main' });
      const mr = await open(app, { source_branch: 'ci' });
      assert.deepEqual(CI_FIELDS.map((k) => mr[k]), [null, null, null, null, null]);
      // A pipeline on another branch at another commit is not the head pipeline.
      expectStatus(await f.api('POST', `/projects/${app.id}/pipeline`, { body: { ref: 'main' } }), 201);
      assert.equal((await get(mr)).head_pipeline, null);
      for (let job = await requestJob(f, runner.token); job; job = await requestJob(f, runner.token)) await finishJob(f, job, 'success');
      const created = await f.api('POST', `/projects/${app.id}/pipeline`, { token: dev.token, body: { ref: 'ci' } });
      expectStatus(created, 201);
      const pending = await get(mr);
      assert.equal(pending.head_pipeline.id, created.body.id);
      assert.deepEqual(Object.keys(pending.head_pipeline), [
        'id', 'iid', 'project_id', 'sha', 'ref', 'status', 'source', 'created_at', 'updated_at', 'web_url', 'before_sha', 'tag', 'yaml_errors',
        'user', 'started_at', 'finished_at', 'committed_at', 'duration', 'queued_duration', 'coverage', 'detailed_status', 'warnings',
      ]);
      assert.equal(pending.head_pipeline.sha, mr.sha);
      assert.equal(pending.head_pipeline.detailed_status.group, pending.head_pipeline.status);
      assert.deepEqual([pending.pipeline, pending.latest_build_started_at, pending.latest_build_finished_at], [null, null, null], 'not started yet');

      clock.advance(5000);
      const job = await requestJob(f, runner.token);
      assert.ok(job);
      const running = await get(mr);
      const startedAt = clock.now().toISOString();
      assert.equal(running.head_pipeline.status, 'running');
      assert.deepEqual(running.pipeline, {
        id: created.body.id, iid: created.body.iid, project_id: app.id, sha: mr.sha, ref: 'ci', status: 'running', source: 'api',
        created_at: created.body.created_at, updated_at: running.head_pipeline.updated_at, web_url: created.body.web_url,
      });
      assert.deepEqual([running.latest_build_started_at, running.latest_build_finished_at], [startedAt, null]);
      clock.advance(7000);
      await finishJob(f, job, 'success');
      const done = await get(mr);
      assert.deepEqual([done.pipeline.status, done.head_pipeline.status], ['success', 'success']);
      assert.deepEqual([done.latest_build_started_at, done.latest_build_finished_at], [startedAt, clock.now().toISOString()]);

      // A new commit: no pipeline at the new head yet; the metrics keep the last one that ran (GitLab's).
      await commitFiles(f, app.id, 'ci', { 'ci.txt': 'two\n' });
      const moved = await get(mr);
      assert.equal(moved.head_pipeline, null);
      assert.equal(moved.pipeline.id, created.body.id);
      // A failing head pipeline: recorded when it starts, its failure leaves the start without a finish.
      const second = await f.api('POST', `/projects/${app.id}/pipeline`, { token: dev.token, body: { ref: 'ci' } });
      clock.advance(1000);
      const failing = await requestJob(f, runner.token);
      clock.advance(1000);
      await finishJob(f, failing, 'failed');
      const failed = await get(mr);
      assert.deepEqual([failed.head_pipeline.id, failed.head_pipeline.status, failed.pipeline.id, failed.pipeline.status], [second.body.id, 'failed', second.body.id, 'failed']);
      assert.equal(failed.latest_build_finished_at, null);

      // The migration sets them for merge requests that had pipelines before it.
      await f.forge.deps.db.updateTable('merge_requests').set({ metrics_pipeline_id: null, latest_build_started_at: null, latest_build_finished_at: null }).execute();
      await backfillMergeRequestMetrics(f.forge.deps.db);
      const backfilled = await get(mr);
      assert.deepEqual([backfilled.pipeline.id, backfilled.latest_build_started_at], [second.body.id, failed.head_pipeline.started_at]);

      // Lists have none of them; with CI/CD off the single one has none either.
      const list = await f.api('GET', `/projects/${app.id}/merge_requests?source_branch=ci`);
      assert.deepEqual(CI_FIELDS.filter((k) => k in list.body[0]), []);
      expectStatus(await f.api('PUT', `/projects/${app.id}`, { body: { jobs_enabled: false } }), 200);
      const off = await get(mr);
      assert.deepEqual(CI_FIELDS.filter((k) => k in off), []);
      expectStatus(await f.api('PUT', `/projects/${app.id}`, { body: { jobs_enabled: true } }), 200);
    });

    it('first_deployed_to_production_at: the first successful production deployment that shipped it, once', async () => {
      await commitFiles(f, app.id, 'shipme', { 'ship.txt': 'ship\n' }, { startBranch: 'main' });
      const mr = await merge(await open(app, { source_branch: 'shipme' }));
      const deploy = async (environment: string, status: string) => {
        const r = await f.api('POST', `/projects/${app.id}/deployments`, { token: dev.token, body: { environment, ref: 'main', sha: mr.merge_commit_sha, tag: false, status } });
        expectStatus(r, 201);
        return r.body;
      };
      clock.advance(60_000);
      await deploy('staging', 'success');
      await deploy('production', 'failed');
      assert.equal((await get(mr)).first_deployed_to_production_at, null, 'staging, and a failed production deployment, do not count');
      clock.advance(60_000);
      const first = clock.now().toISOString();
      await deploy('production', 'success');
      assert.equal((await get(mr)).first_deployed_to_production_at, first);
      clock.advance(60_000);
      await deploy('production', 'success');
      await deploy('prod-eu', 'success');
      assert.equal((await get(mr)).first_deployed_to_production_at, first, 'set once');
      await f.forge.deps.db.updateTable('merge_requests').set({ first_deployed_to_production_at: null }).execute();
      await backfillMergeRequestMetrics(f.forge.deps.db);
      assert.equal((await get(mr)).first_deployed_to_production_at, first, 'the migration finds it from the deployments');
    });

    it('subscribed: the caller takes part (author, assignee, reviewer, mentioned, commenter), for issues and merge requests', async () => {
      const names = ['subauthor', 'subassignee', 'subreviewer', 'submentioned', 'subcommenter', 'subnotemention', 'subbystander'];
      const users: Record<string, { id: number; username: string; token: string }> = {};
      for (const name of names) {
        users[name] = await f.createUser(name);
        await addMember(f, 'projects', app.id, users[name]!.id, 30);
      }
      const description = 'Ping @SubMentioned, not @submentioned_not nor @subbystander.x';
      const issue = await f.api('POST', `/projects/${app.id}/issues`, { token: users.subauthor!.token, body: { title: 'Subscribed?', description, assignee_ids: [users.subassignee!.id] } });
      expectStatus(issue, 201);
      await commitFiles(f, app.id, 'subscribed', { 's.txt': 's\n' }, { startBranch: 'main' });
      const mrBody = { source_branch: 'subscribed', target_branch: 'main', title: 'Subscribed?', description, assignee_ids: [users.subassignee!.id], reviewer_ids: [users.subreviewer!.id] };
      const mr = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: users.subauthor!.token, body: mrBody });
      expectStatus(mr, 201);
      for (const [segment, iid] of [['issues', issue.body.iid], ['merge_requests', mr.body.iid]] as const) {
        expectStatus(await f.api('POST', `/projects/${app.id}/${segment}/${iid}/notes`, { token: users.subcommenter!.token, body: { body: 'Looks good' } }), 201);
        expectStatus(await f.api('POST', `/projects/${app.id}/${segment}/${iid}/notes`, { body: { body: 'cc @subnotemention' } }), 201);
      }
      const subscribed = async (segment: string, iid: number) => {
        const out: string[] = [];
        for (const name of names) {
          const r = await f.api('GET', `/projects/${app.id}/${segment}/${iid}`, { token: users[name]!.token });
          expectStatus(r, 200);
          if (r.body.subscribed) out.push(name);
        }
        return out;
      };
      assert.deepEqual(await subscribed('issues', issue.body.iid), ['subauthor', 'subassignee', 'submentioned', 'subcommenter', 'subnotemention']);
      assert.deepEqual(await subscribed('merge_requests', mr.body.iid), ['subauthor', 'subassignee', 'subreviewer', 'submentioned', 'subcommenter', 'subnotemention']);
      const listed = await f.api('GET', `/projects/${app.id}/issues?iids[]=${issue.body.iid}`, { token: users.subcommenter!.token });
      assert.deepEqual(listed.body.map((i: any) => i.subscribed), [true]);
      assert.equal((await f.api('GET', `/projects/${app.id}/issues/${issue.body.iid}`)).body.subscribed, true, 'root wrote a note');
    });

    it('first_contribution (GET only): the author has no merged merge request in the project; a merged one, none merged before it', async () => {
      const newcomer = await f.createUser('newcomer');
      await addMember(f, 'projects', app.id, newcomer.id, 30);
      const mine = async (branch: string) => {
        await commitFiles(f, app.id, branch, { [`${branch}.txt`]: 'x\n' }, { startBranch: 'main' });
        const r = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: newcomer.token, body: { source_branch: branch, target_branch: 'main', title: branch } });
        expectStatus(r, 201);
        assert.equal('first_contribution' in r.body, false, 'not in the create response');
        return r.body;
      };
      const a = await mine('first-a');
      const b = await mine('first-b');
      assert.deepEqual([(await get(a)).first_contribution, (await get(b)).first_contribution], [true, true]);
      clock.advance(1000);
      await merge(a);
      assert.deepEqual([(await get(a)).first_contribution, (await get(b)).first_contribution], [true, false]);
      clock.advance(1000);
      await merge(b);
      assert.deepEqual([(await get(a)).first_contribution, (await get(b)).first_contribution], [true, false]);
    });
  });
}
