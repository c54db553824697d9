/**
 * The ingest write-behind buffer: a clean shutdown writes every accepted event, a failed
 * write loses nothing, concurrent events and two processes on one database add up.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestBufferOf, openDatabase } from '@forgelet/core';
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

async function countRows(url: string, table: 'error_tracking_error_events' | 'error_tracking_errors'): Promise<number> {
  const handle = openDatabase(url);
  try {
    const row = await handle.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await handle.destroy();
  }
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: error tracking ingest buffer`, () => {
    let db: { url: string; drop(): Promise<void> };
    before(async () => {
      db = await durableDatabase(dialect);
    });
    after(() => db.drop());

    it('a clean shutdown writes every accepted event still in the buffer', async () => {
      const running = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      const f = asTest(running);
      const project = await f.api('POST', '/projects', { body: { name: 'flush' } });
      expectStatus(project, 201);
      const { key } = await enableTracking(f, project.body.id);
      // Nothing is written until shutdown: no timer fires, no batch fills.
      ingestBufferOf(running.forge.deps).configure({ delayMs: 3_600_000, maxBatch: 1_000_000, softLimit: 1_000_000 });
      const sent = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          i % 2 ? store(f, project.body.id, key, exceptionEvent({ user: { id: `u${i % 7}` } })) : sendEnvelope(f, project.body.id, key, envelope({}, [{ type: 'event', payload: exceptionEvent({ value: `v${i % 3}` }) }])),
        ),
      );
      assert.deepEqual(new Set(sent.map((r) => r.status)), new Set([200]));
      const pending = await running.forge.database.db.selectFrom('error_tracking_error_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(Number(pending.n), 0, 'events are buffered, not yet written');
      assert.equal(ingestBufferOf(running.forge.deps).pending, 60);
      await running.stop();
      assert.equal(await countRows(db.url, 'error_tracking_error_events'), 60);
      assert.equal(await countRows(db.url, 'error_tracking_errors'), 4);
    });

    it('a failed write loses nothing: the batch is written again', async () => {
      const running = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      const f = asTest(running);
      const project = await f.api('POST', '/projects', { body: { name: 'retry' } });
      const { key } = await enableTracking(f, project.body.id);
      const kdb = running.forge.deps.db;
      const original = kdb.transaction.bind(kdb);
      let failures = 0;
      (kdb as { transaction: unknown }).transaction = () => {
        if (failures < 2) {
          failures++;
          return { execute: async () => Promise.reject(new Error('database is unavailable')) };
        }
        return original();
      };
      try {
        for (let i = 0; i < 5; i++) expectStatus(await store(f, project.body.id, key, exceptionEvent({ value: 'retried' })), 200);
        await new Promise((r) => setTimeout(r, 100)); // the automatic write fails and is rescheduled
        assert.ok(failures >= 1);
        assert.equal(ingestBufferOf(running.forge.deps).pending, 5);
      } finally {
        (kdb as { transaction: unknown }).transaction = original;
      }
      const list = await f.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors?search=retried`);
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((e: any) => e.count), [5]);
      await running.stop();
    });

    it('events of a project deleted before they are written go with it; the rest of the batch is written', async () => {
      const running = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      const f = asTest(running);
      const kept = (await f.api('POST', '/projects', { body: { name: 'kept' } })).body;
      const doomed = (await f.api('POST', '/projects', { body: { name: 'doomed' } })).body;
      const keptKey = (await enableTracking(f, kept.id)).key;
      const doomedKey = (await enableTracking(f, doomed.id)).key;
      const buffer = ingestBufferOf(running.forge.deps);
      buffer.configure({ delayMs: 3_600_000 });
      for (let i = 0; i < 3; i++) {
        expectStatus(await store(f, kept.id, keptKey, exceptionEvent({ value: 'kept' })), 200);
        expectStatus(await store(f, doomed.id, doomedKey, exceptionEvent({ value: 'doomed' })), 200);
      }
      await running.forge.deps.db.deleteFrom('projects').where('id', '=', doomed.id).execute();
      const dropped = buffer.stats.dropped;
      await buffer.flush();
      assert.equal(buffer.pending, 0);
      assert.equal(buffer.stats.dropped - dropped, 3);
      const list = await f.api('GET', `/forgelet/projects/${kept.id}/error_tracking/errors`);
      assert.deepEqual(list.body.map((e: any) => [e.message, e.count]), [['kept', 3]]);
      await running.stop();
    });

    it('two processes on one database and concurrent requests add up (counters are kept in SQL)', async () => {
      const a = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      const b = await startForgelet({ databaseUrl: db.url, workers: false, rootToken: 'glpat-buffer-test-root' });
      try {
        const fa = asTest(a);
        const fb = asTest(b);
        const project = await fa.api('POST', '/projects', { body: { name: 'twoprocs' } });
        const { key } = await enableTracking(fa, project.body.id);
        ingestBufferOf(a.forge.deps).configure({ maxBatch: 7 });
        const send = (f: TestForgelet, i: number) => store(f, project.body.id, key, exceptionEvent({ value: 'shared', user: { id: `user-${i % 30}` } }));
        const results = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i % 2 ? fa : fb, i)));
        assert.deepEqual(new Set(results.map((r) => r.status)), new Set([200]));
        await ingestBufferOf(b.forge.deps).flush();
        const list = await fa.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors?search=shared`);
        assert.deepEqual(list.body.map((e: any) => [e.count, e.user_count]), [[200, 30]]);
        const events = await fa.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors/${list.body[0].id}/events?per_page=1`);
        assert.equal(events.headers.get('x-total'), '200');
      } finally {
        await a.stop();
        await b.stop();
      }
    });
  });
}
