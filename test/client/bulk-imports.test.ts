/** @forgelet/client BulkImports against two servers: create, lists, show, entities, failures, cancel; errors as ApiError. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { seedSourceGroup, waitForImport } from '../support/bulk-imports.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client bulk imports`, () => {
    let src: TestForgelet;
    let dst: TestForgelet;

    before(async () => {
      [src, dst] = await Promise.all([startTestServer(dialect), startTestServer(dialect)]);
      await seedSourceGroup(src);
      const r = await dst.api('POST', '/groups', { body: { name: 'Into', path: 'into' } });
      assert.equal(r.status, 201);
    });
    after(async () => {
      await Promise.all([src?.stop(), dst?.stop()]);
    });

    it('creates a migration with nested JSON and reads it back', async () => {
      const rec = recordingFetch();
      const api = clientFor(dst, { fetch: rec.fetch });
      const m = await api.bulkImports.create({ url: src.url, access_token: src.rootToken }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'copied', destination_namespace: 'into' },
      ]);
      assert.equal(m.status, 'created');
      const sent = rec.sent.at(-1)!;
      assert.equal(sent.method, 'POST');
      assert.deepEqual(JSON.parse(String(sent.body)).entities[0].destination_namespace, 'into');
      const done = await waitForImport(dst, m.id);
      assert.equal(done.status, 'finished');
      const plain = clientFor(dst);
      assert.deepEqual((await plain.bulkImports.all({ status: 'finished' }).toArray()).map((x) => x.id), [m.id]);
      assert.deepEqual(await plain.bulkImports.all({ status: 'failed' }).toArray(), []);
      const shown = await plain.bulkImports.show(m.id);
      assert.equal(shown.status, 'finished');
      const entities = await plain.bulkImports.allEntities({ bulkImportId: m.id, sort: 'asc' }).toArray();
      assert.deepEqual(entities.map((e) => e.destination_full_path), ['into/copied', 'into/copied/sub', 'into/copied/proj']);
      assert.deepEqual(entities[2]!.stats.issues, { source: 1, fetched: 1, imported: 1 });
      assert.equal((await plain.bulkImports.allEntities({ status: 'finished' }).toArray()).length, 3);
      const one = await plain.bulkImports.showEntity(m.id, entities[0]!.id);
      assert.deepEqual(one, entities[0]);
      assert.deepEqual(await plain.bulkImports.failures(m.id, entities[0]!.id), []);
      const canceled = await plain.bulkImports.cancel(m.id);
      assert.equal(canceled.status, 'canceled');
      assert.equal('source_url' in canceled, false);
    });

    it('surfaces refusals as ApiError with GitLab messages', async () => {
      const api = clientFor(dst);
      const err = await apiError(api.bulkImports.create({ url: `${src.url}/x`, access_token: src.rootToken }, [
        { source_type: 'group_entity', source_full_path: 'src-grp', destination_slug: 'other', destination_namespace: 'into' },
      ]));
      assert.equal(err.status, 422);
      assert.match(err.message, /Invalid source URL/);
      assert.equal((await apiError(api.bulkImports.show(424242))).status, 404);
      assert.equal((await apiError(api.bulkImports.cancel(424242))).status, 404);
    });
  });
}
