/** `forgelet variables list|get|set|delete` for projects, groups and the instance. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject } from '../server/http.js';
import { runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet variables`, () => {
    let f: TestForgelet;
    let dir: string;
    let project: { id: number; path_with_namespace: string };
    let group: { id: number; full_path: string };
    const cli = (args: string[], token = f.rootToken) => runIn([...args, '--url', f.url, '--token', token]);

    before(async () => {
      f = await startTestServer(dialect);
      dir = await mkdtemp(path.join(tmpdir(), 'forgelet-vars-'));
      group = await createGroup(f, f.rootToken, { name: 'CLI Vars', path: 'cli-vars' });
      project = await createProject(f, f.rootToken, { name: 'App', path: 'app', namespace_id: group.id });
    });
    after(async () => {
      await f.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('project: set creates then updates, get prints the value, list shows no values, delete', async () => {
      const p = ['--project', project.path_with_namespace];
      assert.deepEqual(await cli(['variables', 'set', 'API_KEY', 'first-value-1', ...p, '--masked', '--description', 'the key']), { code: 0, stdout: 'Created API_KEY (environments: *).\n', stderr: '' });
      assert.deepEqual(await cli(['variables', 'set', 'API_KEY', 'second-value-2', ...p, '--protected']), { code: 0, stdout: 'Updated API_KEY (environments: *).\n', stderr: '' });
      const file = path.join(dir, 'value.txt');
      await writeFile(file, 'from-a-file\n');
      assert.equal((await cli(['variables', 'set', 'CONF', ...p, '--value-file', file, '--file', '--environment-scope', 'production'])).code, 0);
      assert.deepEqual(await cli(['variables', 'get', 'API_KEY', ...p]), { code: 0, stdout: 'second-value-2\n', stderr: '' });
      assert.equal((await cli(['variables', 'get', 'CONF', ...p, '--environment-scope', 'production'])).stdout, 'from-a-file\n\n');
      const json = JSON.parse((await cli(['variables', 'get', 'API_KEY', ...p, '--json'])).stdout);
      assert.deepEqual(json, { variable_type: 'env_var', key: 'API_KEY', value: 'second-value-2', hidden: false, protected: true, masked: true, raw: false, environment_scope: '*', description: 'the key' });
      const table = await cli(['variables', 'list', ...p]);
      assert.equal(table.code, 0, table.stderr);
      assert.ok(!table.stdout.includes('second-value-2'), 'tables never print values');
      assert.deepEqual(tableCells(table.stdout), [
        ['KEY', 'TYPE', 'ENVIRONMENTS', 'FLAGS', 'DESCRIPTION'],
        ['API_KEY', 'env_var', '*', 'protected,masked', 'the key'],
        ['CONF', 'file', 'production', '-'],
      ]);
      assert.deepEqual(await cli(['variables', 'delete', 'CONF', ...p, '--environment-scope', 'production']), { code: 0, stdout: 'Deleted CONF.\n', stderr: '' });
      assert.deepEqual(await cli(['variables', 'get', 'CONF', ...p]), { code: 1, stdout: '', stderr: 'error: 404 Variable Not Found\n' });
      const refused = await cli(['variables', 'set', 'SHORT', 'abc', ...p, '--masked']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: 400 .*value.*is invalid/);
    });

    it('group: hidden variables cannot be read back; instance: administrators', async () => {
      const g = ['--group', group.full_path];
      assert.equal((await cli(['variables', 'set', 'DEPLOY', 'deploy-secret-1', ...g, '--hidden'])).code, 0);
      assert.deepEqual(await cli(['variables', 'get', 'DEPLOY', ...g]), { code: 2, stdout: '', stderr: 'error: DEPLOY is hidden: its value cannot be read back\n' });
      assert.deepEqual(tableCells((await cli(['variables', 'list', ...g])).stdout)[1], ['DEPLOY', 'env_var', '*', 'hidden']);
      assert.deepEqual(await cli(['variables', 'set', 'DEPLOY', 'x', ...g, '--hidden']), { code: 2, stdout: '', stderr: 'error: DEPLOY exists: only a new variable can be hidden\n' });

      assert.deepEqual(await cli(['variables', 'set', 'EVERYWHERE', 'on', '--instance']), { code: 0, stdout: 'Created EVERYWHERE.\n', stderr: '' });
      assert.deepEqual(JSON.parse((await cli(['variables', 'list', '--instance', '--json'])).stdout).map((v: { key: string }) => v.key), ['EVERYWHERE']);
      const user = await f.createUser('cli-vars-user');
      assert.deepEqual(await cli(['variables', 'list', '--instance'], user.token), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
      assert.deepEqual(await cli(['variables', 'delete', 'EVERYWHERE', '--instance', '--json']), { code: 0, stdout: '{"key":"EVERYWHERE","deleted":true}\n', stderr: '' });
    });

    it('usage errors exit 2', async () => {
      assert.deepEqual(await cli(['variables', 'list']), { code: 2, stdout: '', stderr: 'error: give exactly one of --project, --group, --instance\n' });
      assert.deepEqual(await cli(['variables', 'list', '--project', '1', '--instance']), { code: 2, stdout: '', stderr: 'error: give exactly one of --project, --group, --instance\n' });
      assert.deepEqual(await cli(['variables', 'set', 'K', '--instance']), { code: 2, stdout: '', stderr: 'error: give either the value or --value-file\n' });
      assert.deepEqual(await cli(['variables', 'get', 'K', '--instance', '--environment-scope', 'x']), { code: 2, stdout: '', stderr: 'error: instance variables have no environment scope\n' });
    });
  });
}
