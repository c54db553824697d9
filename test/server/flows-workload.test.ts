/**
 * Agent flows and their CI workload: `retry` starts a fresh workload (pipeline, job, token) when
 * the flow has no live one, and never a second one while it has; a workload job that fails, is
 * canceled or ends without the executor ending the flow fails the flow (token revoked,
 * `flow.failed` delivered to its callback), as GitLab's workload-finished worker does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { createProject, createUsers, expectStatus } from './http.js';
import { createRunner, finishJob, requestJob } from './ci-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2025-03-01T10:00:00.000Z';

/** A loopback receiver that records every event body. */
async function receiver(): Promise<{ url: string; events: () => any[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => {
      bodies.push(body);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    events: () => bodies.map((b) => JSON.parse(b)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const vars = (job: any): Record<string, string> => Object.fromEntries(job.variables.map((v: any) => [v.key, v.value]));

for (const dialect of DIALECTS) {
  describe(`${dialect}: agent flows and their workload`, () => {
    let f: TestForgelet;
    let dev: User;
    let recv: Awaited<ReturnType<typeof receiver>>;
    let hook: number;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW), workers: false });
      [dev] = await createUsers(f, ['wdev']);
      recv = await receiver();
      const r = await f.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: recv.url, name: 'workloads' } });
      expectStatus(r, 201);
      hook = r.body.id;
    });
    after(async () => {
      await f.stop();
      await recv.close();
    });

    /** A project of its own with a runner, so no test takes another's job. */
    async function setup(name: string): Promise<{ project: any; runner: { id: number; token: string } }> {
      const project = await createProject(f, dev.token, { name, visibility: 'private' });
      await commitFiles(f, project.id, 'main', { 'README.md': 'hi' });
      const runner = await createRunner(f, dev.token, { runner_type: 'project_type', project_id: project.id });
      return { project, runner };
    }
    async function startFlow(project: any, extra: Record<string, unknown> = {}): Promise<any> {
      const r = await f.api('POST', '/ai/agent_workflows/workflows', {
        token: dev.token,
        body: { project_id: String(project.id), goal: 'Do it', start_workflow: true, callback_hook_id: hook, ...extra },
      });
      expectStatus(r, 201);
      assert.equal(r.body.status, 'running');
      return r.body;
    }
    const get = (id: number, token: string = dev.token) => f.api('GET', `/ai/agent_workflows/workflows/${id}`, { token });
    const move = (id: number, event: string, token: string = dev.token) => f.api('PATCH', `/ai/agent_workflows/workflows/${id}`, { token, body: { status_event: event } });
    const flowPipelines = async (project: any) => {
      const r = await f.api('GET', `/projects/${project.id}/pipelines?source=duo_workflow&per_page=100`, { token: dev.token });
      expectStatus(r, 200);
      return r.body as any[];
    };
    /** Runs the queue; returns the events delivered meanwhile for `flowId`. */
    async function delivered(flowId: number): Promise<[string, string, string][]> {
      const before = recv.events().length;
      await f.forge.deps.queue.runDue();
      return recv.events().slice(before).filter((e) => e.data.id === flowId).map((e) => [e.type, e.data.status, e.data.summary]);
    }

    it('a job failed through the runner API fails the flow, revokes its token and delivers flow.failed; retry starts a fresh workload', async () => {
      const { project, runner } = await setup('wl-failed');
      const flow = await startFlow(project);
      assert.deepEqual(await delivered(flow.id), [['flow.started', 'running', '']]);
      const job1 = await requestJob(f, runner.token);
      assert.equal(String(job1.id), flow.workload.id);
      const token1 = vars(job1).GITLAB_OAUTH_TOKEN!;
      expectStatus(await get(flow.id, token1), 200);

      await finishJob(f, job1, 'failed', { failure_reason: 'script_failure' });
      const failed = await get(flow.id);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.summary, 'Error during Session: script_failure');
      assert.equal((await get(flow.id, token1)).status, 401);
      const events = recv.events().length;
      assert.deepEqual(await delivered(flow.id), [['flow.failed', 'failed', 'Error during Session: script_failure']]);
      const event = recv.events()[events]!;
      assert.equal(event.event, 'flow.failed');
      assert.equal(event.timestamp, NOW);
      assert.equal(event.data.instance_url, f.url);
      assert.equal(event.data.workload, undefined);

      // retry: a new pipeline and pending job with a new token; the old token stays refused.
      const retried = await move(flow.id, 'retry');
      expectStatus(retried, 200);
      assert.equal(retried.body.status, 'running');
      assert.equal(retried.body.workload.message, 'Workload started');
      assert.match(retried.body.workload.id, /^\d+$/);
      assert.notEqual(retried.body.workload.id, flow.workload.id);
      const pipelines = await flowPipelines(project);
      assert.equal(pipelines.length, 2);
      assert.deepEqual(pipelines.map((p) => p.status), ['pending', 'failed']);
      const job2 = await requestJob(f, runner.token);
      assert.ok(job2, 'the runner takes the new job');
      assert.equal(String(job2.id), retried.body.workload.id);
      const v2 = vars(job2);
      assert.equal(v2.DUO_WORKFLOW_WORKFLOW_ID, String(flow.id));
      assert.equal(v2.DUO_WORKFLOW_GOAL, 'Do it');
      const token2 = v2.GITLAB_OAUTH_TOKEN!;
      assert.match(token2, /^glpat-/);
      assert.notEqual(token2, token1);
      expectStatus(await get(flow.id, token2), 200);
      assert.equal((await get(flow.id, token1)).status, 401);
      assert.deepEqual(await delivered(flow.id), []); // retry emits no lifecycle event

      // A retry while that job runs creates nothing; the running executor's token keeps working.
      const again = await move(flow.id, 'retry', token2);
      expectStatus(again, 200);
      assert.deepEqual([again.body.status, again.body.workload], ['running', { id: String(job2.id), message: 'Workload already running' }]);
      assert.equal((await flowPipelines(project)).length, 2);
      assert.equal(await requestJob(f, runner.token), null);
      expectStatus(await get(flow.id, token2), 200);

      // The executor ends the flow, then its job: the flow stays finished, no further event.
      expectStatus(await move(flow.id, 'finish', token2), 200);
      await finishJob(f, job2, 'success');
      const done = await get(flow.id);
      assert.deepEqual([done.body.status, done.body.summary], ['finished', 'Error during Session: script_failure']);
      assert.deepEqual(await delivered(flow.id), [['flow.completed', 'finished', 'Error during Session: script_failure']]);
      // A finished flow is not retried.
      assert.equal((await move(flow.id, 'retry')).status, 400);
      assert.equal((await flowPipelines(project)).length, 2);
    });

    it('a retry while the workload job is pending creates nothing new', async () => {
      const { project, runner } = await setup('wl-pending');
      const flow = await startFlow(project);
      const r = await move(flow.id, 'retry');
      expectStatus(r, 200);
      assert.deepEqual([r.body.status, r.body.workload], ['running', { id: flow.workload.id, message: 'Workload already running' }]);
      const pipelines = await flowPipelines(project);
      assert.equal(pipelines.length, 1);
      const jobs = await f.api('GET', `/projects/${project.id}/pipelines/${pipelines[0].id}/jobs`, { token: dev.token });
      assert.deepEqual(jobs.body.map((j: any) => [j.id, j.status]), [[Number(flow.workload.id), 'pending']]);
      // The workload's credentials reach its job only: its pipeline lists no variables, to its
      // starter (who may read their own pipeline's variables) or to an admin.
      for (const token of [dev.token, f.rootToken]) {
        const listed = await f.api('GET', `/projects/${project.id}/pipelines/${pipelines[0].id}/variables`, { token });
        assert.deepEqual([listed.status, listed.body], [200, []]);
      }
      const job = await requestJob(f, runner.token);
      assert.equal(String(job.id), flow.workload.id);
      assert.equal(await requestJob(f, runner.token), null);
      // Its token is the flow's own still.
      expectStatus(await get(flow.id, vars(job).GITLAB_OAUTH_TOKEN!), 200);
      await finishJob(f, job, 'failed');
      const failed = await get(flow.id);
      // Without a failure reason from the runner the job's is unknown_failure.
      assert.deepEqual([failed.body.status, failed.body.summary], ['failed', 'Error during Session: unknown_failure']);
    });

    it('a workload job canceled through the jobs API fails the flow, paused or running, and delivers flow.failed', async () => {
      const { project, runner } = await setup('wl-canceled');
      // Pending job, running flow.
      const a = await startFlow(project);
      await delivered(a.id);
      const cancel = await f.api('POST', `/projects/${project.id}/jobs/${a.workload.id}/cancel`, { token: dev.token });
      expectStatus(cancel, 201);
      assert.equal(cancel.body.status, 'canceled');
      const af = await get(a.id);
      assert.deepEqual([af.body.status, af.body.summary], ['failed', '']);
      assert.deepEqual(await delivered(a.id), [['flow.failed', 'failed', '']]);
      assert.equal(await requestJob(f, runner.token), null);

      // Running job, flow waiting on a person.
      const b = await startFlow(project);
      await delivered(b.id);
      const job = await requestJob(f, runner.token);
      const token = vars(job).GITLAB_OAUTH_TOKEN!;
      expectStatus(await move(b.id, 'require_input', token), 200);
      expectStatus(await f.api('POST', `/projects/${project.id}/jobs/${job.id}/cancel`, { token: dev.token }), 201);
      assert.equal((await get(b.id)).body.status, 'failed');
      assert.equal((await get(b.id, token)).status, 401);
      assert.deepEqual(await delivered(b.id), [['flow.failed', 'failed', '']]);
      // The runner learns its job is over.
      const update = await f.api('PUT', `/jobs/${job.id}`, { token: null, body: { token: job.token, state: 'success' } });
      assert.equal(update.status, 403);
      assert.equal(update.headers.get('job-status'), 'canceled');

      // Canceling the whole pipeline does the same.
      const c = await startFlow(project);
      const pipeline = (await flowPipelines(project)).find((p) => p.status === 'pending');
      expectStatus(await f.api('POST', `/projects/${project.id}/pipelines/${pipeline.id}/cancel`, { token: dev.token }), 200);
      assert.equal((await get(c.id)).body.status, 'failed');
      assert.deepEqual((await delivered(c.id)).map((e) => e[0]), ['flow.started', 'flow.failed']);
    });

    it('a job that succeeds without the executor ending the flow fails a running flow, not one waiting on a person', async () => {
      const { project, runner } = await setup('wl-success');
      const a = await startFlow(project);
      await delivered(a.id);
      const jobA = await requestJob(f, runner.token);
      await finishJob(f, jobA, 'success');
      const af = await get(a.id);
      assert.deepEqual([af.body.status, af.body.summary], ['failed', 'Session did not report a final status before its pipeline finished']);
      assert.deepEqual(await delivered(a.id), [['flow.failed', 'failed', 'Session did not report a final status before its pipeline finished']]);

      const b = await startFlow(project);
      await delivered(b.id);
      const jobB = await requestJob(f, runner.token);
      expectStatus(await move(b.id, 'pause', vars(jobB).GITLAB_OAUTH_TOKEN!), 200);
      await finishJob(f, jobB, 'success');
      assert.equal((await get(b.id)).body.status, 'paused');
      assert.deepEqual(await delivered(b.id), []);
      // Resumed, it has no live workload: a retry is what starts one (resume does not).
      expectStatus(await move(b.id, 'resume'), 200);
      const r = await move(b.id, 'retry');
      assert.equal(r.body.workload.message, 'Workload started');
      assert.ok(await requestJob(f, runner.token));
    });

    it('retry of a stopped flow whose job still runs cancels that job and starts a fresh one', async () => {
      const { project, runner } = await setup('wl-stopped');
      const flow = await startFlow(project);
      const job1 = await requestJob(f, runner.token);
      const token1 = vars(job1).GITLAB_OAUTH_TOKEN!;
      expectStatus(await move(flow.id, 'stop', token1), 200);
      assert.equal((await get(flow.id, token1)).status, 401);
      const r = await move(flow.id, 'retry');
      expectStatus(r, 200);
      assert.equal(r.body.status, 'running');
      assert.equal(r.body.workload.message, 'Workload started');
      const old = await f.api('GET', `/projects/${project.id}/jobs/${job1.id}`, { token: dev.token });
      assert.equal(old.body.status, 'canceled');
      // The stopped flow's old job being canceled did not fail the retried flow.
      assert.equal((await get(flow.id)).body.status, 'running');
      const job2 = await requestJob(f, runner.token);
      assert.equal(String(job2.id), r.body.workload.id);
      expectStatus(await get(flow.id, vars(job2).GITLAB_OAUTH_TOKEN!), 200);
      assert.equal(await requestJob(f, runner.token), null);
    });

    it('retry of a flow that never ran in CI only moves its status', async () => {
      const { project } = await setup('wl-local');
      const r = await f.api('POST', '/ai/agent_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), goal: 'local' } });
      expectStatus(r, 201);
      expectStatus(await move(r.body.id, 'start'), 200);
      expectStatus(await move(r.body.id, 'drop'), 200);
      const retried = await move(r.body.id, 'retry');
      expectStatus(retried, 200);
      assert.equal(retried.body.status, 'running');
      assert.equal(retried.body.workload, undefined);
      assert.equal((await flowPipelines(project)).length, 0);
    });

    it('retry with CI/CD disabled leaves the flow as it is and says why', async () => {
      const { project, runner } = await setup('wl-noci');
      const flow = await startFlow(project);
      const job = await requestJob(f, runner.token);
      await finishJob(f, job, 'failed');
      await f.forge.deps.db.updateTable('projects').set({ jobs_enabled: 0 }).where('id', '=', project.id).execute();
      const r = await move(flow.id, 'retry');
      expectStatus(r, 200);
      assert.deepEqual([r.body.status, r.body.workload], ['failed', { id: null, message: 'CI/CD is disabled for the project' }]);
      const pipelines = await f.forge.deps.db.selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).execute();
      assert.equal(pipelines.length, 1);
    });
  });
}
