/**
 * `forgelet error-tracking …` against a running server: enable, keys, errors, and key
 * rotation in one command (create, confirm, delete the old one); the old DSN is refused after.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { exceptionEvent, store } from '../server/error-tracking.helpers.js';

function fakeIo(env: NodeJS.ProcessEnv = {}): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s), columns: 120 }, stderr: { write: (s: string) => (err += s) }, env },
    stdout: () => out,
    stderr: () => err,
  };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet error-tracking`, () => {
    let f: TestForgelet;
    let projectId: number;
    const cli = async (args: string[], token = f.rootToken) => {
      const io = fakeIo();
      const code = await run(['error-tracking', ...args, '--url', f.url, '--token', token], io.io);
      return { code, stdout: io.stdout(), stderr: io.stderr() };
    };

    before(async () => {
      f = await startTestServer(dialect);
      const project = await f.api('POST', '/projects', { body: { name: 'cli-app', path: 'cli-app' } });
      projectId = project.body.id;
    });
    after(() => f.stop());

    it('enable turns integrated tracking on and prints the DSN; keys lists it', async () => {
      const enabled = await cli(['enable', 'root/cli-app']);
      assert.equal(enabled.code, 0, enabled.stderr);
      const dsn = new RegExp(`^DSN: http://(glet_[0-9a-f]{32})@127\\.0\\.0\\.1:\\d+/api/v4/error_tracking/collector/${projectId}$`, 'm');
      assert.match(enabled.stdout, dsn);
      const keys = await cli(['keys', String(projectId), '--json']);
      assert.equal(keys.code, 0, keys.stderr);
      const list = JSON.parse(keys.stdout);
      assert.equal(list.length, 1);
      assert.equal(list[0].public_key, dsn.exec(enabled.stdout)![1]);
    });

    it('rotate-key creates a key, confirms it, deletes the old one and prints the new DSN; the old DSN is refused afterwards', async () => {
      const [old] = JSON.parse((await cli(['keys', String(projectId), '--json'])).stdout);
      expectAccepted(await store(f, projectId, old.public_key, exceptionEvent()));
      const rotated = await cli(['rotate-key', String(projectId)]);
      assert.equal(rotated.code, 0, rotated.stderr);
      const [first, dsnLine] = rotated.stdout.trim().split('\n');
      assert.match(first!, new RegExp(`^Deleted client key ${old.id}; new client key \\d+\\.$`));
      const keys = JSON.parse((await cli(['keys', String(projectId), '--json'])).stdout);
      assert.equal(keys.length, 1);
      assert.equal(keys[0].sentry_dsn, dsnLine);
      assert.notEqual(keys[0].public_key, old.public_key);
      const refused = await store(f, projectId, old.public_key, exceptionEvent());
      assert.deepEqual([refused.status, refused.body], [404, { message: '404 Not Found' }]);
      expectAccepted(await store(f, projectId, keys[0].public_key, exceptionEvent()));
      const errors = await cli(['errors', String(projectId), '--json']);
      assert.equal(JSON.parse(errors.stdout)[0].count, 2);
    });

    it('with several keys, rotate-key needs --key-id and changes nothing without it', async () => {
      await f.api('POST', `/projects/${projectId}/error_tracking/client_keys`);
      const before = JSON.parse((await cli(['keys', String(projectId), '--json'])).stdout);
      assert.equal(before.length, 2);
      const refused = await cli(['rotate-key', String(projectId)]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /^error: project \d+ has 2 client keys \(\d+, \d+\): pass --key-id to name the one to replace\n$/);
      assert.equal(JSON.parse((await cli(['keys', String(projectId), '--json'])).stdout).length, 2);
      const rotated = await cli(['rotate-key', String(projectId), '--key-id', String(before[0].id), '--json']);
      assert.equal(rotated.code, 0, rotated.stderr);
      const out = JSON.parse(rotated.stdout);
      assert.equal(out.deleted.id, before[0].id);
      const after = JSON.parse((await cli(['keys', String(projectId), '--json'])).stdout).map((k: any) => k.id);
      assert.deepEqual(after, [before[1].id, out.created.id]);
      const unknown = await cli(['rotate-key', String(projectId), '--key-id', '999999']);
      assert.deepEqual([unknown.code, unknown.stderr], [1, `error: project ${projectId} has no client key 999999\n`]);
    });

    it('errors lists grouped errors; bad options exit 2; server refusals exit 1 with the message', async () => {
      const table = await cli(['errors', String(projectId), '--sort', 'frequency']);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^ID\s+STATUS\s+EVENTS\s+USERS\s+LAST SEEN\s+TITLE\n\d+\s+unresolved\s+2\s+1\s+\S+\s+TypeError: cart is empty\n$/);
      const badSort = await cli(['errors', String(projectId), '--sort', 'loud']);
      assert.deepEqual([badSort.code, badSort.stderr], [2, 'error: --sort must be one of last_seen, first_seen, frequency, got "loud"\n']);
      const user = await f.createUser('etcli');
      const forbidden = await cli(['keys', String(projectId)], user.token);
      assert.deepEqual([forbidden.code, forbidden.stderr], [1, 'error: 404 Project Not Found\n']);
    });
  });
}

function expectAccepted(r: { status: number; text: string }) {
  assert.equal(r.status, 200, r.text);
}
