import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createForge, fixedClock, LEASE_MS, Queue, type ControllableClock, type Forge } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

const T0 = '2024-03-01T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms);
const SECOND = 1000;

for (const dialect of DIALECTS) {
  describe(`${dialect}: queue`, () => {
    let forge: Forge;
    let drop: () => Promise<void>;
    let clock: ControllableClock;
    let queue: Queue;

    const jobs = () => forge.database.db.selectFrom('queue_jobs').selectAll().orderBy('id').execute();
    const job = async (id: number) => forge.database.db.selectFrom('queue_jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    before(async () => {
      const database = await createTestDatabaseUrl(dialect);
      drop = database.drop;
      forge = await createForge({ databaseUrl: database.url });
    });
    after(async () => {
      await forge.close();
      await drop();
    });
    beforeEach(async () => {
      await forge.database.db.deleteFrom('queue_jobs').execute();
      clock = fixedClock(T0);
      queue = new Queue(forge.database.db, forge.database.dialect, clock);
    });

    it('runs a due job once with its payload and the clock time, then marks it done', async () => {
      const seen: unknown[] = [];
      queue.register('greet', async (payload, ctx) => {
        seen.push({ payload, now: ctx.now.toISOString(), attempts: ctx.job.attempts });
      });
      const id = await queue.enqueue(forge.database.db, 'greet', { name: 'ada', n: [1, 2] });
      assert.equal(typeof id, 'number');
      const pending = await job(id!);
      assert.equal(pending.status, 'pending');
      assert.equal(pending.run_at, T0);
      assert.equal(pending.attempts, 0);
      assert.equal(pending.max_attempts, 5);

      assert.equal(await queue.runDue(), 1);
      assert.deepEqual(seen, [{ payload: { name: 'ada', n: [1, 2] }, now: T0, attempts: 1 }]);
      const done = await job(id!);
      assert.equal(done.status, 'done');
      assert.equal(done.finished_at, T0);
      assert.equal(done.lease_owner, null);
      assert.equal(done.lease_expires_at, null);
      assert.equal(done.attempts, 1);

      assert.equal(await queue.runDue(), 0, 'a finished job never runs again');
      assert.equal(seen.length, 1);
    });

    it('waits for runAt and runs due jobs in run_at, then id order', async () => {
      const order: string[] = [];
      queue.register('step', async (p: { name: string }) => void order.push(p.name));
      await queue.enqueue(forge.database.db, 'step', { name: 'late' }, { runAt: at(60 * SECOND) });
      await queue.enqueue(forge.database.db, 'step', { name: 'early-a' }, { runAt: at(30 * SECOND) });
      await queue.enqueue(forge.database.db, 'step', { name: 'early-b' }, { runAt: at(30 * SECOND) });
      await queue.enqueue(forge.database.db, 'step', { name: 'now' });

      assert.equal(await queue.runDue(), 1);
      assert.deepEqual(order, ['now']);
      assert.equal(await queue.runDue(at(30 * SECOND - 1)), 0, 'not due a millisecond early');
      clock.set(at(60 * SECOND));
      assert.equal(await queue.runDue(), 3);
      assert.deepEqual(order, ['now', 'early-a', 'early-b', 'late']);
    });

    it('retries a failing job with exponential backoff and marks it failed after max_attempts', async () => {
      let calls = 0;
      queue.register('flaky', async () => {
        calls++;
        throw new Error(`boom ${calls}`);
      });
      const id = (await queue.enqueue(forge.database.db, 'flaky', null, { maxAttempts: 3 }))!;

      assert.equal(await queue.runDue(at(0)), 1);
      let row = await job(id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 1);
      assert.equal(row.last_error, 'boom 1');
      assert.equal(row.run_at, at(10 * SECOND).toISOString(), 'first retry after 10 s');
      assert.equal(row.lease_owner, null);
      assert.equal(row.finished_at, null);

      assert.equal(await queue.runDue(at(10 * SECOND - 1)), 0);
      assert.equal(await queue.runDue(at(10 * SECOND)), 1);
      row = await job(id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 2);
      assert.equal(row.last_error, 'boom 2');
      assert.equal(row.run_at, at(30 * SECOND).toISOString(), 'second retry 20 s after the second attempt');

      clock.set(at(30 * SECOND));
      assert.equal(await queue.runDue(), 1);
      row = await job(id);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 3);
      assert.equal(row.last_error, 'boom 3');
      assert.equal(row.finished_at, at(30 * SECOND).toISOString());

      assert.equal(await queue.runDue(at(24 * 3600 * SECOND)), 0, 'a failed job is not retried');
      assert.equal(calls, 3);
    });

    it('succeeds on a retry after one failure', async () => {
      let calls = 0;
      queue.register('once-bad', async () => {
        if (++calls === 1) throw new Error('transient');
      });
      const id = (await queue.enqueue(forge.database.db, 'once-bad', {}))!;
      assert.equal(await queue.runDue(), 1);
      assert.equal((await job(id)).status, 'pending');
      assert.equal(await queue.runDue(at(10 * SECOND)), 1);
      const row = await job(id);
      assert.equal(row.status, 'done');
      assert.equal(row.attempts, 2);
      assert.equal(row.last_error, 'transient', 'the last error is kept for diagnosis');
    });

    it('a job with no registered handler fails its attempt with a clear error', async () => {
      const id = (await queue.enqueue(forge.database.db, 'nobody-handles-this', {}, { maxAttempts: 1 }))!;
      assert.equal(await queue.runDue(), 1);
      const row = await job(id);
      assert.equal(row.status, 'failed');
      assert.equal(row.last_error, 'no handler for job kind nobody-handles-this');
    });

    it('a handler returning retryAt reschedules the job without counting an attempt', async () => {
      let polls = 0;
      queue.register('poll', async () => {
        polls++;
        return polls < 3 ? { retryAt: at(polls * 60 * SECOND) } : undefined;
      });
      const id = (await queue.enqueue(forge.database.db, 'poll', {}, { maxAttempts: 1 }))!;
      assert.equal(await queue.runDue(), 1);
      let row = await job(id);
      assert.equal(row.status, 'pending');
      assert.equal(row.attempts, 0);
      assert.equal(row.run_at, at(60 * SECOND).toISOString());
      assert.equal(await queue.runDue(at(59 * SECOND)), 0);
      assert.equal(await queue.runDue(at(60 * SECOND)), 1);
      assert.equal((await job(id)).run_at, at(120 * SECOND).toISOString());
      assert.equal(await queue.runDue(at(120 * SECOND)), 1);
      row = await job(id);
      assert.equal(row.status, 'done', 'max_attempts=1 does not limit polling');
      assert.equal(polls, 3);
    });

    it('dedupes by unique_key while a job with that key is pending', async () => {
      const seen: number[] = [];
      queue.register('sync', async (p: { v: number }) => void seen.push(p.v));
      const first = await queue.enqueue(forge.database.db, 'sync', { v: 1 }, { uniqueKey: 'project:7' });
      const second = await queue.enqueue(forge.database.db, 'sync', { v: 2 }, { uniqueKey: 'project:7' });
      const other = await queue.enqueue(forge.database.db, 'sync', { v: 3 }, { uniqueKey: 'project:8' });
      assert.equal(typeof first, 'number');
      assert.equal(second, null);
      assert.equal(typeof other, 'number');
      assert.deepEqual((await jobs()).map((j) => j.unique_key), ['project:7', 'project:8']);

      assert.equal(await queue.runDue(), 2);
      assert.deepEqual(seen, [1, 3]);
      const again = await queue.enqueue(forge.database.db, 'sync', { v: 4 }, { uniqueKey: 'project:7' });
      assert.equal(typeof again, 'number', 'a finished job no longer blocks its key');
      assert.notEqual(again, first);
      assert.equal(await queue.runDue(), 1);
      assert.deepEqual(seen, [1, 3, 4]);
    });

    it('concurrent enqueues with one unique_key make exactly one job (enforced by the database)', async () => {
      const ids = await Promise.all(Array.from({ length: 8 }, (_, v) => queue.enqueue(forge.database.db, 'sync', { v }, { uniqueKey: 'race' })));
      assert.equal(ids.filter((id) => id !== null).length, 1);
      assert.equal((await jobs()).filter((j) => j.unique_key === 'race').length, 1);
    });

    it('enqueues inside the caller transaction: a rollback leaves no job', async () => {
      await assert.rejects(
        forge.database.db.transaction().execute(async (trx) => {
          await queue.enqueue(trx, 'step', {});
          throw new Error('rollback');
        }),
        /rollback/,
      );
      assert.deepEqual(await jobs(), []);
    });

    it('claims under a lease and claims again only after the lease expires', async () => {
      await queue.enqueue(forge.database.db, 'leased', { x: 1 });
      const claimed = await queue.claim(at(0));
      assert.ok(claimed);
      assert.equal(claimed.lease_owner, queue.owner);
      assert.equal(claimed.lease_expires_at, at(LEASE_MS).toISOString());
      assert.equal(claimed.attempts, 1);
      const stored = await job(claimed.id);
      assert.equal(stored.lease_owner, queue.owner);
      assert.equal(stored.lease_expires_at, at(LEASE_MS).toISOString());
      assert.equal(stored.attempts, 1);

      const other = new Queue(forge.database.db, forge.database.dialect, clock);
      assert.notEqual(other.owner, queue.owner);
      assert.equal(await other.claim(at(0)), null, 'a leased job is not claimed twice');
      assert.equal(await queue.claim(at(LEASE_MS - 1)), null);
      assert.equal(await other.claim(at(LEASE_MS)), null, 'the lease holds up to its expiry');

      // The first worker "crashed": once the lease has expired another worker takes the job.
      const reclaimed = await other.claim(at(LEASE_MS + 1));
      assert.ok(reclaimed);
      assert.equal(reclaimed.id, claimed.id);
      assert.equal(reclaimed.lease_owner, other.owner);
      assert.equal(reclaimed.attempts, 2);
      assert.equal(reclaimed.lease_expires_at, at(2 * LEASE_MS + 1).toISOString());

      let ran = 0;
      other.register('leased', async () => void ran++);
      assert.equal(await other.runDue(at(3 * LEASE_MS)), 1);
      assert.equal(ran, 1);
      assert.equal((await job(claimed.id)).status, 'done');
    });

    it("a dead worker's job is taken over within 30 s, before a schedule firing every minute would miss a run", async () => {
      await queue.enqueue(forge.database.db, 'orphan', {});
      assert.ok(await queue.claim(at(0)), 'claimed by a worker that then dies (SIGKILL: it never finishes nor renews)');
      const other = new Queue(forge.database.db, forge.database.dialect, clock);
      let ran = 0;
      other.register('orphan', async () => void ran++);
      assert.equal(await other.runDue(at(29 * SECOND)), 0);
      assert.equal(await other.runDue(at(31 * SECOND)), 1);
      assert.equal(ran, 1);
    });

    it('a running job renews its lease, so that a long job is not claimed by another worker meanwhile', async () => {
      const renewing = new Queue(forge.database.db, forge.database.dialect, clock, { renewEveryMs: 10 });
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let runs = 0;
      renewing.register('long', async () => {
        runs++;
        await gate;
      });
      const id = (await renewing.enqueue(forge.database.db, 'long', {}))!;
      const running = renewing.runDue(at(0));
      // The job runs on while the clock passes the first lease's expiry: each renewal moves it on.
      for (let s = 10; s <= 90; s += 10) {
        clock.set(at(s * SECOND));
        await new Promise((r) => setTimeout(r, 40));
        const stored = await job(id);
        assert.ok(Date.parse(stored.lease_expires_at!) > Date.parse(at(s * SECOND).toISOString()), `lease renewed at ${s} s: ${stored.lease_expires_at}`);
      }
      const other = new Queue(forge.database.db, forge.database.dialect, clock);
      other.register('long', async () => void runs++);
      assert.equal(await other.claim(), null, 'still leased after three lease periods');
      release();
      assert.equal(await running, 1);
      assert.equal(runs, 1);
      assert.equal((await job(id)).status, 'done');
    });

    it('start() polls in the background and stop() waits for the job in flight', async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let finished = false;
      queue.register('bg', async () => {
        await gate;
        finished = true;
      });
      const id = (await queue.enqueue(forge.database.db, 'bg', {}))!;
      queue.start(5);
      const deadline = Date.now() + 5000;
      while ((await job(id)).lease_owner === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal((await job(id)).lease_owner, queue.owner, 'the poller claimed the job');
      const stopped = queue.stop();
      release();
      await stopped;
      assert.equal(finished, true);
      assert.equal((await job(id)).status, 'done');
    });
  });

  describe(`${dialect}: queue shared by two processes`, () => {
    let a: Forge;
    let b: Forge;
    let cleanup: () => Promise<void>;

    before(async () => {
      let url: string;
      if (dialect === 'sqlite') {
        // Two connections to one file, as two processes would have (`:memory:` cannot be shared).
        const dir = mkdtempSync(join(tmpdir(), 'forgelet-queue-'));
        url = join(dir, 'forgelet.db');
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      } else {
        const database = await createTestDatabaseUrl(dialect);
        url = database.url;
        cleanup = database.drop;
      }
      a = await createForge({ databaseUrl: url, clock: fixedClock(T0) });
      b = await createForge({ databaseUrl: url, clock: fixedClock(T0) });
    });
    after(async () => {
      await a.close();
      await b.close();
      await cleanup();
    });

    it('never runs a job twice when both workers drain the queue at once', async () => {
      const runs: { n: number; by: string }[] = [];
      const handler = (by: string) => async (p: { n: number }) => {
        runs.push({ n: p.n, by });
        await new Promise((r) => setImmediate(r));
      };
      a.deps.queue.register('work', handler('a'));
      b.deps.queue.register('work', handler('b'));
      const N = 40;
      for (let n = 0; n < N; n++) await a.deps.queue.enqueue(a.deps.db, 'work', { n });

      const [ranA, ranB] = await Promise.all([a.deps.queue.runDue(), b.deps.queue.runDue()]);
      assert.equal(ranA + ranB, N);
      assert.deepEqual(runs.map((r) => r.n).sort((x, y) => x - y), Array.from({ length: N }, (_, i) => i), 'each job ran exactly once');
      const rows = await b.deps.db.selectFrom('queue_jobs').select(['status', 'attempts', 'last_error']).execute();
      assert.equal(rows.length, N);
      assert.ok(rows.every((r) => r.status === 'done' && r.attempts === 1 && r.last_error === null), JSON.stringify(rows.filter((r) => r.status !== 'done')));
    });
  });
}
