/**
 * The collector's group commit (ingest-buffer.ts): an event is answered only once it is
 * committed, the requests of one turn share a transaction, a failing batch is answered per
 * request (the failing one gets its error, the others are written), and two processes on one
 * database add up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { ingestBufferOf, normalizeEvent, openDatabase, type PendingEvent } from '@forgelet/core';
import { startForgelet, type RunningForgelet } from '@forgelet/server';
import { createTestDatabaseUrl, DIALECTS, type Dialect } from '../support/databases.js';
import { enableTracking, envelope, exceptionEvent, sendEnvelope, store } from './error-tracking.helpers.js';
import { expectStatus } from './http.js';
import type { TestForgelet } from '../support/server.js';

/** A database that outlives the servers on it (a SQLite file, or a PostgreSQL database). */
async function durableDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabaseUrl('postgres');
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-et-'));
  return { url: join(dir, 'forgelet.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The few TestForgelet members the payload helpers use. */
function asTest(running: RunningForgelet): TestForgelet {
  const api = async (method: string, path: string, options: { body?: unknown } = {}) => {
    const res = await fetch(`${running.url}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': running.rootToken!, 'Content-Type': 'application/json' },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : text };
  };
  return { ...running, api } as unknown as TestForgelet;
}

/** Event ids stored, read through a connection of its own (what another process would see). */
async function storedEventIds(url: string): Promise<Set<string>> {
  const handle = openDatabase(url);
  try {
    const rows = await handle.db.selectFrom('error_tracking_error_events').select('event_id').execute();
    return new Set(rows.map((r) => r.event_id));
  } finally {
    await handle.destroy();
  }
}

/** A trigger that makes the database refuse events whose message is `poison`, as a failing insert would. */
async function poisonTrigger(dialect: Dialect, db: RunningForgelet['forge']['deps']['db']): Promise<() => Promise<void>> {
  if (dialect === 'sqlite') {
    await sql
      .raw(`create trigger forgelet_test_poison before insert on error_tracking_error_events when new.message = 'poison' begin select raise(abort, 'poisoned event'); end`)
      .execute(db);
    return async () => void (await sql.raw('drop trigger forgelet_test_poison').execute(db));
  }
  await sql
    .raw(`create function forgelet_test_poison() returns trigger language plpgsql as $$ begin if new.message = 'poison' then raise exception 'poisoned event'; end if; return new; end $$`)
    .execute(db);
  await sql.raw('create trigger forgelet_test_poison before insert on error_tracking_error_events for each row execute function forgelet_test_poison()').execute(db);
  return async () => {
    await sql.raw('drop trigger forgelet_test_poison on error_tracking_error_events').execute(db);
    await sql.raw('drop function forgelet_test_poison()').execute(db);
  };
}

const pending = (projectId: number, value: string): PendingEvent[] => {
  const n = normalizeEvent(exceptionEvent({ value }), new Date());
  assert.ok(n.ok);
  return [{ ...n.value, projectId, receivedAt: new Date().toISOString() }];
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: error tracking ingest group commit`, () => {
    let db: { url: string; drop(): Promise<void> };
    let running: RunningForgelet;
    let f: TestForgelet;
    before(async () => {
      db = await durableDatabase(dialect);
      running = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      f = asTest(running);
    });
    after(async () => {
      await running.stop();
      await db.drop();
    });

    it('answers 200 only once the event is committed: another connection sees every acknowledged event at the answer', async () => {
      const project = await f.api('POST', '/projects', { body: { name: 'durable' } });
      expectStatus(project, 201);
      const { key } = await enableTracking(f, project.body.id);
      const batches = ingestBufferOf(running.forge.deps).stats.batches;
      const missing: string[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const event = exceptionEvent({ value: `v${i % 3}`, user: { id: `u${i % 7}` } });
          const res =
            i % 2 ? await store(f, project.body.id, key, event) : await sendEnvelope(f, project.body.id, key, envelope({}, [{ type: 'event', payload: event }]));
          expectStatus(res, 200);
          // Checked right at the answer, from a connection of its own.
          if (!(await storedEventIds(db.url)).has(event.event_id as string)) missing.push(event.event_id as string);
        }),
      );
      assert.deepEqual(missing, []);
      // (Whether requests over HTTP arrive in one turn depends on the machine's load: that
      // handed-over requests of one turn share a transaction is checked by the next test.)
      assert.ok(ingestBufferOf(running.forge.deps).stats.batches - batches <= 40);
      const list = await f.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors`);
      assert.deepEqual(list.body.map((e: any) => e.count).sort(), [13, 13, 14]);
    });

    it('a failing batch answers its failing request with the error and writes the others', async () => {
      const project = (await f.api('POST', '/projects', { body: { name: 'poisoned' } })).body;
      const doomed = (await f.api('POST', '/projects', { body: { name: 'doomed' } })).body;
      const buffer = ingestBufferOf(running.forge.deps);
      const drop = await poisonTrigger(dialect, running.forge.deps.db);
      try {
        await running.forge.deps.db.deleteFrom('projects').where('id', '=', doomed.id).execute();
        const failures = buffer.stats.failures;
        const dropped = buffer.stats.dropped;
        // Handed over in one turn: one batch, which fails, then request by request.
        const outcomes = await Promise.allSettled([
          buffer.add(pending(project.id, 'first'), []),
          buffer.add(pending(project.id, 'poison'), []),
          buffer.add(pending(doomed.id, 'of a deleted project'), []),
          buffer.add(pending(project.id, 'last'), []),
        ]);
        assert.deepEqual(
          outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as Error).message)),
          ['ok', 'poisoned event', '404 Project Not Found', 'ok'],
        );
        assert.equal(buffer.stats.failures - failures, 2);
        assert.equal(buffer.stats.dropped - dropped, 1);
        const stored = await running.forge.deps.db.selectFrom('error_tracking_error_events').select('message').where('project_id', '=', project.id).orderBy('id').execute();
        // (written again request by request, concurrently: on PostgreSQL in either order)
        assert.deepEqual(stored.map((r) => r.message).sort(), ['first', 'last']);

        // Over HTTP: the poisoned request gets 500, the ones beside it 200 and are stored.
        const { key } = await enableTracking(f, project.id);
        const events = Array.from({ length: 12 }, (_, i) => exceptionEvent({ value: i === 5 ? 'poison' : `fine ${i}` }));
        const answers = await Promise.all(events.map((e) => store(f, project.id, key, e)));
        assert.deepEqual(answers.map((r) => r.status), events.map((_, i) => (i === 5 ? 500 : 200)));
        assert.deepEqual(JSON.parse(answers[5]!.text), { message: '500 Internal Server Error' });
        const ids = await storedEventIds(db.url);
        assert.deepEqual(events.map((e) => ids.has(e.event_id as string)), events.map((_, i) => i !== 5));
      } finally {
        await drop();
      }
    });

    it('while every write fails, callers get their errors, and past the limit 429 with Retry-After', async () => {
      const project = (await f.api('POST', '/projects', { body: { name: 'down' } })).body;
      const { key } = await enableTracking(f, project.id);
      const kdb = running.forge.deps.db;
      const original = kdb.transaction.bind(kdb);
      const buffer = ingestBufferOf(running.forge.deps);
      (kdb as { transaction: unknown }).transaction = () => ({ execute: async () => Promise.reject(new Error('database is unavailable')) });
      try {
        const down = exceptionEvent({ value: 'while down' });
        expectStatus(await store(f, project.id, key, down), 500);
        buffer.configure({ hardLimit: 1 });
        // One waits (its turn has not ended), the next is over the limit.
        const first = buffer.add(pending(project.id, 'waiting'), []);
        await assert.rejects(buffer.add(pending(project.id, 'refused'), []), (err: any) => err.code === 'rate_limited' && err.headers['Retry-After'] === '2');
        await assert.rejects(first, /database is unavailable/);
        assert.equal(buffer.pending, 0);
      } finally {
        (kdb as { transaction: unknown }).transaction = original;
        buffer.configure({ hardLimit: 50_000 });
      }
      const up = exceptionEvent({ value: 'up again' });
      expectStatus(await store(f, project.id, key, up), 200);
      const list = await f.api('GET', `/forgelet/projects/${project.id}/error_tracking/errors`);
      assert.deepEqual(list.body.map((e: any) => [e.message, e.count]), [['up again', 1]]);
    });

    it('a clean shutdown answers the requests in flight after writing their events', async () => {
      const other = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      const o = asTest(other);
      const project = (await o.api('POST', '/projects', { body: { name: 'shutdown' } })).body;
      const { key } = await enableTracking(o, project.id);
      const acknowledged: string[] = [];
      let stopping = false;
      const sender = async (s: number) => {
        for (let n = 0; !stopping || n < 3; n++) {
          const event = exceptionEvent({ value: `s${(s + n) % 2}` });
          const res = await store(o, project.id, key, event).catch(() => null);
          if (!res) return; // refused: the server has stopped listening
          expectStatus(res, 200);
          acknowledged.push(event.event_id as string);
        }
      };
      const senders = Promise.all(Array.from({ length: 8 }, (_, s) => sender(s)));
      while (acknowledged.length < 20) await new Promise((r) => setTimeout(r, 5));
      stopping = true;
      await other.stop();
      await senders;
      const ids = await storedEventIds(db.url);
      assert.deepEqual(acknowledged.filter((id) => !ids.has(id)), []);
    });

    it('two processes on one database and concurrent requests add up (counters are kept in SQL)', async () => {
      const b = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      try {
        const fb = asTest(b);
        const project = await f.api('POST', '/projects', { body: { name: 'twoprocs' } });
        const { key } = await enableTracking(f, project.body.id);
        ingestBufferOf(running.forge.deps).configure({ maxBatch: 7 });
        const send = (t: TestForgelet, i: number) => store(t, project.body.id, key, exceptionEvent({ value: 'shared', user: { id: `user-${i % 30}` } }));
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i % 2 ? f : fb, i)));
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
        const list = await f.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors?search=shared`);
        assert.deepEqual(list.body.map((e: any) => [e.count, e.user_count]), [[200, 30]]);
        const events = await f.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors/${list.body[0].id}/events?per_page=1`);
        assert.equal(events.headers.get('x-total'), '200');
      } finally {
        ingestBufferOf(running.forge.deps).configure({ maxBatch: 1000 });
        await b.stop();
      }
    });
  });
}
