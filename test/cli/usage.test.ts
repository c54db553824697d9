// Flags, exit codes and messages. These don't depend on the SQL dialect, so they run once,
// only when DIALECTS includes 'sqlite' (the in-process server below uses SQLite).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { runCli, startServe, tempDir } from './cli-process.js';

function fakeIo(env: NodeJS.ProcessEnv = {}): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (s: string) => (out += s), columns: 100 }, stderr: { write: (s: string) => (err += s) }, env },
    stdout: () => out,
    stderr: () => err,
  };
}

async function exitOf(args: string[], env: NodeJS.ProcessEnv = {}) {
  const f = fakeIo(env);
  const code = await run(args, f.io);
  return { code, stdout: f.stdout(), stderr: f.stderr() };
}

describe('forgelet usage', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  it('--help and --version exit 0', async () => {
    const help = await exitOf(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: forgelet \[options\] \[command\][\s\S]+serve \[options\][\s\S]+init \[options\][\s\S]+token/);
    for (const command of ['token', 'deploy-tokens', 'namespaces', 'variables', 'hooks']) assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'), command);
    const token = await exitOf(['token', 'list', '--help']);
    assert.match(token.stdout, /--impersonation[\s\S]+--state <state>/);
    assert.deepEqual(await exitOf(['--version']), { code: 0, stdout: '0.1.0\n', stderr: '' });
  });

  it('unknown commands and missing required options exit 2', async () => {
    const unknown = await exitOf(['nope']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^error: unknown command 'nope'/);
    const missing = await exitOf(['token', 'create', '--user', 'root'], { FORGELET_TOKEN: 'x' });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^error: required option '--scopes <scopes>' not specified/);
  });

  const invalid: [string, string[], NodeJS.ProcessEnv, string][] = [
    ['a bad --tier', ['--tier', 'gold'], {}, '--tier must be one of free, premium, ultimate, got "gold"'],
    ['a bad FORGELET_TIER', [], { FORGELET_TIER: 'gold' }, 'FORGELET_TIER must be one of free, premium, ultimate, got "gold"'],
    ['a bad --port', ['--port', '70000'], {}, '--port must be a port number from 0 to 65535 (0: any free port), got "70000"'],
    ['a bad FORGELET_PORT', [], { FORGELET_PORT: 'http' }, 'FORGELET_PORT must be a port number from 0 to 65535 (0: any free port), got "http"'],
    ['a bad --external-url', ['--external-url', 'ftp://x'], {}, '--external-url must be an http:// or https:// URL, got "ftp://x"'],
    ['a bad FORGELET_BODY_LIMIT', [], { FORGELET_BODY_LIMIT: '0' }, 'FORGELET_BODY_LIMIT must be a positive integer, got "0"'],
    ['a bad --upload-limit', ['--upload-limit', '1e6'], {}, '--upload-limit must be a positive integer, got "1e6"'],
    ['a bad --header-timeout', ['--header-timeout', 'soon'], {}, '--header-timeout must be a number of seconds (0: none), got "soon"'],
    ['a bad FORGELET_REQUEST_TIMEOUT', [], { FORGELET_REQUEST_TIMEOUT: '-5' }, 'FORGELET_REQUEST_TIMEOUT must be a number of seconds (0: none), got "-5"'],
    ['a zero --keep-alive-timeout', ['--keep-alive-timeout', '0'], {}, '--keep-alive-timeout must be a number of seconds above 0, got "0"'],
    ['a bad FORGELET_MAX_CONNECTIONS', [], { FORGELET_MAX_CONNECTIONS: 'many' }, 'FORGELET_MAX_CONNECTIONS must be a whole number (0 or more), got "many"'],
    ['a bad FORGELET_ALLOW_LOCAL_EGRESS', [], { FORGELET_ALLOW_LOCAL_EGRESS: 'maybe' }, 'FORGELET_ALLOW_LOCAL_EGRESS must be 1 or 0, got "maybe"'],
    ['a short FORGELET_SECRET_KEY', [], { FORGELET_SECRET_KEY: 'c2hvcnQ=' }, 'FORGELET_SECRET_KEY must be 32 bytes encoded as base64 (e.g. `openssl rand -base64 32`), or several separated by commas'],
    ['a short second key in FORGELET_SECRET_KEY', [], { FORGELET_SECRET_KEY: `${Buffer.alloc(32, 1).toString('base64')},c2hvcnQ=` }, 'FORGELET_SECRET_KEY must be 32 bytes encoded as base64 (e.g. `openssl rand -base64 32`), or several separated by commas'],
  ];
  for (const [what, args, env, message] of invalid) {
    it(`serve with ${what} exits 2 without starting`, async () => {
      assert.deepEqual(await exitOf(['serve', ...args], env), { code: 2, stdout: '', stderr: `error: ${message}\n` });
    });
  }

  it('remote commands need a token (exit 2) and a reachable server (exit 1)', async () => {
    assert.deepEqual(await exitOf(['token', 'list']), { code: 2, stdout: '', stderr: 'error: an admin token is needed: pass --token, set FORGELET_TOKEN or run forgelet login\n' });
    const closed = createServer().listen(0, '127.0.0.1');
    await new Promise((r) => closed.once('listening', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const down = await exitOf(['token', 'list', '--url', `http://127.0.0.1:${port}`, '--token', 'glpat-x']);
    assert.deepEqual(down, { code: 1, stdout: '', stderr: `error: cannot reach Forgelet at http://127.0.0.1:${port}: ECONNREFUSED\n` });
  });

  describe('spawned', () => {
    let busy: Server;
    before(async () => {
      busy = createServer().listen(0, '127.0.0.1');
      await new Promise((r) => busy.once('listening', r));
    });
    after(() => busy.close());

    it('flags win over the environment', async () => {
      const data = tempDir();
      try {
        const server = await startServe(['--port', '0', '--tier', 'free', '--data', data.path], {
          FORGELET_PORT: 'not-a-port', FORGELET_TIER: 'gold', FORGELET_DATA_DIR: '/nonexistent/forgelet', FORGELET_ROOT_TOKEN: 'glpat-cli-usage-root-00001',
        });
        assert.equal((await fetch(`${server.url}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'glpat-cli-usage-root-00001' } })).status, 200);
        assert.equal((await server.stop()).code, 0);
      } finally {
        data.remove();
      }
    });

    it('a port in use is an error (exit 1) and the process does not linger', async () => {
      const data = tempDir();
      try {
        const port = (busy.address() as AddressInfo).port;
        const r = await runCli(['serve', '--port', String(port), '--data', data.path]);
        assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', `error: cannot listen on 127.0.0.1:${port}: the address is already in use\n`]);
      } finally {
        data.remove();
      }
    });
  });

  describe('token list for people (Ink table)', () => {
    let f: TestForgelet;
    before(async () => (f = await startTestServer('sqlite')));
    after(() => f.stop());

    it('renders one row per token, with user names and states', async () => {
      const alice = await f.createUser('alice', { scopes: ['read_api'] });
      const created = await exitOf(['token', 'create', '--user', 'alice', '--scopes', 'api', '--name', 'deploy', '--expires-at', '2999-12-31'], { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken });
      assert.equal(created.code, 0, created.stderr);
      const before = await f.api('GET', `/personal_access_tokens?user_id=${alice.id}`);
      const testToken = before.body.find((t: { name: string }) => t.name === 'test');
      assert.equal((await exitOf(['token', 'revoke', String(testToken.id)], { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken })).code, 0);

      const table = await exitOf(['token', 'list', '--user', 'alice'], { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken });
      assert.equal(table.code, 0, table.stderr);
      const lines = table.stdout.trimEnd().split('\n').map((l) => l.trimEnd().split(/\s{2,}/));
      assert.deepEqual(lines, [
        ['ID', 'NAME', 'USER', 'STATE', 'EXPIRES', 'LAST USED', 'SCOPES'],
        [String(testToken.id), 'test', 'alice', 'revoked', 'never', 'never', 'read_api'],
        [String(testToken.id + 1), 'deploy', 'alice', 'active', '2999-12-31', 'never', 'api'],
      ]);
      const none = await exitOf(['token', 'list', '--user', 'root'], { FORGELET_URL: f.url, FORGELET_TOKEN: 'glpat-x' });
      assert.deepEqual(none, { code: 1, stdout: '', stderr: 'error: 401 Unauthorized\n' });
    });
  });
});
