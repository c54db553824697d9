import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createForge, getProject, type Forge } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: reads and open transactions`, () => {
    let forge: Forge;
    let drop: () => Promise<void>;
    before(async () => {
      const database = await createTestDatabaseUrl(dialect);
      drop = database.drop;
      forge = await createForge({ databaseUrl: database.url });
      await forge.bootstrapRoot();
    });
    after(async () => {
      await forge.close();
      await drop();
    });

    it("a read during another request's transaction never sees its uncommitted rows", async () => {
      const ctx = await forge.contextFor('root');
      const now = new Date().toISOString();
      let inserted = 0;
      let release!: () => void;
      const holding = new Promise<void>((r) => (release = r));
      const trx = forge.database.db
        .transaction()
        .execute(async (t) => {
          const row = await t
            .insertInto('projects')
            .values({
              namespace_id: ctx.actor.user!.namespace_id!, name: 'Ghost', path: 'ghost', path_with_namespace: 'root/ghost',
              name_with_namespace: 'Administrator / Ghost', visibility: 'private', creator_id: ctx.actor.user!.id,
              created_at: now, updated_at: now, last_activity_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          inserted = row.id;
          await holding;
          throw new Error('rollback');
        })
        .catch((e: Error) => e.message);
      while (!inserted) await new Promise((r) => setTimeout(r, 5));
      const read = getProject(ctx, String(inserted)).then(
        () => 'found',
        (e: { code?: string }) => e.code,
      );
      await new Promise((r) => setTimeout(r, 30));
      release();
      assert.equal(await trx, 'rollback');
      assert.equal(await read, 'not_found');
    });
  });
}
