import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, expectStatus } from './http.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: test harness tier switching`, () => {
    let f: TestForgelet;
    let group: any;

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, tier: 'ultimate' });
      group = await createGroup(f, f.rootToken, { name: 'Tiers', path: 'tiers' });
    });
    after(() => f.stop());

    it('a change takes effect on the next request', async () => {
      assert.deepEqual((await f.api('GET', '/forgelet/tier')).body, { tier: 'ultimate' });
      assert.equal((await f.api('GET', '/version')).body.enterprise, true);
      expectStatus(await f.api('GET', `/groups/${group.id}/iterations`), 200);

      const free = await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } });
      assert.deepEqual([free.status, free.body], [200, { tier: 'free' }]);
      assert.equal((await f.api('GET', '/version')).body.enterprise, false);
      expectStatus(await f.api('GET', `/groups/${group.id}/iterations`), 403);
      assert.equal(f.forge.deps.config.tier, 'free');

      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'premium' } }), 200);
      expectStatus(await f.api('GET', `/groups/${group.id}/iterations`), 200);
      assert.deepEqual((await f.api('GET', '/forgelet/tier')).body, { tier: 'premium' });
    });

    it('bad input and non-admins', async () => {
      const bad = await f.api('PUT', '/forgelet/tier', { body: { tier: 'gold' } });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'tier does not have a valid value' }]);
      const missing = await f.api('PUT', '/forgelet/tier', { body: {} });
      assert.deepEqual([missing.status, missing.body], [400, { error: 'tier is missing' }]);
      const plain = await f.createUser('tierplain');
      const r = await f.api('PUT', '/forgelet/tier', { token: plain.token, body: { tier: 'free' } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
      expectStatus(await f.api('GET', '/forgelet/tier', { token: plain.token }), 403);
      assert.deepEqual((await f.api('GET', '/forgelet/tier')).body, { tier: 'premium' });
    });
  });
}
