import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const T0 = '2024-01-03T10:00:00.000Z';
const CI = ['spec:', '  inputs:', '    deploy: { type: boolean, default: false }', '    envs: { type: array, default: [] }', '---', 'test:', '  script: echo hi', ''].join('\n');

for (const dialect of DIALECTS) {
  describe(`${dialect}: client pipeline schedules`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let api: Forgelet;
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { clock, workers: false });
      api = clientFor(f);
      const group = await api.groups.create({ name: 'Ops', path: 'ops' });
      project = await api.projects.create({ name: 'Svc', path: 'svc', namespace_id: group.id });
      await commitFiles(f, project.id, 'main', { '.gitlab-ci.yml': CI });
    });
    after(() => f.stop());

    it('creates, shows, edits, runs, lists pipelines, takes ownership and deletes', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const created = await recorded.pipelineSchedules.create(project.path_with_namespace, {
        description: 'nightly',
        ref: 'main',
        cron: '0 1 * * *',
        cron_timezone: 'Pacific Time (US & Canada)',
        inputs: [{ name: 'deploy', value: true }, { name: 'envs', value: ['a', 'b'] }],
      });
      assert.equal(sent[0].url, `${f.url}/api/v4/projects/ops%2Fsvc/pipeline_schedules`);
      assert.deepEqual(JSON.parse(String(sent[0].body)), {
        description: 'nightly',
        ref: 'main',
        cron: '0 1 * * *',
        cron_timezone: 'Pacific Time (US & Canada)',
        inputs: [{ name: 'deploy', value: true }, { name: 'envs', value: ['a', 'b'] }],
      });
      assert.deepEqual(
        [created.ref, created.active, created.next_run_at, created.last_pipeline, created.inputs],
        ['refs/heads/main', true, '2024-01-04T09:00:00.000Z', null, [{ name: 'deploy', value: true }, { name: 'envs', value: ['a', 'b'] }]],
      );

      const variable = await api.pipelineScheduleVariables.create(project.id, created.id, { key: 'TARGET', value: 'staging', variable_type: 'file' });
      assert.deepEqual(variable, { variable_type: 'file', key: 'TARGET', value: 'staging', raw: false });
      assert.deepEqual(await api.pipelineScheduleVariables.show(project.id, created.id, 'TARGET'), variable);
      const edited = await api.pipelineScheduleVariables.edit(project.id, created.id, 'TARGET', { value: 'prod' });
      assert.equal(edited.value, 'prod');

      const shown = await api.pipelineSchedules.show(project.id, created.id);
      assert.deepEqual(shown.variables, [{ variable_type: 'file', key: 'TARGET', value: 'prod', raw: false }]);

      const changed = await api.pipelineSchedules.edit(project.id, created.id, { cron: '*/30 * * * *', cron_timezone: 'UTC', inputs: [{ name: 'envs', destroy: true }] });
      assert.deepEqual([changed.next_run_at, changed.inputs], ['2024-01-03T10:30:00.000Z', [{ name: 'deploy', value: true }]]);

      assert.deepEqual(await api.pipelineSchedules.run(project.id, created.id), { message: '201 Created' });
      await f.forge.deps.queue.runDue();
      clock.advance(30 * 60_000);
      await f.forge.deps.queue.runDue();
      const pipelines = await api.pipelineSchedules.allTriggeredPipelines(project.id, created.id, { sort: 'desc', updated_after: new Date(T0) }).toArray();
      assert.deepEqual(pipelines.map((p) => [p.source, p.status, p.ref]), [['schedule', 'pending', 'main'], ['schedule', 'pending', 'main']]);
      assert.ok(pipelines[0].id > pipelines[1].id);

      const active = await api.pipelineSchedules.all(project.id, { scope: 'active' }).toArray();
      assert.deepEqual(active.map((s) => [s.id, s.next_run_at, s.last_error]), [[created.id, '2024-01-03T11:00:00.000Z', null]]);
      assert.deepEqual(await api.pipelineSchedules.all(project.id, { scope: 'inactive' }).toArray(), []);

      const owned = await api.pipelineSchedules.takeOwnership(project.id, created.id);
      assert.equal(owned.owner?.username, 'root');

      const error = await apiError(api.pipelineSchedules.create(project.id, { description: 'x', ref: 'main', cron: 'every day' }));
      assert.equal(error.status, 400);
      assert.deepEqual(error.body, { message: { cron: [' is invalid syntax'] } });

      const removedVariable = await api.pipelineScheduleVariables.remove(project.id, created.id, 'TARGET');
      assert.equal(removedVariable.key, 'TARGET');
      const removed = await api.pipelineSchedules.remove(project.id, created.id);
      assert.equal(removed.id, created.id);
      assert.equal((await apiError(api.pipelineSchedules.show(project.id, created.id))).status, 404);
    });
  });
}
