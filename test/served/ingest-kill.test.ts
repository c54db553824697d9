/**
 * Nothing the Sentry collector acknowledged is lost when the process dies: `forgelet serve`
 * takes envelopes from concurrent senders, is SIGKILLed in the middle of the burst, started
 * again on the same database, and every event answered 200 before the kill is there. On
 * SQLite, WAL checkpoints run in the served process's worker thread meanwhile.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { openDatabase } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { envelope, eventId, exceptionEvent } from '../server/error-tracking.helpers.js';

const SENDERS = 12;

for (const dialect of DIALECTS) {
  describe(`${dialect}: SIGKILL during a burst of Sentry envelopes`, () => {
    let dataDir: string;
    let db: { url: string; drop(): Promise<void> };
    const servers: ServedForgelet[] = [];

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'forgelet-ingest-kill-'));
      db = dialect === 'postgres' ? await createTestDatabaseUrl('postgres') : { url: join(dataDir, 'forgelet.db'), drop: async () => {} };
    });
    after(async () => {
      for (const s of servers) await s.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('every event answered 200 before the kill is in the database after the restart', async () => {
      const rootToken = 'glpat-ingest-kill-root-token';
      const first = await startServed(dialect, { dataDir, databaseUrl: db.url, rootToken });
      servers.push(first);
      const project = await first.api('POST', '/projects', { body: { name: 'killed' } });
      assert.equal(project.status, 201, project.text);
      const settings = await first.api('PUT', `/projects/${project.body.id}/error_tracking/settings`, { body: { active: true, integrated: true } });
      assert.equal(settings.status, 200, settings.text);
      const key = new URL(settings.body.gitlab_dsn).username;
      if (dialect === 'sqlite') {
        // While writes are many, WAL checkpoints run in a worker thread of the served process
        // (storage/sqlite-checkpointer.ts), not in a COMMIT past 1,000 pages: a burst of small
        // writes reaches the database file within moments.
        await new Promise((r) => setTimeout(r, 300));
        const before = statSync(db.url).mtimeMs;
        const labels = await Promise.all(
          Array.from({ length: 150 }, (_, i) => first.api('POST', `/projects/${project.body.id}/labels`, { body: { name: `checkpointed-${i}`, color: '#ff0000' } })),
        );
        for (const label of labels) assert.equal(label.status, 201, label.text);
        const deadline = performance.now() + 3000;
        while (statSync(db.url).mtimeMs === before && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        assert.notEqual(statSync(db.url).mtimeMs, before, 'the write was checkpointed into the database file');
      }
      const path = `/api/v4/error_tracking/collector/api/${project.body.id}/envelope/?sentry_version=7&sentry_key=${key}&sentry_client=sentry.javascript.node%2F10.78.0`;

      // Senders in a closed loop, as @sentry/node's transport posts (key in the query, no content type).
      const pool = new Pool(first.url, { connections: SENDERS, pipelining: 1 });
      const acknowledged: { id: string; at: number }[] = [];
      let stop = false;
      let other = 0;
      const sender = async (s: number) => {
        for (let n = 0; !stop; n++) {
          const id = eventId();
          const body = envelope({ event_id: id, sent_at: new Date().toISOString() }, [
            { type: 'event', payload: exceptionEvent({ event_id: id, value: `burst ${(s + n) % 5}`, user: { id: `u${n % 9}` } }) },
          ]);
          try {
            const res = await pool.request({ path, method: 'POST', body });
            await res.body.text();
            if (res.statusCode === 200) acknowledged.push({ id, at: performance.now() });
            else other++;
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const senders = Promise.all(Array.from({ length: SENDERS }, (_, s) => sender(s)));
      // Killed while the burst is going on: events were acknowledged in the last milliseconds before it.
      while (acknowledged.length < 300) await new Promise((r) => setTimeout(r, 10));
      first.child.kill('SIGKILL');
      const killedAt = performance.now();
      await new Promise((r) => first.child.once('exit', r));
      stop = true;
      await senders;
      await pool.destroy();
      assert.equal(other, 0, 'no other status than 200 before the kill');
      const lastMs = acknowledged.filter((a) => killedAt - a.at < 20).length;
      assert.ok(lastMs > 0, 'events were acknowledged within 20 ms of the kill');

      const again = await startServed(dialect, { dataDir, databaseUrl: db.url, rootToken });
      servers.push(again);
      // Read back through the restarted server: the errors count every acknowledged event …
      const errors = await again.api('GET', `/forgelet/projects/${project.body.id}/error_tracking/errors?per_page=100`);
      assert.equal(errors.status, 200, errors.text);
      const counted = errors.body.reduce((n: number, e: { count: number }) => n + e.count, 0);
      assert.ok(counted >= acknowledged.length, `${counted} counted, ${acknowledged.length} acknowledged`);
      // … and each acknowledged event id is stored.
      const handle = openDatabase(db.url);
      try {
        const rows = await handle.db.selectFrom('error_tracking_error_events').select('event_id').where('project_id', '=', project.body.id).execute();
        const stored = new Set(rows.map((r) => r.event_id));
        assert.equal(stored.size, counted, 'one row per counted event');
        const lost = acknowledged.filter((a) => !stored.has(a.id));
        assert.deepEqual(lost.map((a) => `${a.id} acknowledged ${(killedAt - a.at).toFixed(1)} ms before the kill`), []);
      } finally {
        await handle.destroy();
      }
    });
  });
}
