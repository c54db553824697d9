import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createForge, nextIid, type Forge } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: per-parent iids`, () => {
    let forge: Forge;
    let drop: () => Promise<void>;
    before(async () => {
      const database = await createTestDatabaseUrl(dialect);
      drop = database.drop;
      forge = await createForge({ databaseUrl: database.url });
    });
    after(async () => {
      await forge.close();
      await drop();
    });

    it('counts from 1 per usage and scope, without gaps or duplicates under concurrency', async () => {
      const db = forge.database.db;
      const a = await Promise.all(Array.from({ length: 20 }, () => nextIid(db, 'issues', 'project:1')));
      assert.deepEqual([...a].sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
      assert.equal(await nextIid(db, 'issues', 'project:2'), 1, 'another scope starts at 1');
      assert.equal(await nextIid(db, 'merge_requests', 'project:1'), 1, 'another usage starts at 1');
      assert.equal(await nextIid(db, 'issues', 'project:1'), 21);
    });

    it('an iid taken in a rolled-back transaction is given again', async () => {
      const db = forge.database.db;
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          assert.equal(await nextIid(trx, 'epics', 'group:9'), 1);
          throw new Error('rollback');
        }),
        /rollback/,
      );
      assert.equal(await nextIid(db, 'epics', 'group:9'), 1);
    });
  });
}
