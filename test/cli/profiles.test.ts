/**
 * `forgelet login|logout|profiles` and how remote commands find their URL and token: flags,
 * then FORGELET_URL/FORGELET_TOKEN, then --profile/FORGELET_PROFILE or the default profile.
 * The config file is 0600 in a 0700 directory, written atomically, and never holds a token
 * the server refused; the token is never printed. Dialect-independent: runs with sqlite only.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { tempDir } from './cli-process.js';
import { runIn } from './cli-io.js';

const mode = (path: string) => statSync(path).mode & 0o777;

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe('forgelet login and profiles', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  let f: TestForgelet;
  let other: TestForgelet;
  let alice: { id: number; username: string; token: string };
  const dirs: { remove(): void }[] = [];
  const home = () => {
    const d = tempDir('forgelet-profiles-');
    dirs.push(d);
    return d.path;
  };

  before(async () => {
    [f, other] = await Promise.all([startTestServer('sqlite'), startTestServer('sqlite')]);
    alice = await f.createUser('alice');
  });
  after(async () => {
    await Promise.all([f?.stop(), other?.stop()]);
    for (const d of dirs) d.remove();
  });

  it('login checks the token, saves the profile 0600 in a 0700 directory and never prints the token', async () => {
    const xdg = home();
    const env = { XDG_CONFIG_HOME: xdg };
    const r = await runIn(['login', '--url', `${f.url}/`, '--token', f.rootToken], env);
    const file = join(xdg, 'forgelet', 'config.json');
    assert.deepEqual(r, { code: 0, stdout: `Logged in to ${f.url} as root; saved as profile "default" (the default) in ${file}.\n`, stderr: '' });
    assert.equal(mode(file), 0o600);
    assert.equal(mode(join(xdg, 'forgelet')), 0o700);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { profiles: { default: { url: f.url, token: f.rootToken } }, default: 'default' });
    assert.deepEqual(readdirSync(join(xdg, 'forgelet')), ['config.json'], 'no temporary file is left behind');

    const json = await runIn(['login', '--url', f.url, '--token', alice.token, '--profile', 'alice', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { profile: 'alice', url: f.url, user: { id: alice.id, username: 'alice' }, default: true, path: file });
    assert.ok(!json.stdout.includes(alice.token) && !json.stderr.includes(alice.token));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(saved.profiles), ['default', 'alice']);
    assert.equal(saved.default, 'alice');
    assert.equal(mode(file), 0o600);

    const listed = await runIn(['profiles'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(listed.stdout.trimEnd().split('\n').map((l) => l.trimEnd().split(/\s{2,}/)), [['NAME', 'URL', 'DEFAULT'], ['default', f.url], ['alice', f.url, 'yes']]);
    assert.ok(!listed.stdout.includes('glpat'));
    assert.deepEqual(JSON.parse((await runIn(['profiles', '--json'], env)).stdout), [
      { name: 'default', url: f.url, default: false },
      { name: 'alice', url: f.url, default: true },
    ]);
  });

  it('a refused token or an unreachable server saves nothing (exit 1); bad input exits 2', async () => {
    const xdg = home();
    const env = { XDG_CONFIG_HOME: xdg };
    const refused = await runIn(['login', '--url', f.url, '--token', 'glpat-wrong'], env);
    assert.deepEqual(refused, { code: 1, stdout: '', stderr: `error: ${f.url} refused the token: 401 Unauthorized\n` });
    assert.equal(existsSync(join(xdg, 'forgelet')), false);
    const port = await closedPort();
    const down = await runIn(['login', '--url', `http://127.0.0.1:${port}`, '--token', 'glpat-x'], env);
    assert.deepEqual(down, { code: 1, stdout: '', stderr: `error: cannot reach Forgelet at http://127.0.0.1:${port}: ECONNREFUSED\n` });
    assert.deepEqual(await runIn(['login', '--url', f.url], env), { code: 2, stdout: '', stderr: 'error: a token is needed: pass --token or set FORGELET_TOKEN\n' });
    assert.deepEqual(await runIn(['login', '--url', 'ftp://x', '--token', 't'], env), { code: 2, stdout: '', stderr: 'error: --url must be an http:// or https:// URL, got "ftp://x"\n' });
    const badName = await runIn(['login', '--url', f.url, '--token', 't', '--profile', '../x'], env);
    assert.equal(badName.code, 2);
    assert.match(badName.stderr, /^error: --profile must be 1-64 letters/);
    assert.deepEqual(await runIn(['login', '--url', f.url, '--token', f.rootToken], {}), {
      code: 1, stdout: '', stderr: 'error: cannot tell where to save the login: set HOME or XDG_CONFIG_HOME\n',
    });
  });

  it('falls back to $HOME/.config and tightens an existing directory', async () => {
    const h = home();
    mkdirSync(join(h, '.config', 'forgelet'), { recursive: true, mode: 0o755 });
    chmodSync(join(h, '.config', 'forgelet'), 0o755);
    const r = await runIn(['login', '--url', f.url, '--token', f.rootToken, '--profile', 'main'], { HOME: h, XDG_CONFIG_HOME: 'relative/ignored' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(mode(join(h, '.config', 'forgelet')), 0o700);
    assert.equal(mode(join(h, '.config', 'forgelet', 'config.json')), 0o600);
  });

  it('precedence: flags, then the environment, then --profile or the default profile', async () => {
    const xdg = home();
    const env = { XDG_CONFIG_HOME: xdg };
    assert.equal((await runIn(['login', '--url', f.url, '--token', alice.token, '--profile', 'alice'], env)).code, 0);
    assert.equal((await runIn(['login', '--url', other.url, '--token', other.rootToken, '--profile', 'other'], env)).code, 0);
    assert.equal((await runIn(['login', '--url', f.url, '--token', f.rootToken, '--profile', 'root'], env)).code, 0);
    const whoami = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
      const r = await runIn(['users', 'show', alice.username, '--json', ...args], { ...env, ...extra });
      return r.code === 0 ? (JSON.parse(r.stdout).email === undefined ? 'not admin' : 'admin or self') : r.stderr;
    };
    // The default profile (root, the last login) is used without flags.
    const user = await runIn(['users', 'show', 'alice', '--json'], env);
    assert.equal(user.code, 0, user.stderr);
    assert.equal(JSON.parse(user.stdout).is_admin, false, 'root sees is_admin');
    // --profile picks another; FORGELET_PROFILE too; the flag wins over the variable.
    const other1 = await runIn(['users', 'show', 'alice', '--profile', 'other'], env);
    assert.deepEqual(other1, { code: 1, stdout: '', stderr: `error: no user named "alice" on ${other.url}\n` });
    assert.deepEqual(await runIn(['users', 'show', 'alice', '--json'], { ...env, FORGELET_PROFILE: 'other' }), other1);
    assert.equal((await runIn(['users', 'show', 'alice', '--profile', 'root'], { ...env, FORGELET_PROFILE: 'other' })).code, 0);
    // The environment wins over the profile (per value: the URL still comes from the profile), flags over the environment.
    assert.deepEqual(await runIn(['users', 'show', 'alice'], { ...env, FORGELET_TOKEN: 'glpat-bad' }), { code: 1, stdout: '', stderr: 'error: 401 Unauthorized\n' });
    assert.equal(await whoami([], { FORGELET_TOKEN: alice.token }), 'admin or self');
    assert.equal((await runIn(['users', 'show', 'alice', '--token', f.rootToken], { ...env, FORGELET_TOKEN: 'glpat-bad' })).code, 0);
    assert.equal(await whoami(['--profile', 'alice']), 'admin or self');
    // A profile's token is never sent to another URL.
    const elsewhere = await runIn(['users', 'show', 'alice'], { ...env, FORGELET_URL: other.url });
    assert.deepEqual(elsewhere, { code: 2, stdout: '', stderr: `error: profile "root" is for ${f.url}, not ${other.url}: pass --token or set FORGELET_TOKEN\n` });
    // --url naming the profile's own server keeps its token.
    assert.equal((await runIn(['users', 'show', 'alice', '--url', `${f.url}/`], env)).code, 0);
    const unknown = await runIn(['users', 'show', 'alice', '--profile', 'nope'], env);
    assert.deepEqual(unknown, { code: 2, stdout: '', stderr: 'error: no saved profile "nope" (saved: alice, other, root): run forgelet login --profile nope\n' });
    // Existing commands take --profile too.
    const tokens = await runIn(['token', 'list', '--user', 'alice', '--json', '--profile', 'root'], env);
    assert.equal(tokens.code, 0, tokens.stderr);
    assert.equal(JSON.parse(tokens.stdout)[0].user_id, alice.id);
  });

  it('logout removes a profile (the default one unless --profile); a broken config is reported', async () => {
    const xdg = home();
    const env = { XDG_CONFIG_HOME: xdg };
    assert.equal((await runIn(['login', '--url', f.url, '--token', f.rootToken, '--profile', 'a'], env)).code, 0);
    assert.equal((await runIn(['login', '--url', other.url, '--token', other.rootToken, '--profile', 'b'], env)).code, 0);
    assert.deepEqual(await runIn(['logout', '--profile', 'a', '--json'], env), { code: 0, stdout: `${JSON.stringify({ profile: 'a', url: f.url, removed: true })}\n`, stderr: '' });
    assert.deepEqual(await runIn(['logout'], env), { code: 0, stdout: `Logged out: removed profile "b" (${other.url}).\n`, stderr: '' });
    const file = join(xdg, 'forgelet', 'config.json');
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { profiles: {} });
    assert.equal(mode(file), 0o600);
    assert.deepEqual(await runIn(['logout'], env), { code: 1, stdout: '', stderr: 'error: not logged in: no default profile\n' });
    assert.deepEqual(await runIn(['logout', '--profile', 'a'], env), { code: 1, stdout: '', stderr: 'error: no saved profile "a"\n' });
    assert.deepEqual(await runIn(['users', 'list'], env), { code: 2, stdout: '', stderr: 'error: an admin token is needed: pass --token, set FORGELET_TOKEN or run forgelet login\n' });
    writeFileSync(file, '{oops');
    assert.deepEqual(await runIn(['users', 'list'], env), { code: 1, stdout: '', stderr: `error: ${file} is not valid JSON; fix it or remove it and run forgelet login again\n` });
    // Flags alone never read the config.
    assert.equal((await runIn(['users', 'list', '--url', f.url, '--token', f.rootToken, '--json'], env)).code, 0);
  });
});
