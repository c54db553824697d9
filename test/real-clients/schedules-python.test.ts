/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): pipeline schedules (issue 6's "Must
 * show"). The flow lives in python_gitlab_schedules.py, which prints one JSON object with each
 * step's results (and the HTTP exchanges it made); the tests below assert on it.
 *
 * The server's clock is frozen on Saturday 9 March 2024, 04:00 in Los Angeles: the script pauses
 * (runPythonStepsWithPauses) while this process runs the queue or steps the clock five minutes at
 * a time (`POST /forgelet/clock/advance`, which runs every job that comes due on the way). The
 * served process runs its own worker, which may take a job due at the frozen instant (play's run)
 * first; an advance waits for the worker's run in flight, so what the script reads after a pause
 * is exact.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { probePythonGitlab, pythonStep, runPythonStepsWithPauses, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_schedules.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

const T0 = '2024-03-09T12:00:00.000Z';
const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
/** 04:00 on Sunday 10 March in Los Angeles, after the switch to PDT (UTC-7). */
const NEXT_4AM = '2024-03-10T11:00:00.000Z';

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

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 pipeline schedules`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let pauses: [string, unknown][];
    let projectId: number;
    let alice: { id: number; username: string };
    let bob: { id: number; username: string };
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect, { clock: { now: T0 } });
      const project = await f.api('POST', '/projects', { body: { name: 'Py Scheduled', path: 'py-scheduled', initialize_with_readme: true } });
      assert.equal(project.status, 201, project.text);
      projectId = project.body.id;
      await commitFiles(f, projectId, 'main', { '.gitlab-ci.yml': CI_FILE });
      const a = await f.createUser('pyalice');
      const b = await f.createUser('pybob');
      for (const u of [a, b]) {
        const m = await f.api('POST', `/projects/${projectId}/members`, { body: { user_id: u.id, access_level: 40 } });
        assert.equal(m.status, 201, m.text);
      }
      alice = { id: a.id, username: a.username };
      bob = { id: b.id, username: b.username };
      const serverMs = Math.round(performance.now() - t0);

      /** Jobs run by moving the clock, then by running the queue again at once. */
      const step = async (minutes: number) => [(await f.clock.advance(minutes * 60)).jobs_run, await f.runDue()];
      const run = await runPythonStepsWithPauses(
        SCRIPT,
        { FORGELET_URL: f.url, FORGELET_PROJECT_ID: String(projectId), ALICE_TOKEN: a.token, BOB_TOKEN: b.token },
        {
          run_queue: () => f.runDue(),
          reset_clock: async () => {
            await f.clock.set(T0);
            return (await f.clock.now()).toISOString();
          },
          step_5_minutes: () => step(5),
          advance_4_minutes: () => step(4),
          inactive_hour: async () => {
            const ran: number[] = [];
            for (let i = 0; i < 12; i++) ran.push(...(await step(5)));
            return ran;
          },
        },
      );
      results = run.results;
      pauses = run.pauses;
      const steps = Object.entries(results)
        .filter(([, v]) => typeof v === 'object')
        .map(([k, v]) => `${k}=${v.ms}ms`)
        .join(' ');
      console.log(`[${dialect}] python-gitlab schedules: server ${serverMs} ms; script ${run.ms} ms (${steps})`);
    });
    after(() => f?.stop());

    it('pipelineschedules.create in "Pacific Time (US & Canada)": next_run_at is the exact instant from the injected clock', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('create');
      assert.deepEqual([s.alice_id, s.bob_id], [alice.id, bob.id]);
      assert.deepEqual(s.schedule, {
        id: s.schedule.id,
        description: 'Nightly deploy',
        ref: 'refs/heads/main',
        cron: '0 4 * * *',
        cron_timezone: 'Pacific Time (US & Canada)',
        next_run_at: NEXT_4AM,
        active: true,
        created_at: T0,
        owner: 'pyalice',
        inputs: [],
      });
      const post = s.exchanges.find(([m]: [string]) => m === 'POST');
      assert.deepEqual(post, [
        'POST',
        `/projects/${projectId}/pipeline_schedules`,
        201,
        { description: 'Nightly deploy', ref: 'main', cron: '0 4 * * *', cron_timezone: 'Pacific Time (US & Canada)' },
      ]);
    });

    it('schedule.variables.create / update (key sent in the body too), then the input added and updated with save()', () => {
      const v = stepOf('variable');
      assert.deepEqual(v.created, { variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'staging-cluster', raw: false });
      assert.deepEqual(v.updated, { variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'prod-cluster', raw: false });
      const sid = stepOf('create').schedule.id;
      assert.deepEqual(v.exchanges.map((e: unknown[]) => e.slice(0, 4)), [
        ['POST', `/projects/${projectId}/pipeline_schedules/${sid}/variables`, 201, { key: 'DEPLOY_TARGET', value: 'staging-cluster', variable_type: 'env_var' }],
        ['PUT', `/projects/${projectId}/pipeline_schedules/${sid}/variables/DEPLOY_TARGET`, 200, { key: 'DEPLOY_TARGET', value: 'prod-cluster' }],
      ]);

      const i = stepOf('input');
      assert.deepEqual(i.added, [{ name: 'environment', value: 'staging' }]);
      assert.deepEqual(i.updated, [{ name: 'environment', value: 'production' }]);
      assert.equal(i.next_run_at, NEXT_4AM);
      assert.deepEqual(i.shown_variables, [{ variable_type: 'env_var', key: 'DEPLOY_TARGET', value: 'prod-cluster', raw: false }]);
      assert.deepEqual(i.shown_inputs, [{ name: 'environment', value: 'production' }]);
      assert.equal(i.shown_last_pipeline, null);
      // save() sends only what changed.
      const puts = i.exchanges.filter(([m]: [string]) => m === 'PUT').map((e: unknown[]) => e.slice(0, 4));
      assert.deepEqual(puts, [
        ['PUT', `/projects/${projectId}/pipeline_schedules/${sid}`, 200, { inputs: [{ name: 'environment', value: 'staging' }] }],
        ['PUT', `/projects/${projectId}/pipeline_schedules/${sid}`, 200, { inputs: [{ name: 'environment', value: 'production' }] }],
      ]);
    });

    it('another Maintainer cannot edit it (GitlabUpdateError 403) until take_ownership(); then the first one cannot', () => {
      const s = stepOf('take_ownership');
      const sid = stepOf('create').schedule.id;
      assert.equal(s.owner_before, 'pyalice');
      assert.deepEqual(s.refused_before, { type: 'GitlabUpdateError', response_code: 403, message: '403 Forbidden' });
      assert.deepEqual([s.owner_after, s.owner_id_after], ['pybob', bob.id]);
      assert.equal(s.next_run_at, NEXT_4AM);
      assert.equal(s.description, 'Nightly deploy', 'take_ownership() replaced the refused local edit with the response');
      assert.deepEqual(s.refused_after, { type: 'GitlabUpdateError', response_code: 403, message: '403 Forbidden' });
      assert.deepEqual(s.variable, { variable_type: 'env_var', key: 'EXTRA', value: '2', raw: false });
      const take = s.exchanges.find(([m, path]: [string, string]) => m === 'POST' && path.endsWith('/take_ownership'));
      assert.deepEqual(take, ['POST', `/projects/${projectId}/pipeline_schedules/${sid}/take_ownership`, 201, {}]);
      const varSave = s.exchanges.filter(([m, path]: [string, string]) => m === 'PUT' && path.includes('/variables/'));
      assert.deepEqual(varSave, [['PUT', `/projects/${projectId}/pipeline_schedules/${sid}/variables/EXTRA`, 200, { key: 'EXTRA', value: '2' }]]);
    });

    it("play() queues a run as the caller; after the queue runs, the pipeline is in the schedule's pipelines", () => {
      const s = stepOf('play');
      const sid = stepOf('create').schedule.id;
      assert.deepEqual(s.played, { message: '201 Created' });
      assert.equal(s.kept_id, false, "play() replaced the object's attributes with GitLab's {message} answer");
      // The run comes due at once: the served worker may have made it before the script listed,
      // or before run_queue; after that pause there is exactly one.
      assert.ok(s.before_queue.length === 0 || (s.before_queue.length === 1 && s.ran === 0), JSON.stringify([s.before_queue, s.ran]));
      assert.ok(s.ran <= 1, `ran ${s.ran}`);
      assert.equal(s.pipelines.length, 1);
      const [p] = s.pipelines;
      assert.deepEqual(p, { id: p.id, project_id: projectId, ref: 'main', status: 'pending', source: 'schedule', created_at: T0 });
      assert.equal(s.pipeline_user, bob.id);
      assert.equal(s.pipeline_name, 'Deploy to production');
      assert.deepEqual(s.jobs, [['deploy', 'pending']]);
      assert.equal(s.last_pipeline_id, p.id);
      assert.equal(s.next_run_at, NEXT_4AM, 'play leaves the next run as it was');
      assert.deepEqual(s.listed, [[sid, 'pybob']]);
      const play = s.exchanges.find(([m, path]: [string, string]) => m === 'POST' && path.endsWith('/play'));
      assert.deepEqual(play, ['POST', `/projects/${projectId}/pipeline_schedules/${sid}/play`, 201, {}]);
    });

    it('a */5 schedule fires exactly once per five minutes over an hour: 12 pipelines, read page by page (Link)', () => {
      const s = stepOf('every_five_minutes');
      assert.equal(s.now, T0);
      assert.equal(s.created_next, at(5 * MINUTE));
      assert.equal(s.nothing_yet, 0);
      assert.deepEqual(
        s.steps,
        Array.from({ length: 12 }, (_, i) => ({ ran: [1, 0], next_run_at: at((i + 2) * 5 * MINUTE) })),
      );
      assert.deepEqual(s.tail, [0, 0]);
      assert.equal(s.pipelines.length, 12);
      assert.deepEqual(
        s.pipelines.map((p: any) => [p.source, p.ref, p.status, p.created_at]),
        s.pipelines.map((_: unknown, i: number) => ['schedule', 'main', 'pending', at((i + 1) * 5 * MINUTE)]),
      );
      const ids = s.pipelines.map((p: any) => p.id);
      assert.deepEqual(s.newest_first, [...ids].reverse());
      assert.equal(s.owner_of_first, alice.id, 'runs as the owner');
      // python-gitlab follows the absolute `Link: rel="next"` URLs verbatim.
      assert.deepEqual(
        s.pages.map(([m, path, status]: [string, string, number]) => {
          const url = new URL(path, 'http://x');
          return [m, url.pathname, url.searchParams.get('page') ?? '1', url.searchParams.get('per_page'), status];
        }),
        ['1', '2', '3'].map((page) => ['GET', `/projects/${projectId}/pipeline_schedules/${s.id}/pipelines`, page, '5', 200]),
      );
    });

    it('inactive (save() with active False): nothing fires over the next hour; the 12 pipelines stay', () => {
      const s = stepOf('inactive');
      const five = stepOf('every_five_minutes');
      assert.equal(s.active, false);
      assert.deepEqual(s.inactive_ids, [five.id]);
      assert.deepEqual(s.ran, Array(24).fill(0));
      assert.equal(s.count, 12);
      assert.equal(five.pipelines.length, 12);
      assert.deepEqual(
        pauses.map(([name]) => name),
        ['run_queue', 'reset_clock', 'run_queue', ...Array(12).fill('step_5_minutes'), 'advance_4_minutes', 'inactive_hour'],
      );
    });
  });
}
