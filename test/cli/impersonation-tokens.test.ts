/** `forgelet token create|list|revoke --impersonation --user <u>`: a user's impersonation tokens (administrators). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet token --impersonation`, () => {
    let f: TestForgelet;
    let alice: { id: number; username: string; token: string };
    const cli = (args: string[], token = f.rootToken) => runIn([...args, '--url', f.url, '--token', token]);

    before(async () => {
      f = await startTestServer(dialect);
      alice = await f.createUser('alice');
      await f.createUser('bob');
    });
    after(() => f.stop());

    it('create prints the token, which acts as the user; list shows a table; revoke; --state', async () => {
      const created = await cli(['token', 'create', '--impersonation', '--user', 'alice', '--scopes', 'api,read_user', '--name', 'imp', '--expires-at', '2999-01-01']);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^glpat-[\w-]+\n$/);
      const secret = created.stdout.trim();
      assert.equal((await f.api('GET', '/user', { token: secret })).body.username, 'alice');

      const json = await cli(['token', 'create', '--impersonation', '--user', String(alice.id), '--scopes', 'read_api', '--name', 'ro', '--json']);
      assert.equal(json.code, 0, json.stderr);
      const ro = JSON.parse(json.stdout);
      assert.deepEqual([ro.impersonation, ro.user_id, ro.name, ro.scopes, ro.expires_at], [true, alice.id, 'ro', ['read_api'], null]);
      assert.match(ro.token, /^glpat-/);

      const listed = (await f.api('GET', `/users/${alice.id}/impersonation_tokens`)).body as { id: number; last_used_at: string | null }[];
      assert.equal(listed.length, 2);
      const imp = listed[0]!;
      const table = await cli(['token', 'list', '--impersonation', '--user', 'alice']);
      assert.equal(table.code, 0, table.stderr);
      assert.deepEqual(tableCells(table.stdout), [
        ['ID', 'NAME', 'USER', 'STATE', 'EXPIRES', 'LAST USED', 'SCOPES'],
        [String(imp.id), 'imp', 'alice', 'active', '2999-01-01', imp.last_used_at!.slice(0, 16).replace('T', ' '), 'api,read_user'],
        [String(ro.id), 'ro', 'alice', 'active', 'never', 'never', 'read_api'],
      ]);
      assert.ok(!table.stdout.includes(secret) && !table.stdout.includes(ro.token), 'lists never print tokens');
      assert.equal((await cli(['token', 'list', '--impersonation', '--user', 'bob'])).stdout, 'No impersonation tokens.\n');

      assert.deepEqual(await cli(['token', 'revoke', '--impersonation', '--user', 'alice', String(imp.id)]), { code: 0, stdout: `Revoked impersonation token ${imp.id}.\n`, stderr: '' });
      assert.equal((await f.api('GET', '/user', { token: secret })).status, 401);
      const ids = async (state: string) => JSON.parse((await cli(['token', 'list', '--impersonation', '--user', 'alice', '--state', state, '--json'])).stdout).map((t: { id: number }) => t.id);
      assert.deepEqual(await ids('inactive'), [imp.id]);
      assert.deepEqual(await ids('active'), [ro.id]);
      assert.deepEqual(await cli(['token', 'revoke', '--impersonation', '--user', 'alice', String(ro.id), '--json']), { code: 0, stdout: `{"id":${ro.id},"revoked":true}\n`, stderr: '' });
    });

    it("the server's refusals exit 1; usage errors exit 2", async () => {
      assert.deepEqual(await cli(['token', 'list', '--impersonation', '--user', 'alice'], alice.token), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
      assert.deepEqual(await cli(['token', 'revoke', '--impersonation', '--user', 'alice', '99999']), { code: 1, stdout: '', stderr: 'error: 404 Impersonation Token Not Found\n' });
      assert.deepEqual(await cli(['token', 'create', '--impersonation', '--user', 'alice', '--scopes', 'everything']), { code: 1, stdout: '', stderr: 'error: 400 scopes does not have a valid value\n' });
      assert.deepEqual(await cli(['token', 'create', '--impersonation', '--user', 'nobody', '--scopes', 'api']), { code: 1, stdout: '', stderr: `error: no user named "nobody" on ${f.url}\n` });
      assert.deepEqual(await cli(['token', 'list', '--impersonation']), { code: 2, stdout: '', stderr: 'error: --impersonation needs --user\n' });
      assert.deepEqual(await cli(['token', 'list', '--state', 'active']), { code: 2, stdout: '', stderr: 'error: --state is for impersonation tokens: add --impersonation\n' });
      assert.deepEqual(await cli(['token', 'list', '--impersonation', '--user', 'alice', '--state', 'gone']), { code: 2, stdout: '', stderr: 'error: --state must be one of all, active, inactive, got "gone"\n' });
      assert.deepEqual(await cli(['token', 'revoke', '--user', 'alice', '5']), { code: 2, stdout: '', stderr: 'error: --user is for impersonation tokens: add --impersonation\n' });
    });
  });
}
