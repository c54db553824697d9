/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: pipeline schedules (issue 6's "Must show").
 *
 * The served binary (`forgelet serve --test-mode`) runs with its clock frozen; the test moves
 * it over HTTP (`clock.advance` runs every job that comes due on the way, with the background
 * worker paused) and reads the effects, as in test/server/pipeline-schedules-worker.test.ts:
 * - alice (Maintainer) creates a schedule in "Pacific Time (US & Canada)"; `next_run_at` is the
 *   exact instant the frozen clock gives (the night GitLab's zone switches to PDT); she adds
 *   and updates a variable and an input; bob (another Maintainer) cannot edit it until he takes
 *   ownership; he plays it, the queued run is done (by the worker or `runDue`), and the
 *   pipeline (as bob, with the updated input) is in the schedule's pipelines;
 * - a `*`/5 schedule fires exactly once per five minutes over an hour while the clock is
 *   stepped: 12 pipelines, read through `allTriggeredPipelines` (three pages of five, following
 *   `Link`), and none while it is inactive.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure, recordFetch } from './support.js';

type Client = InstanceType<typeof Gitlab>;

/** Saturday 04:00 PST; the next 04:00 in Los Angeles is Sunday's, after the switch to PDT. */
const T0 = '2024-03-09T12:00:00.000Z';
const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

const CI_FILE = [
  'spec:',
  '  inputs:',
  '    environment:',
  '      options: [staging, production]',
  '      default: staging',
  '---',
  'workflow:',
  '  name: Deploy to $[[ inputs.environment ]]',
  'deploy:',
  '  script: echo "deploying $[[ inputs.environment ]] to $DEPLOY_TARGET"',
  '',
].join('\n');

/** `Ci::PipelineBasic`, as a schedule's pipelines list shows it. */
type SchedulePipeline = { id: number; project_id: number; sha: string; ref: string; status: string; source: string; created_at: string };

/**
 * gitbeaker 43.8 sends any option it is given (decamelized: `perPage` → `per_page`, `inputs`
 * as JSON), but its types declare neither `inputs` on PipelineSchedules.edit nor the list
 * options of allTriggeredPipelines, whose items it types as a four-field Pick.
 */
const untyped = (options: Record<string, unknown>) => options as object;
function triggered(client: Client, projectId: number, id: number, options: { perPage?: number; sort?: 'asc' | 'desc' } = {}): Promise<SchedulePipeline[]> {
  return client.PipelineSchedules.allTriggeredPipelines(projectId, id, untyped(options)) as unknown as Promise<SchedulePipeline[]>;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 pipeline schedules`, () => {
    let f: ServedForgelet;
    let alice: Client;
    let bob: Client;
    let aliceId: number;
    let bobId: number;
    let projectId: number;

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: T0 } });
      const root = new Gitlab({ host: f.url, token: f.rootToken });
      const project = await root.Projects.create({ name: 'Scheduled', path: 'scheduled', initializeWithReadme: true });
      projectId = project.id;
      await commitFiles(f, projectId, 'main', { '.gitlab-ci.yml': CI_FILE });
      const [a, b] = [await f.createUser('alice'), await f.createUser('bob')];
      for (const u of [a, b]) assert.equal((await root.ProjectMembers.add(projectId, 40, { userId: u.id })).access_level, 40);
      [aliceId, bobId] = [a.id, b.id];
      alice = new Gitlab({ host: f.url, token: a.token });
      bob = new Gitlab({ host: f.url, token: b.token });
      console.log(`[${dialect}] gitbeaker schedules setup: ${Math.round(performance.now() - t0)} ms`);
    });
    after(() => f?.stop());

    it('create in "Pacific Time (US & Canada)": next_run_at is the exact instant; a variable and an input added and updated; bob takes ownership and plays it', async () => {
      const created = await alice.PipelineSchedules.create(projectId, 'Nightly deploy', 'main', '0 4 * * *', { cronTimezone: 'Pacific Time (US & Canada)' });
      assert.deepEqual(
        [created.description, created.ref, created.cron, created.cron_timezone, created.active, created.created_at, created.owner?.id],
        ['Nightly deploy', 'refs/heads/main', '0 4 * * *', 'Pacific Time (US & Canada)', true, T0, aliceId],
      );
      // 04:00 on Sunday 10 March in Los Angeles is PDT (UTC-7): 11:00 UTC, not 12:00.
      assert.equal(created.next_run_at, '2024-03-10T11:00:00.000Z');
      const id = created.id as number;

      const variable = await alice.PipelineScheduleVariables.create(projectId, id, 'DEPLOY_TARGET', 'staging-cluster', { variableType: 'env_var' });
      assert.deepEqual(variable, { variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'staging-cluster', raw: false });
      const updatedVariable = await alice.PipelineScheduleVariables.edit(projectId, id, 'DEPLOY_TARGET', 'prod-cluster');
      assert.deepEqual(updatedVariable, { variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'prod-cluster', raw: false });

      const withInput = await alice.PipelineSchedules.edit(projectId, id, untyped({ inputs: [{ name: 'environment', value: 'staging' }] }));
      assert.deepEqual(withInput.inputs, [{ name: 'environment', value: 'staging' }]);
      const updatedInput = await alice.PipelineSchedules.edit(projectId, id, untyped({ inputs: [{ name: 'environment', value: 'production' }] }));
      assert.deepEqual(updatedInput.inputs, [{ name: 'environment', value: 'production' }]);
      assert.equal(updatedInput.next_run_at, '2024-03-10T11:00:00.000Z');

      const shown = await alice.PipelineSchedules.show(projectId, id);
      assert.deepEqual(shown.variables, [{ variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'prod-cluster', raw: false }]);
      assert.deepEqual(shown.inputs, [{ name: 'environment', value: 'production' }]);
      assert.equal(shown.last_pipeline, null);

      // bob, another Maintainer, may not edit alice's schedule until he owns it.
      assert.deepEqual(await gitbeakerFailure(bob.PipelineSchedules.edit(projectId, id, { description: 'mine' })), { status: 403, message: '403 Forbidden' });
      const taken = await bob.PipelineSchedules.takeOwnership(projectId, id);
      assert.equal(taken.owner?.id, bobId);
      assert.equal(taken.owner?.username, 'bob');
      assert.equal(taken.next_run_at, '2024-03-10T11:00:00.000Z');
      assert.deepEqual(await gitbeakerFailure(alice.PipelineSchedules.edit(projectId, id, { description: 'hers' })), { status: 403, message: '403 Forbidden' });
      const bobsVariable = await bob.PipelineScheduleVariables.edit(projectId, id, 'DEPLOY_TARGET', 'prod-cluster-2');
      assert.equal(bobsVariable.value, 'prod-cluster-2');

      const played = await bob.PipelineSchedules.run(projectId, id);
      assert.deepEqual(played, { message: '201 Created' });
      // play queues the run: the worker may take it; runDue runs it if it has not yet.
      await f.runDue();

      const pipelines = await triggered(bob, projectId, id);
      assert.equal(pipelines.length, 1);
      const [p] = pipelines;
      assert.deepEqual([p.project_id, p.ref, p.status, p.source, p.created_at], [projectId, 'main', 'pending', 'schedule', T0]);
      const pipeline = await bob.Pipelines.show(projectId, p.id);
      assert.equal(pipeline.user?.id, bobId, 'played as the caller');
      assert.equal(pipeline.name, 'Deploy to production', 'the updated input');
      const jobs = await bob.Jobs.all(projectId, { pipelineId: p.id });
      assert.deepEqual(jobs.map((j) => [j.name, j.status]), [['deploy', 'pending']]);

      const after = await bob.PipelineSchedules.show(projectId, id);
      assert.equal((after.last_pipeline as SchedulePipeline | null)?.id, p.id);
      assert.equal(after.next_run_at, '2024-03-10T11:00:00.000Z', 'play leaves the next run as it was');
      assert.deepEqual((await bob.PipelineSchedules.all(projectId)).map((s) => [s.id, s.owner?.username]), [[id, 'bob']]);
    });

    it('a */5 schedule fires exactly once per five minutes over an hour (12 pipelines through allTriggeredPipelines), none while inactive', async () => {
      await f.clock.set(T0);
      const s = await alice.PipelineSchedules.create(projectId, 'Every five minutes', 'main', '*/5 * * * *', { cronTimezone: 'Pacific Time (US & Canada)' });
      assert.equal(s.next_run_at, at(5 * MINUTE));
      const id = s.id as number;
      assert.equal(await f.runDue(), 0, 'nothing due at T0');
      assert.deepEqual(await triggered(alice, projectId, id), []);
      // Nothing is due between steps, so the worker has nothing to take: each advance runs exactly what came due.
      for (let step = 1; step <= 12; step++) {
        assert.equal((await f.clock.advance(5 * 60)).jobs_run, 1, `one run at step ${step}`);
        assert.equal(await f.runDue(), 0, `no second run at step ${step}`);
        assert.equal((await triggered(alice, projectId, id, { perPage: 100 })).length, step, `one pipeline more at step ${step}`);
        assert.equal((await alice.PipelineSchedules.show(projectId, id)).next_run_at, at((step + 1) * 5 * MINUTE));
      }
      assert.equal((await f.clock.advance(4 * 60)).jobs_run, 0);

      const recorder = recordFetch();
      let pipelines;
      try {
        pipelines = await triggered(alice, projectId, id, { perPage: 5 });
      } finally {
        recorder.restore();
      }
      const base = `/projects/${projectId}/pipeline_schedules/${id}/pipelines`;
      // gitbeaker follows `Link: rel="next"` page by page.
      assert.deepEqual(
        recorder.exchanges.map(([method, path, status]) => {
          const url = new URL(path, 'http://x');
          return [method, url.pathname, url.searchParams.get('page') ?? '1', url.searchParams.get('per_page'), status];
        }),
        ['1', '2', '3'].map((page) => ['GET', base, page, '5', 200]),
      );
      assert.equal(recorder.exchanges.length, 3, 'three pages of five');
      assert.equal(pipelines.length, 12);
      assert.deepEqual(
        pipelines.map((p) => [p.source, p.ref, p.created_at]),
        pipelines.map((_, i) => ['schedule', 'main', at((i + 1) * 5 * MINUTE)]),
      );
      const ids = pipelines.map((p) => p.id);
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b), 'oldest first (sort=asc)');
      const newest = await triggered(alice, projectId, id, { sort: 'desc', perPage: 100 });
      assert.deepEqual(newest.map((p) => p.id), [...ids].reverse());
      assert.equal((await alice.Pipelines.show(projectId, ids[0])).user?.id, aliceId, 'runs as the owner');

      const off = await alice.PipelineSchedules.edit(projectId, id, { active: false });
      assert.equal(off.active, false);
      assert.deepEqual((await alice.PipelineSchedules.all(projectId, { scope: 'inactive' })).map((x) => x.id), [id]);
      for (let step = 1; step <= 12; step++) {
        assert.equal((await f.clock.advance(5 * 60)).jobs_run, 0, `inactive: nothing at step ${step}`);
      }
      assert.equal((await triggered(alice, projectId, id, { perPage: 100 })).length, 12);
      await alice.PipelineSchedules.remove(projectId, id);
    });
  });
}
