import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, expectStatus } from './http.js';

const T0 = '2024-06-03T00:00:00.000Z'; // a Monday
const at = (offsetSeconds: number) => new Date(Date.parse(T0) + offsetSeconds * 1000).toISOString();
const HOUR = 3600;

for (const dialect of DIALECTS) {
  describe(`${dialect}: test harness clock`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    /** What the test jobs saw: kind, the `now` they were given, the clock inside them. */
    let runs: { kind: string; now: string; clock: string }[] = [];

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { testMode: true, clock, workers: false });
      const queue = f.forge.deps.queue;
      // Every hour from the first run on, as a schedule does.
      queue.register('test.hourly', async (_p, { now }) => {
        runs.push({ kind: 'hourly', now: now.toISOString(), clock: clock.now().toISOString() });
        return { retryAt: new Date(now.getTime() + HOUR * 1000) };
      });
      // Queues a follow-up 90 minutes later, inside the same advance.
      queue.register('test.chain', async (p: { step: number }, { now }) => {
        runs.push({ kind: `chain${p.step}`, now: now.toISOString(), clock: clock.now().toISOString() });
        if (p.step < 2) await queue.enqueue(f.forge.database.db, 'test.chain', { step: p.step + 1 }, { runAt: new Date(now.getTime() + 90 * 60_000) });
      });
      queue.register('test.once', async (_p, { now }) => {
        runs.push({ kind: 'once', now: now.toISOString(), clock: clock.now().toISOString() });
      });
    });
    after(() => f.stop());

    it('GET and PUT: read, set, freeze and unfreeze', async () => {
      const r = await f.api('GET', '/forgelet/clock');
      assert.deepEqual([r.status, r.body], [200, { now: T0, frozen: true }]);

      const set = await f.api('PUT', '/forgelet/clock', { body: { now: '2024-07-01T08:30:00Z' } });
      assert.deepEqual([set.status, set.body], [200, { now: '2024-07-01T08:30:00.000Z', frozen: true }]);
      assert.equal(clock.now().toISOString(), '2024-07-01T08:30:00.000Z');

      const running = await f.api('PUT', '/forgelet/clock', { body: { frozen: false } });
      assert.equal(running.body.frozen, false);
      await new Promise((r) => setTimeout(r, 30));
      const later = (await f.api('GET', '/forgelet/clock')).body;
      const elapsed = Date.parse(later.now) - Date.parse('2024-07-01T08:30:00.000Z');
      assert.ok(elapsed >= 25 && elapsed < 5000, `runs at real speed from the set instant: ${elapsed} ms`);

      const frozen = await f.api('PUT', '/forgelet/clock', { body: { now: T0, frozen: true } });
      assert.deepEqual(frozen.body, { now: T0, frozen: true });
    });

    it('bad input: 400 naming the parameter', async () => {
      const cases: [string, string, unknown, unknown][] = [
        ['PUT', '/forgelet/clock', {}, { error: 'now, frozen are missing, at least one parameter must be provided' }],
        ['PUT', '/forgelet/clock', { now: 'tomorrow-ish' }, { error: 'now is invalid' }],
        ['PUT', '/forgelet/clock', { frozen: 'maybe' }, { error: 'frozen is invalid' }],
        ['POST', '/forgelet/clock/advance', {}, { error: 'seconds is missing' }],
        ['POST', '/forgelet/clock/advance', { seconds: -5 }, { error: 'seconds does not have a valid value' }],
        ['POST', '/forgelet/clock/advance', { seconds: 'a day' }, { error: 'seconds is invalid' }],
      ];
      for (const [method, path, body, expected] of cases) {
        const r = await f.api(method, path, { body });
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.deepEqual((await f.api('GET', '/forgelet/clock')).body, { now: T0, frozen: true });
    });

    it('advance runs every job that comes due, in time order, follow-ups included, each at its own time', async () => {
      runs = [];
      const db = f.forge.database.db;
      const queue = f.forge.deps.queue;
      await queue.enqueue(db, 'test.hourly', {}, { runAt: new Date(at(30 * 60)) });
      await queue.enqueue(db, 'test.chain', { step: 0 }, { runAt: new Date(at(10 * HOUR + 15 * 60)) });
      await queue.enqueue(db, 'test.once', {}, { runAt: new Date(at(24 * HOUR)) }); // exactly at the end
      await queue.enqueue(db, 'test.once', {}, { runAt: new Date(at(24 * HOUR + 1)) }); // just after

      const r = await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 24 * HOUR } });
      expectStatus(r, 200);
      assert.deepEqual(r.body, { now: at(24 * HOUR), frozen: true, jobs_run: 24 + 3 + 1 });

      const hourly = runs.filter((x) => x.kind === 'hourly').map((x) => x.now);
      assert.deepEqual(hourly, Array.from({ length: 24 }, (_, i) => at(i * HOUR + 30 * 60)));
      const chain = runs.filter((x) => x.kind.startsWith('chain'));
      assert.deepEqual(chain.map((x) => [x.kind, x.now]), [
        ['chain0', at(10 * HOUR + 15 * 60)],
        ['chain1', at(11 * HOUR + 45 * 60)],
        ['chain2', at(13 * HOUR + 15 * 60)],
      ]);
      assert.deepEqual(runs.filter((x) => x.kind === 'once').map((x) => x.now), [at(24 * HOUR)]);
      // In time order overall, and the clock stood at each job's time while it ran.
      const times = runs.map((x) => x.now);
      assert.deepEqual(times, [...times].sort());
      for (const x of runs) assert.equal(x.clock, x.now, `${x.kind} saw the clock at its own time`);

      // The next hourly run waits for the next advance; the job due just after ran with it.
      runs = [];
      const r2 = await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 1800 } });
      assert.equal(r2.body.jobs_run, 2);
      assert.deepEqual(runs.map((x) => [x.kind, x.now]), [['once', at(24 * HOUR + 1)], ['hourly', at(24 * HOUR + 30 * 60)]]);
    });

    it('advance by 0 runs what is due now; a running clock keeps running from the target', async () => {
      runs = [];
      const now = clock.now();
      await f.forge.deps.queue.enqueue(f.forge.database.db, 'test.once', {}, { runAt: now });
      const zero = await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 0 } });
      assert.deepEqual(zero.body, { now: now.toISOString(), frozen: true, jobs_run: 1 });

      expectStatus(await f.api('PUT', '/forgelet/clock', { body: { frozen: false } }), 200);
      const before = Date.parse((await f.api('GET', '/forgelet/clock')).body.now);
      const r = await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 7200 } });
      assert.equal(r.body.frozen, false);
      const moved = Date.parse(r.body.now) - before;
      assert.ok(moved >= 7200_000 && moved < 7200_000 + 5000, `moved ${moved} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(clock.now().getTime() > Date.parse(r.body.now), 'still running after the advance');
      clock.set(new Date(r.body.now), true);
    });

    it('iteration cadences roll over when the clock advances', async () => {
      clock.set(new Date(T0), true);
      const group = await createGroup(f, f.rootToken, { name: 'Rolling', path: 'rolling' });
      const cadence = await f.api('POST', `/forgelet/groups/${group.id}/iteration_cadences`, {
        body: { title: 'Weekly', start_date: '2024-06-03', duration_in_weeks: 1, iterations_in_advance: 2, automatic: true },
      });
      expectStatus(cadence, 201);
      const iterations = async () => (await f.api('GET', `/groups/${group.id}/iterations?per_page=100`)).body.map((i: any) => [i.start_date, i.state]);
      await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 0 } });
      assert.deepEqual(await iterations(), [['2024-06-03', 2], ['2024-06-10', 1], ['2024-06-17', 1]]);
      const r = await f.api('POST', '/forgelet/clock/advance', { body: { seconds: 14 * 24 * HOUR } });
      expectStatus(r, 200);
      assert.equal(r.body.now, '2024-06-17T00:00:00.000Z');
      assert.deepEqual(await iterations(), [
        ['2024-06-03', 3], ['2024-06-10', 3], ['2024-06-17', 2], ['2024-06-24', 1], ['2024-07-01', 1],
      ]);
    });

    it('the in-process clock of startForgelet advances the same way', async () => {
      runs = [];
      await f.forge.deps.queue.enqueue(f.forge.database.db, 'test.once', {}, { runAt: new Date(clock.now().getTime() + 60_000) });
      const before = f.clock.now().getTime();
      const r = await f.clock.advance(120);
      assert.equal(r.jobs_run, 1);
      assert.equal(f.clock.now().getTime() - before, 120_000);
      assert.equal(runs.length, 1);
      f.clock.set('2030-01-01T00:00:00Z');
      assert.deepEqual((await f.api('GET', '/forgelet/clock')).body, { now: '2030-01-01T00:00:00.000Z', frozen: true });
    });

    it('admin only', async () => {
      const plain = await f.createUser('clockplain');
      for (const [method, path, body] of [['GET', '/forgelet/clock', undefined], ['PUT', '/forgelet/clock', { frozen: true }], ['POST', '/forgelet/clock/advance', { seconds: 1 }]] as const) {
        const r = await f.api(method, path, { token: plain.token, body });
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }], `${method} ${path}`);
      }
    });
  });
}
