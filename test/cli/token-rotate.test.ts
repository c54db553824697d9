/** `forgelet token rotate`: personal (by id or self), project and group access tokens. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { runIn } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet token rotate`, () => {
    let f: TestForgelet;
    const cli = (args: string[], token = f.rootToken) => runIn([...args, '--url', f.url, '--token', token]);
    before(async () => {
      f = await startTestServer(dialect);
    });
    after(() => f.stop());

    it('rotates a personal token by id: prints the new token, the old one is revoked', async () => {
      const alice = await f.createUser('alice');
      const old = (await f.api('GET', '/personal_access_tokens/self', { token: alice.token })).body;
      const r = await cli(['token', 'rotate', String(old.id), '--expires-at', '2099-06-01']);
      assert.equal(r.code, 0, r.stderr);
      const fresh = r.stdout.trim();
      assert.match(fresh, /^glpat-/);
      assert.equal((await f.api('GET', '/user', { token: alice.token })).status, 401);
      const me = await f.api('GET', '/personal_access_tokens/self', { token: fresh });
      assert.deepEqual([me.body.name, me.body.expires_at], [old.name, '2099-06-01']);
    });

    it('self, --json; project and group tokens; refusals', async () => {
      const bob = await f.createUser('bob');
      const self = await cli(['token', 'rotate', 'self', '--json'], bob.token);
      assert.equal(self.code, 0, self.stderr);
      const body = JSON.parse(self.stdout);
      assert.match(body.token, /^glpat-/);
      assert.equal(body.user_id, bob.id);
      const group = (await f.api('POST', '/groups', { body: { name: 'Rot', path: 'rot' } })).body;
      const project = (await f.api('POST', '/projects', { body: { name: 'app', namespace_id: group.id } })).body;
      const pt = (await f.api('POST', `/projects/${project.id}/access_tokens`, { body: { name: 'bot', scopes: ['api'], expires_at: '2099-01-01' } })).body;
      const rp = await cli(['token', 'rotate', String(pt.id), '--project', 'rot/app', '--json']);
      assert.equal(rp.code, 0, rp.stderr);
      assert.equal(JSON.parse(rp.stdout).resource_type, 'project');
      const gt = (await f.api('POST', `/groups/${group.id}/access_tokens`, { body: { name: 'gbot', scopes: ['api'], expires_at: '2099-01-01' } })).body;
      const rg = await cli(['token', 'rotate', String(gt.id), '--group', 'rot']);
      assert.equal(rg.code, 0, rg.stderr);
      assert.equal((await f.api('GET', `/groups/${group.id}`, { token: rg.stdout.trim() })).status, 200);
      const twice = await cli(['token', 'rotate', String(pt.id), '--project', String(project.id)]);
      assert.notEqual(twice.code, 0, 'a revoked token cannot be rotated');
      assert.match(twice.stderr, /400|revoked/i);
      const bad = await cli(['token', 'rotate', 'abc']);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /token id must be a number or self/);
    });
  });
}
