import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { api, runCli, startServe, tempDir, type ServeProcess } from './cli-process.js';

const ROOT_TOKEN = 'glpat-cli-serve-root-token-0001';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet serve and forgelet token`, () => {
    const data = tempDir();
    let database: { url: string; drop(): Promise<void> } | null = null;
    let server: ServeProcess;
    let remote: Record<string, string>;

    before(async () => {
      // sqlite: the default <data>/forgelet.db; postgres: --database-url on a fresh database
      const args = ['--port', '0', '--data', data.path, '--json'];
      if (dialect === 'postgres') {
        database = await createTestDatabaseUrl('postgres');
        args.push('--database-url', database.url);
      }
      server = await startServe(args, { FORGELET_ROOT_TOKEN: ROOT_TOKEN });
      remote = { FORGELET_URL: server.url, FORGELET_TOKEN: ROOT_TOKEN };
    });

    after(async () => {
      await server?.stop('SIGKILL');
      await database?.drop();
      data.remove();
    });

    it('prints one JSON line with the real URL, the root token, the data dir and where blobs go', () => {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(server.url, 'http://127.0.0.1:0');
      const ready = JSON.parse(server.ready);
      assert.deepEqual(ready, { url: server.url, root_token: ROOT_TOKEN, data_dir: data.path, blobs: pathToFileURL(join(data.path, 'blobs')).href, runtime: ready.runtime });
      // the compiled bundle users run (its code cache may still be being written by another start)
      assert.match(ready.runtime, /^bundle, (cached|compiled)$/);
      assert.equal(existsSync(join(data.path, 'secret.key')), true);
      assert.equal(existsSync(join(data.path, 'forgelet.db')), dialect === 'sqlite');
    });

    it('answers GET /user for the root token and logs one access line per request', async () => {
      const r = await api(server.url, 'GET', '/user', ROOT_TOKEN);
      assert.equal(r.status, 200);
      assert.equal(r.body.username, 'root');
      assert.equal(r.body.is_admin, true);
      await server.waitForStdout(/ GET \/api\/v4\/user 200 [\d.]+ms user=root rid=/);
    });

    it('token create, list, revoke against the running server', async () => {
      const created = await runCli(['token', 'create', '--user', 'root', '--scopes', 'read_api', '--name', 'ci', '--json'], remote);
      assert.equal(created.code, 0, created.stderr);
      const token = JSON.parse(created.stdout);
      assert.equal(created.stdout.trim().split('\n').length, 1);
      assert.deepEqual({ ...token, id: 0, token: '', created_at: '' }, {
        id: 0, token: '', created_at: '', name: 'ci', description: null, revoked: false, scopes: ['read_api'],
        user_id: 1, last_used_at: null, active: true, expires_at: null,
      });
      assert.match(token.token, /^glpat-/);

      assert.equal((await api(server.url, 'GET', '/user', token.token)).status, 200);
      const write = await api(server.url, 'POST', '/projects', token.token, { name: 'nope' });
      assert.equal(write.status, 403);
      assert.equal(write.body.error, 'insufficient_scope');

      const listed = await runCli(['token', 'list', '--user', 'root', '--json'], remote);
      assert.equal(listed.code, 0, listed.stderr);
      const tokens = JSON.parse(listed.stdout) as { id: number; last_used_at: string | null }[];
      const { token: _secret, ...shown } = token;
      const listedToken = tokens.find((t) => t.id === token.id)!;
      assert.deepEqual(listedToken, { ...shown, last_used_at: listedToken.last_used_at });
      assert.notEqual(listedToken.last_used_at, null);

      const table = await runCli(['token', 'list'], remote);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^ID\s+NAME\s+USER\s+STATE\s+EXPIRES\s+LAST USED\s+SCOPES/);
      assert.match(table.stdout, new RegExp(`\\n${token.id}\\s+ci\\s+root\\s+active\\s+never\\s+\\S`));

      const revoked = await runCli(['token', 'revoke', String(token.id)], remote);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal(revoked.stdout, `Revoked personal access token ${token.id}.\n`);
      assert.equal((await api(server.url, 'GET', '/user', token.token)).status, 401);
    });

    it('token create prints only the token without --json', async () => {
      const r = await runCli(['token', 'create', '--user', 'root', '--scopes', 'api,read_user', '--expires-at', '2999-01-01'], remote);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^glpat-[\w-]+\n$/);
      assert.equal((await api(server.url, 'GET', '/user', r.stdout.trim())).status, 200);
    });

    it("prints the server's message and exits 1 on a server error", async () => {
      const [badScope, unknown, noUser, badToken] = await Promise.all([
        runCli(['token', 'create', '--user', 'root', '--scopes', 'everything'], remote),
        runCli(['token', 'revoke', '99999'], remote),
        runCli(['token', 'create', '--user', 'nobody', '--scopes', 'api'], remote),
        runCli(['token', 'list', '--json'], { ...remote, FORGELET_TOKEN: 'glpat-not-a-token' }),
      ]);
      assert.deepEqual([badScope.code, badScope.stdout, badScope.stderr], [1, '', 'error: 400 scopes does not have a valid value\n']);
      assert.deepEqual([unknown.code, unknown.stderr], [1, 'error: 404 Personal Access Token Not Found\n']);
      assert.deepEqual([noUser.code, noUser.stderr], [1, `error: no user named "nobody" on ${server.url}\n`]);
      assert.deepEqual([badToken.code, badToken.stderr], [1, 'error: 401 Unauthorized\n']);
    });

    it('stops gracefully on SIGTERM and exits 0', async () => {
      const r = await server.stop('SIGTERM');
      assert.deepEqual([r.code, r.signal], [0, null]);
      assert.match(r.stderr, /SIGTERM: stopping/);
    });
  });
}
