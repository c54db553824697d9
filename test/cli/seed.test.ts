import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedClock } from '@forgelet/core';
import { run, type CliIo } from '@forgelet/cli';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';

/** Runs the CLI in process, capturing its output. */
async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet seed, clock and snapshot commands`, () => {
    let f: TestForgelet;
    let dir: string;
    let env: Record<string, string>;

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, clock: fixedClock('2024-01-01T00:00:00.000Z'), workers: false });
      dir = mkdtempSync(join(tmpdir(), 'forgelet-seed-cli-'));
      env = { FORGELET_URL: f.url, FORGELET_TOKEN: f.rootToken };
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await f.stop();
    });

    it('seeds from a YAML file and reports what it created', async () => {
      const file = join(dir, 'world.yaml');
      writeFileSync(file, [
        'users:',
        '  - username: ana',
        '    token: glpat-ana-cli-token-01',
        'groups:',
        '  - path: team',
        '    members: [{ user: ana, access_level: developer }]',
        'projects:',
        '  - path: web',
        '    namespace: team',
        '    labels: [bug]',
        '    issues:',
        '      - { title: One, author: ana }',
        '      - { title: Two }',
        '',
      ].join('\n'));
      const r = await cli(['seed', file], env);
      assert.deepEqual(r, {
        code: 0,
        stdout: 'Seeded 1 users, 1 groups, 1 projects, 1 labels, 0 milestones, 2 issues, 0 merge requests, 0 pipeline schedules.\n',
        stderr: '',
      });
      assert.equal((await f.api('GET', '/user', { token: 'glpat-ana-cli-token-01' })).body.username, 'ana');
    });

    it('--json prints the ids by name; JSON files work too', async () => {
      const file = join(dir, 'more.json');
      writeFileSync(file, JSON.stringify({ users: [{ username: 'ben' }] }));
      const r = await cli(['seed', file, '--json', '--url', f.url, '--token', f.rootToken]);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      const ben = (await f.api('GET', '/users?username=ben')).body[0];
      assert.deepEqual(out.users, { ben: ben.id });
    });

    it('errors: the failing entry, a broken file, a missing file, no token', async () => {
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'users:\n  - username: cleo\n  - username: dan\n    email: nope\n');
      assert.deepEqual(await cli(['seed', bad], env), { code: 1, stdout: '', stderr: 'error: 400 users[1] (dan): email is invalid\n' });
      assert.deepEqual((await f.api('GET', '/users?username=cleo')).body, [], 'nothing created');

      const broken = join(dir, 'broken.yaml');
      writeFileSync(broken, 'users: [\n');
      const r = await cli(['seed', broken], env);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^error: ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid YAML: `));

      assert.deepEqual(await cli(['seed', join(dir, 'missing.yaml')], env), { code: 1, stdout: '', stderr: `error: cannot read ${join(dir, 'missing.yaml')}: ENOENT\n` });
      const noToken = await cli(['seed', bad], { FORGELET_URL: f.url });
      assert.deepEqual([noToken.code, noToken.stderr], [2, 'error: an admin token is needed: pass --token, set FORGELET_TOKEN or run forgelet login\n']);
    });

    it('clock: show, set, freeze, unfreeze, advance with durations', async () => {
      assert.deepEqual(await cli(['clock'], env), { code: 0, stdout: '2024-01-01T00:00:00.000Z frozen\n', stderr: '' });
      assert.deepEqual(await cli(['clock', 'set', '2024-02-01T10:00:00Z'], env), { code: 0, stdout: '2024-02-01T10:00:00.000Z frozen\n', stderr: '' });
      assert.deepEqual(await cli(['clock', 'advance', '1d2h'], env), { code: 0, stdout: '2024-02-02T12:00:00.000Z frozen (0 jobs run)\n', stderr: '' });
      assert.deepEqual(await cli(['clock', 'advance', '90', '--json'], env), { code: 0, stdout: '{"now":"2024-02-02T12:01:30.000Z","frozen":true,"jobs_run":0}\n', stderr: '' });
      assert.match((await cli(['clock', 'unfreeze'], env)).stdout, / running\n$/);
      assert.match((await cli(['clock', 'freeze'], env)).stdout, / frozen\n$/);
      assert.deepEqual(await cli(['clock', 'advance', 'soon'], env), {
        code: 2, stdout: '', stderr: 'error: the duration must be seconds or like 90s, 15m, 2h, 1d, 1w, 1d12h; got "soon"\n',
      });
      assert.deepEqual(await cli(['clock', 'set', 'later'], env), { code: 2, stdout: '', stderr: 'error: <time> must be an ISO-8601 date and time, got "later"\n' });
      const plain = await f.createUser('clockcli');
      assert.deepEqual(await cli(['clock', '--token', plain.token], env), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
    });

    it('snapshot create, list, restore, delete, and reset', async () => {
      const created = await cli(['snapshot', 'create', 'cli'], env);
      assert.match(created.stdout, /^Created snapshot cli \(\d+ rows in \d+ tables, 0 blobs, taken 2024-02-02T12:01:30.\d{3}Z\)\.\n$/);
      await f.api('POST', '/groups', { body: { name: 'Gone', path: 'gone' } });
      assert.match((await cli(['snapshot', 'restore', 'cli'], env)).stdout, /^Restored snapshot cli /);
      assert.deepEqual((await f.api('GET', '/groups?search=gone')).body, []);
      const list = await cli(['snapshot', 'list', '--json'], env);
      assert.deepEqual(JSON.parse(list.stdout).map((s: any) => s.name), ['cli']);
      assert.deepEqual(await cli(['reset'], env), { code: 0, stdout: 'Reset to the initial state.\n', stderr: '' });
      assert.deepEqual((await f.api('GET', '/users')).body.map((u: any) => u.username), ['root']);
      assert.deepEqual(await cli(['snapshot', 'delete', 'cli'], env), { code: 0, stdout: 'Deleted snapshot cli.\n', stderr: '' });
      assert.deepEqual(await cli(['snapshot', 'list'], env), { code: 0, stdout: 'No snapshots.\n', stderr: '' });
      assert.deepEqual(await cli(['snapshot', 'restore', 'cli'], env), { code: 1, stdout: '', stderr: 'error: 404 Snapshot Not Found\n' });
    });
  });
}
