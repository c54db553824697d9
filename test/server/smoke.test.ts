import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: server smoke`, () => {
    let f: TestForgelet;
    before(async () => (f = await startTestServer(dialect)));
    after(() => f.stop());

    it('answers GET /user for the root token with exact application/json', async () => {
      const r = await f.api('GET', '/user');
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.equal(r.body.username, 'root');
      assert.equal(r.body.is_admin, true);
    });
  });
}
