import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Forgelet, type Forgelet as Client } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitCi, finishJob, patchTrace, requestJob } from '../server/ci-support.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2024-06-15T12:00:00.000Z';
const CI = 'stages: [build, deploy]\nbuild:\n  stage: build\n  script: make\ndeploy:\n  stage: deploy\n  script: deploy\n  when: manual\n';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client pipelines, jobs, runners`, () => {
    let f: TestForgelet;
    let api: Client;
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      const group = await api.groups.create({ name: 'Client CI', path: 'client-ci' });
      project = await api.projects.create({ name: 'svc', namespace_id: group.id });
      await commitCi(f, project.id, CI);
    });
    after(() => f.stop());

    it('runners, pipelines and jobs end to end, with a runner speaking the protocol', async () => {
      const runner = await api.runners.create({ runner_type: 'project_type', project_id: project.id, description: 'client', tag_list: 'a,b' });
      assert.match(runner.token, /^glrt-/);
      await api.runners.verify(runner.token, 's_client00000');
      const shown = await api.runners.show(runner.id);
      assert.deepEqual([shown.description, shown.tag_list, shown.runner_type], ['client', ['a', 'b'], 'project_type']);
      assert.deepEqual((await api.runners.managers(runner.id)).map((m) => [m.system_id, m.ip_address, m.contacted_at]), [['s_client00000', '127.0.0.1', null]]);
      assert.deepEqual((await api.runners.allForProject(project.path_with_namespace).toArray()).map((r) => r.id), [runner.id]);

      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const p = await recorded.pipelines.create(project.path_with_namespace, 'main', { variables: [{ key: 'MODE', value: 'ci' }] });
      assert.equal(sent[0]!.url, `${f.url}/api/v4/projects/client-ci%2Fsvc/pipeline`);
      assert.deepEqual(JSON.parse(sent[0]!.body!), { ref: 'main', variables: [{ key: 'MODE', value: 'ci' }] });
      assert.deepEqual([p.status, p.ref, p.source, p.warnings], ['pending', 'main', 'api', []]);
      assert.deepEqual(await api.pipelines.show(project.id, p.id), p);
      assert.deepEqual((await api.pipelines.all(project.id).toArray()).map((x) => x.id), [p.id]);
      assert.deepEqual((await api.pipelines.all(project.id, { status: 'failed' }).toArray()), []);
      assert.deepEqual(await api.pipelines.variables(project.id, p.id), [{ variable_type: 'env_var', key: 'MODE', value: 'ci', raw: false }]);
      assert.equal((await api.pipelines.latest(project.id)).id, p.id);

      const job = await requestJob(f, runner.token);
      // the job request named no system_id: the runner's `<legacy>` process, with the version it sent
      assert.deepEqual((await api.runners.managers(runner.id)).map((m) => [m.system_id, m.version]), [['s_client00000', null], ['<legacy>', '17.0.0']]);
      assert.equal((await api.runners.show(runner.id)).version, '17.0.0');
      const asJob = new Forgelet({ url: f.url, jobToken: job.token });
      const current = await asJob.jobs.current();
      assert.deepEqual([current.id, current.name, current.status], [job.id, 'build', 'running']);
      assert.equal((await patchTrace(f, job, 0, 'hello\n')).status, 202);
      assert.equal(await api.jobs.trace(project.id, job.id), 'hello\n');
      // Following a running log: only what is past the offset comes back (206), nothing new is a 416 the client answers as empty.
      assert.deepEqual(await api.jobs.traceFrom(project.id, job.id, 0), { text: 'hello\n', size: 6, received: 6 });
      assert.deepEqual(await api.jobs.traceFrom(project.id, job.id, 6), { text: '', size: 6, received: 0 });
      assert.equal((await patchTrace(f, job, 6, 'wörld\n')).status, 202);
      assert.deepEqual(await api.jobs.traceFrom(project.id, job.id, 6), { text: 'wörld\n', size: 13, received: 7 });
      const traceUrl = `${f.url}/api/v4/projects/${project.id}/jobs/${job.id}/trace`;
      const ranged = await globalThis.fetch(traceUrl, { headers: { 'PRIVATE-TOKEN': f.rootToken, Range: 'bytes=6-' } });
      assert.deepEqual([ranged.status, ranged.headers.get('content-range'), await ranged.text()], [206, 'bytes 6-12/13', 'wörld\n']);
      const bounded = await globalThis.fetch(traceUrl, { headers: { 'PRIVATE-TOKEN': f.rootToken, Range: 'bytes=0-4' } });
      assert.deepEqual([bounded.status, bounded.headers.get('content-range'), await bounded.text()], [206, 'bytes 0-4/13', 'hello']);
      const past = await globalThis.fetch(traceUrl, { headers: { 'PRIVATE-TOKEN': f.rootToken, Range: 'bytes=13-' } });
      assert.deepEqual([past.status, past.headers.get('content-range')], [416, 'bytes */13']);
      // Several ranges or another unit: the whole log (RFC 9110 lets a server ignore a Range).
      for (const range of ['bytes=0-1,3-4', 'lines=1-', 'bytes=5-2']) {
        const whole = await globalThis.fetch(traceUrl, { headers: { 'PRIVATE-TOKEN': f.rootToken, Range: range } });
        assert.deepEqual([whole.status, whole.headers.get('accept-ranges'), await whole.text()], [200, 'bytes', 'hello\nwörld\n'], range);
      }
      await finishJob(f, job, 'success');
      assert.equal((await apiError(asJob.jobs.current())).status, 401);

      const jobs = await api.pipelines.jobs(project.id, p.id).toArray();
      assert.deepEqual(jobs.map((j) => [j.name, j.status]), [['deploy', 'manual'], ['build', 'success']]);
      const played = await api.jobs.play(project.id, jobs[0]!.id);
      assert.equal(played.status, 'pending');
      // the canceled job may fail (manual jobs default to allow_failure): the pipeline passed with warnings
      const afterCancel = await api.pipelines.cancel(project.id, p.id);
      assert.deepEqual([afterCancel.status, afterCancel.detailed_status.group], ['success', 'success-with-warnings']);
      assert.equal((await api.jobs.show(project.id, played.id)).status, 'canceled');
      const retried = await api.jobs.retry(project.id, played.id);
      assert.notEqual(retried.id, played.id);
      assert.equal(retried.status, 'manual', 'a retried manual job waits to be played again');
      assert.equal((await api.jobs.cancel(project.id, retried.id)).status, 'manual', 'manual jobs are not canceled');
      assert.deepEqual((await api.jobs.all(project.id, { scope: ['canceled'] }).toArray()).map((j) => j.id), [played.id]);
      assert.equal((await api.pipelines.show(project.id, p.id)).status, 'success');
      assert.equal((await api.pipelines.retry(project.id, p.id)).status, 'success', 'nothing failed: nothing to retry');
      await api.pipelines.remove(project.id, p.id);
      assert.equal((await apiError(api.pipelines.show(project.id, p.id))).status, 404);
    });

    it('errors carry GitLab bodies; legacy registration and unregistration', async () => {
      const err = await apiError(api.pipelines.create(project.id, 'nowhere'));
      assert.equal(err.status, 400);
      assert.deepEqual(err.body, { message: { base: ['Reference not found'] } });
      const token = (await api.projects.show(project.id) as unknown as { runners_token: string }).runners_token;
      const registered = await api.runners.register({ token, description: 'legacy' });
      await api.runners.verify(registered.token);
      await api.runners.unregister(registered.token);
      assert.equal((await apiError(api.runners.verify(registered.token))).status, 403);
    });
  });
}
