import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createForge, type Forge } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: database handle`, () => {
    let forge: Forge;
    let url: string;
    let drop: () => Promise<void>;

    before(async () => {
      const database = await createTestDatabaseUrl(dialect);
      url = database.url;
      drop = database.drop;
      forge = await createForge({ databaseUrl: url });
    });
    after(async () => {
      await forge.close();
      await drop();
    });

    it('reports health and migrates idempotently', async () => {
      assert.equal(forge.database.dialect, dialect);
      assert.equal(await forge.health(), true);
      if (dialect === 'postgres') {
        const again = await createForge({ databaseUrl: url });
        assert.equal(await again.health(), true, 'a second start on the same database migrates nothing and works');
        await again.close();
      }
    });

    it('plans with random_page_cost 2 on every pooled connection, as GitLab\'s bundled PostgreSQL', { skip: dialect !== 'postgres' && 'PostgreSQL only' }, async () => {
      const { sql } = await import('kysely');
      // several connections at once: each new one is set before its first query
      const values = await Promise.all(
        Array.from({ length: 6 }, () => forge.deps.db.transaction().execute(async (trx) => (await sql<{ random_page_cost: string }>`show random_page_cost`.execute(trx)).rows[0]!.random_page_cost)),
      );
      assert.deepEqual(values, Array(6).fill('2'));
    });

    it('survives the server dropping idle connections (no crash, reconnects)', { skip: dialect !== 'postgres' && 'PostgreSQL only: SQLite has no server connections' }, async () => {
      // fill the pool with idle connections
      await Promise.all(Array.from({ length: 4 }, () => forge.health()));
      const admin = new pg.Client({ connectionString: url });
      admin.on('error', () => {});
      await admin.connect();
      try {
        const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
        assert.ok(killed.rowCount! >= 1);
      } finally {
        await admin.end();
      }
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(await forge.health(), true);
    });
  });
}
