import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createForge, fixedClock, Queue, type ControllableClock, type Forge } from '@forgelet/core';
import { fireDueSchedule, registerPipelineScheduleJobs } from '../../packages/core/src/domains/pipeline-schedules/index.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2024-01-03T10:00:00.000Z';
const MINUTE = 60_000;
const CI = ['spec:', '  inputs:', '    deploy: { type: boolean, default: false }', '---', 'test:', '  script: echo $DEPLOY_TARGET', ''].join('\n');

for (const dialect of DIALECTS) {
  describe(`${dialect}: pipeline schedules run through the queue`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let secretKey: Buffer;
    let maint: User, dev: User, dev2: User;
    let project: any;

    const path = (rest = '') => `/projects/${project.id}/pipeline_schedules${rest}`;
    const call = (method: string, rest: string, token?: string | null, body?: unknown) => f.api(method, path(rest), { token, body });
    const db = () => f.forge.database.db;
    const pipelinesOf = (scheduleId: number) => db().selectFrom('ci_pipelines').selectAll().where('pipeline_schedule_id', '=', scheduleId).orderBy('id').execute();
    const show = async (id: number) => (await call('GET', `/${id}`)).body;
    const runDue = () => f.forge.deps.queue.runDue();
    const schedule = async (body: Record<string, unknown>, token = dev.token) => {
      const r = await call('POST', '', token, { description: 'S', ref: 'main', cron: '*/5 * * * *', ...body });
      expectStatus(r, 201);
      return r.body;
    };
    const setLevel = async (u: User, level: number) => expectStatus(await f.api('PUT', `/projects/${project.id}/members/${u.id}`, { body: { access_level: level } }), 200);

    before(async () => {
      clock = fixedClock(T0);
      secretKey = randomBytes(32);
      f = await startTestServer(dialect, { clock, workers: false, secretKey });
      [maint, dev, dev2] = await createUsers(f, ['pswmaint', 'pswdev', 'pswdev2']);
      const group = await createGroup(f, f.rootToken, { name: 'Cron', path: 'cron' });
      project = await createProject(f, f.rootToken, { name: 'Worker', path: 'worker', namespace_id: group.id, visibility: 'private' });
      for (const [u, level] of [[maint, 40], [dev, 30], [dev2, 30]] as const) await addMember(f, 'projects', project.id, u.id, level);
      await commitFiles(f, project.id, 'main', { '.gitlab-ci.yml': CI });
      await commitFiles(f, project.id, 'prod', { 'README.md': 'prod' }, { startBranch: 'main' });
      expectStatus(await f.api('DELETE', `/projects/${project.id}/protected_branches/main`), 204);
      expectStatus(await f.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'prod', push_access_level: 40, merge_access_level: 40 } }), 201);
    });
    after(() => f.stop());

    it('fires a */5 schedule exactly once per five minutes over an hour: 12 pipelines, as the owner, with variables and inputs', async () => {
      clock.set(new Date(T0));
      const s = await schedule({ inputs: [{ name: 'deploy', value: true }] });
      expectStatus(await call('POST', `/${s.id}/variables`, dev.token, { key: 'DEPLOY_TARGET', value: 'staging' }), 201);
      expectStatus(await call('POST', `/${s.id}/variables`, dev.token, { key: 'KUBECONFIG', value: 'cfg', variable_type: 'file' }), 201);
      assert.equal(s.next_run_at, '2024-01-03T10:05:00.000Z');
      assert.equal(await runDue(), 0, 'not due yet');
      for (let step = 1; step <= 12; step++) {
        clock.advance(5 * MINUTE);
        assert.equal(await runDue(), 1, `step ${step}`);
        assert.equal(await runDue(), 0, 'a second run at the same instant does nothing');
        assert.equal((await pipelinesOf(s.id)).length, step, `pipelines after step ${step}`);
        assert.equal((await show(s.id)).next_run_at, new Date(Date.parse(T0) + (step + 1) * 5 * MINUTE).toISOString());
      }
      clock.advance(4 * MINUTE);
      assert.equal(await runDue(), 0);
      const pipelines = await pipelinesOf(s.id);
      assert.equal(pipelines.length, 12);
      assert.deepEqual(
        pipelines.map((p) => [p.source, p.user_id, p.ref, p.status, p.created_at]),
        pipelines.map((_, i) => ['schedule', dev.id, 'main', 'pending', new Date(Date.parse(T0) + (i + 1) * 5 * MINUTE).toISOString()]),
      );
      assert.deepEqual(JSON.parse(pipelines[0].inputs), { deploy: true });
      const vars = await db().selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipelines[11].id).orderBy('key').execute();
      assert.deepEqual(
        vars.map((v) => [v.key, f.forge.deps.secrets.decrypt(v.value_encrypted), v.variable_type]),
        [['DEPLOY_TARGET', 'staging', 'env_var'], ['KUBECONFIG', 'cfg', 'file']],
      );
      const shown = await show(s.id);
      assert.equal(shown.last_pipeline.id, pipelines[11].id);
      assert.equal(shown.last_error, null);
      assert.equal(shown.updated_at, '2024-01-03T11:00:00.000Z', 'each run saves the schedule');
      const listed = await call('GET', `/${s.id}/pipelines?per_page=100`);
      assert.equal(listed.body.length, 12);

      // Inactive: nothing fires, however far the clock goes; active again, it runs from now.
      const off = await call('PUT', `/${s.id}`, dev.token, { active: false });
      expectStatus(off, 200);
      for (let step = 0; step < 12; step++) {
        clock.advance(5 * MINUTE);
        assert.equal(await runDue(), 0);
      }
      assert.equal((await pipelinesOf(s.id)).length, 12);
      clock.advance(2 * MINUTE); // 12:06
      const on = await call('PUT', `/${s.id}`, dev.token, { active: true });
      assert.equal(on.body.next_run_at, '2024-01-03T12:10:00.000Z');
      clock.advance(4 * MINUTE);
      assert.equal(await runDue(), 1);
      assert.equal((await pipelinesOf(s.id)).length, 13);

      // A jump over many periods fires once (GitLab), then waits for the next future instant.
      clock.advance(3 * 60 * MINUTE); // 15:10
      assert.equal(await runDue(), 1);
      assert.equal((await pipelinesOf(s.id)).length, 14);
      assert.equal((await show(s.id)).next_run_at, '2024-01-03T15:15:00.000Z');
      expectStatus(await call('DELETE', `/${s.id}`, dev.token), 202);
    });

    it('an owner who lost access makes the run fail with the reason stored, and no pipeline under anyone else', async () => {
      const s = await schedule({ cron: '0 * * * *' });
      const fire = async () => {
        clock.advance(60 * MINUTE);
        assert.equal(await runDue(), 1);
        return show(s.id);
      };
      const count = async () => (await db().selectFrom('ci_pipelines').select('id').where('project_id', '=', project.id).execute()).length;
      const before = await count();

      await setLevel(dev, 20);
      let shown = await fire();
      assert.equal(shown.last_error, `Insufficient permissions to create a new pipeline: ${dev.username} may not run pipelines in this project`);
      assert.equal(Date.parse(shown.next_run_at) > clock.now().getTime(), true, 'the run is consumed, not retried in a loop');
      assert.equal(await count(), before);
      await setLevel(dev, 30);

      await db().updateTable('users').set({ state: 'blocked' }).where('id', '=', dev.id).execute();
      shown = await fire();
      assert.equal(shown.last_error, `Insufficient permissions to create a new pipeline: the user ${dev.username} is blocked`);
      assert.equal(await count(), before);
      await db().updateTable('users').set({ state: 'active' }).where('id', '=', dev.id).execute();

      shown = await fire();
      assert.equal(shown.last_error, null, 'cleared by a run that created a pipeline');
      assert.equal(await count(), before + 1);

      // A protected ref: the owner must be allowed to push or merge to it.
      const onProd = await schedule({ cron: '30 * * * *', ref: 'prod' }, maint.token);
      await setLevel(maint, 30);
      clock.advance(60 * MINUTE);
      assert.equal(await runDue(), 2);
      assert.equal(
        (await show(onProd.id)).last_error,
        "You do not have sufficient permission to run a pipeline on 'prod'. Please select a different branch or contact your administrator for assistance.",
      );
      assert.equal((await pipelinesOf(onProd.id)).length, 0);
      await setLevel(maint, 40);

      // A deleted owner leaves the schedule ownerless until someone takes it over.
      const orphan = await schedule({ cron: '45 * * * *' }, dev2.token);
      expectStatus(await f.api('DELETE', `/users/${dev2.id}`), 204);
      await f.forge.deps.queue.runDue(); // user removal may be queued
      const gone = await show(orphan.id);
      assert.equal(gone.owner, null);
      clock.advance(60 * MINUTE);
      await runDue();
      assert.equal((await show(orphan.id)).last_error, 'The schedule has no owner: its owner was deleted. Take ownership of the schedule to run it again.');
      assert.equal((await pipelinesOf(orphan.id)).length, 0);
      expectStatus(await call('POST', `/${orphan.id}/take_ownership`, maint.token, {}), 201);
      clock.advance(60 * MINUTE);
      await runDue();
      const owned = await pipelinesOf(orphan.id);
      assert.deepEqual(owned.map((p) => p.user_id), [maint.id]);
      assert.equal((await show(orphan.id)).last_error, null);

      const users = await db().selectFrom('ci_pipelines').select('user_id').distinct().where('pipeline_schedule_id', 'in', [s.id, onProd.id, orphan.id]).execute();
      assert.deepEqual(users.map((u) => u.user_id).sort(), [dev.id, maint.id].sort());
      for (const id of [s.id, onProd.id, orphan.id]) expectStatus(await call('DELETE', `/${id}`, maint.token), 202);
    });

    it("with GitLab timing, next_run_at rounds up to the worker's 3-59/10 ticks: a */5 schedule runs 6 times an hour", async () => {
      f.forge.deps.config.scheduleTiming = 'gitlab';
      try {
        clock.set(new Date('2024-02-01T10:00:00.000Z'));
        const s = await schedule({});
        assert.equal(s.next_run_at, '2024-02-01T10:13:00.000Z');
        const daily = await schedule({ cron: '3 4 * * *', cron_timezone: 'UTC' });
        assert.equal(daily.next_run_at, '2024-02-02T04:03:00.000Z', 'an instant on a tick stays');
        // Stepping five minutes at a time from 10:05 to 11:05: the runs fall on the ticks 10:13, 10:23 … 11:03.
        for (let step = 0; step < 13; step++) {
          clock.advance(5 * MINUTE);
          await runDue();
        }
        const pipelines = await pipelinesOf(s.id);
        assert.deepEqual(pipelines.map((p) => p.created_at.slice(11, 16)), ['10:15', '10:25', '10:35', '10:45', '10:55', '11:05']);
        assert.equal((await show(s.id)).next_run_at, '2024-02-01T11:13:00.000Z');
        for (const id of [s.id, daily.id]) expectStatus(await call('DELETE', `/${id}`, dev.token), 202);
      } finally {
        f.forge.deps.config.scheduleTiming = 'exact';
      }
    });

    it('two queue workers on one database fire a due schedule exactly once', async () => {
      clock.set(new Date('2024-03-01T10:00:00.000Z'));
      const s = await schedule({});
      const q2 = new Queue(db(), f.forge.database.dialect, clock);
      registerPipelineScheduleJobs({ ...f.forge.deps, queue: q2 });
      // A stray second job for the same schedule (as after a lost lease): the conditional UPDATE still wins once.
      await f.forge.deps.queue.enqueue(db(), 'pipeline_schedules.run', { schedule_id: s.id }, { runAt: new Date('2024-03-01T10:05:00.000Z'), uniqueKey: 'stray' });
      clock.advance(5 * MINUTE);
      await Promise.all([f.forge.deps.queue.runDue(), q2.runDue(), f.forge.deps.queue.runDue(), q2.runDue()]);
      assert.equal((await pipelinesOf(s.id)).length, 1);
      const outcomes = await Promise.all([1, 2, 3].map(() => fireDueSchedule(f.forge.deps, s.id, clock.now())));
      assert.deepEqual(outcomes, [null, null, null], 'not due any more');
      expectStatus(await call('DELETE', `/${s.id}`, dev.token), 202);
    });

    it('a run whose pipeline is not written (the database fails, or the process dies half-way) stays due and fires once later', async () => {
      clock.set(new Date('2024-05-01T10:00:00.000Z'));
      const s = await schedule({});
      clock.advance(5 * MINUTE);
      const due = clock.now();
      // The pipeline's transaction fails to open, as when the connection (or the process) is gone
      // between the claim and the pipeline: the claim must not have been committed on its own.
      const failing = new Proxy(db(), {
        get(target, prop) {
          if (prop === 'transaction') return () => ({ execute: async () => Promise.reject(new Error('connection terminated')) });
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await assert.rejects(fireDueSchedule({ ...f.forge.deps, db: failing }, s.id, due), /connection terminated/);
      assert.equal((await show(s.id)).next_run_at, '2024-05-01T10:05:00.000Z', 'the run is still due');
      assert.equal((await pipelinesOf(s.id)).length, 0);
      // Whichever worker takes the job next fires it, once.
      const outcomes = await Promise.all([fireDueSchedule(f.forge.deps, s.id, due), fireDueSchedule(f.forge.deps, s.id, due)]);
      assert.equal(outcomes.filter((o) => o?.created).length, 1, JSON.stringify(outcomes));
      assert.equal(outcomes.filter((o) => o === null).length, 1);
      assert.equal((await pipelinesOf(s.id)).length, 1);
      assert.equal((await show(s.id)).next_run_at, '2024-05-01T10:10:00.000Z');
      expectStatus(await call('DELETE', `/${s.id}`, dev.token), 202);
    });

    if (dialect === 'postgres') {
      it('two Forge instances on one PostgreSQL database fire each due run exactly once', async () => {
        const name = (await db().selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name')).executeTakeFirstOrThrow()).name;
        const url = new URL(process.env.TEST_DATABASE_URL!);
        url.pathname = `/${name}`;
        const other: Forge = await createForge({ databaseUrl: url.toString(), clock, secretKey });
        try {
          clock.set(new Date('2024-04-01T10:00:00.000Z'));
          const s = await schedule({ cron: '* * * * *' });
          expectStatus(await call('POST', `/${s.id}/variables`, dev.token, { key: 'DEPLOY_TARGET', value: 'prod' }), 201);
          for (let minute = 1; minute <= 5; minute++) {
            clock.advance(MINUTE);
            const due = clock.now();
            await Promise.all([
              f.forge.deps.queue.runDue(),
              other.deps.queue.runDue(),
              fireDueSchedule(f.forge.deps, s.id, due),
              fireDueSchedule(other.deps, s.id, due),
              other.deps.queue.runDue(),
            ]);
            assert.equal((await pipelinesOf(s.id)).length, minute, `minute ${minute}`);
          }
          const last = (await pipelinesOf(s.id)).at(-1)!;
          const v = await db().selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', last.id).executeTakeFirstOrThrow();
          assert.equal(f.forge.deps.secrets.decrypt(v.value_encrypted), 'prod');
          expectStatus(await call('DELETE', `/${s.id}`, dev.token), 202);
        } finally {
          await other.close();
        }
      });
    }
  });
}
