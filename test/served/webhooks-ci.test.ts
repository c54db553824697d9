/**
 * Pipeline, job and deployment events from the product users run: `forgelet serve` started as
 * the binary, a hook pointing at a local receiver, a push pipeline whose one job deploys, run
 * through the runner protocol (POST /jobs/request, PUT /jobs/:id). The served worker delivers
 * each event once, with GitLab's headers and payloads.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';

const CI = `
ship:
  stage: deploy
  script: echo ship
  environment:
    name: production
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: the served binary sends pipeline, job and deployment events`, () => {
    let s: ServedForgelet;
    let rx: HookReceiver;

    before(async () => {
      s = await startServed(dialect);
      rx = await hookReceiver();
    });
    after(async () => {
      await s?.stop();
      await rx?.close();
    });

    it('a job run by a runner: Job, Deployment and Pipeline Hooks reach the receiver', async () => {
      const ok = async (method: string, path: string, body: unknown, status: number) => {
        const r = await s.api(method, path, { body });
        assert.equal(r.status, status, `${method} ${path}: ${r.text}`);
        return r.body as any;
      };
      const project = await ok('POST', '/projects', { name: 'served-ci-hooks', initialize_with_readme: true }, 201);
      await ok('POST', `/projects/${project.id}/hooks`, { url: `${rx.url}/ci`, token: 'served-secret', push_events: false, pipeline_events: true, job_events: true, deployment_events: true }, 201);
      const runner = await ok('POST', '/user/runners', { runner_type: 'project_type', project_id: project.id, description: 'served runner' }, 201);
      const pushed = await ok('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main',
        commit_message: 'Ship it',
        actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }],
      }, 201);

      const requested = await s.api('POST', '/jobs/request', { token: null, body: { token: runner.token, info: { name: 'served-runner', version: '17.0.0' } } });
      assert.equal(requested.status, 201, requested.text);
      const job = requested.body as any;
      const finished = await s.api('PUT', `/jobs/${job.id}`, { token: null, body: { token: job.token, state: 'success' } });
      assert.equal(finished.status, 200, finished.text);

      await s.runDue();
      const wanted = ['Job Hook created', 'Job Hook pending', 'Pipeline Hook pending', 'Job Hook running', 'Deployment Hook running', 'Pipeline Hook running', 'Job Hook success', 'Deployment Hook success', 'Pipeline Hook success'];
      const seen = () =>
        rx.deliveries.map((d) => `${d.headers['x-gitlab-event']} ${d.body.object_kind === 'build' ? d.body.build_status : d.body.object_kind === 'pipeline' ? d.body.object_attributes.status : d.body.status}`);
      await until('the nine events', async () => seen().length >= wanted.length);
      await new Promise((r) => setTimeout(r, 1500)); // one more poll of the worker: nothing sent twice
      assert.deepEqual([...seen()].sort(), [...wanted].sort());

      for (const d of rx.deliveries) {
        assert.equal(d.path, '/ci');
        assert.equal(d.headers['x-gitlab-token'], 'served-secret');
        assert.equal(d.headers['x-gitlab-instance'], s.url);
        assert.match(String(d.headers['user-agent']), /^GitLab\//);
      }
      const byEvent = (event: string, status: string) => rx.deliveries.find((d) => seen()[rx.deliveries.indexOf(d)] === `${event} ${status}`)!.body;
      const success = byEvent('Job Hook', 'success');
      assert.equal(success.build_id, job.id);
      assert.equal(success.build_name, 'ship');
      assert.equal(success.sha, pushed.id);
      assert.equal(success.runner.description, 'served runner');
      assert.deepEqual(success.environment, { name: 'production', action: 'start' });
      assert.match(success.build_finished_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      const deployment = byEvent('Deployment Hook', 'success');
      assert.equal(deployment.deployable_id, job.id);
      assert.equal(deployment.environment, 'production');
      assert.equal(deployment.environment_tier, 'production');
      assert.equal(deployment.commit_title, 'Ship it');
      assert.equal(deployment.deployable_url, `${s.url}/${project.path_with_namespace}/-/jobs/${job.id}`);
      const pipeline = byEvent('Pipeline Hook', 'success');
      assert.equal(pipeline.object_attributes.source, 'push');
      assert.equal(pipeline.object_attributes.sha, pushed.id);
      assert.deepEqual(pipeline.builds.map((b: any) => [b.name, b.status]), [['ship', 'success']]);
      assert.equal(pipeline.project.path_with_namespace, project.path_with_namespace);
    });
  });
}
