/** `forgelet deploy-tokens list|create|revoke` for projects, groups and (list) the instance: tables, JSON, errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject } from '../server/http.js';
import { runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet deploy-tokens`, () => {
    let f: TestForgelet;
    let bob: { id: number; username: string; token: string };
    let project: { id: number; path_with_namespace: string };
    const cli = (args: string[], token = f.rootToken) => runIn([...args, '--url', f.url, '--token', token]);
    /** The project's NuGet search with a deploy token: 200 while it is valid. */
    const feedStatus = async (token: string) =>
      (await fetch(`${f.url}/api/v4/projects/${project.id}/packages/nuget/query?q=x`, { headers: { 'Deploy-Token': token } })).status;

    before(async () => {
      f = await startTestServer(dialect);
      const group = await createGroup(f, f.rootToken, { name: 'Deploy', path: 'dt' });
      project = await createProject(f, f.rootToken, { name: 'App', path: 'app', namespace_id: group.id });
      bob = await f.createUser('bob');
      await addMember(f, 'groups', group.id, bob.id, 30);
    });
    after(() => f.stop());

    it('project: create prints the token once, list never shows it, revoke deletes it', async () => {
      const p = ['--project', project.path_with_namespace];
      const created = await cli(['deploy-tokens', 'create', ...p, '--name', 'ci', '--scopes', 'read_package_registry,write_package_registry', '--username', 'ci-bot', '--expires-at', '2999-01-01']);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^gldt-[\w-]+\n$/);
      const secret = created.stdout.trim();
      assert.equal(await feedStatus(secret), 200);

      const [token] = (await f.api('GET', `/projects/${project.id}/deploy_tokens`)).body as { id: number }[];
      const table = await cli(['deploy-tokens', 'list', ...p]);
      assert.equal(table.code, 0, table.stderr);
      assert.deepEqual(tableCells(table.stdout), [
        ['ID', 'NAME', 'USERNAME', 'STATE', 'EXPIRES', 'SCOPES'],
        [String(token!.id), 'ci', 'ci-bot', 'active', '2999-01-01T00:00:00.000Z', 'read_package_registry,write_package_registry'],
      ]);
      const json = await cli(['deploy-tokens', 'list', '--project', String(project.id), '--json']);
      assert.deepEqual(JSON.parse(json.stdout), [
        { id: token!.id, name: 'ci', username: 'ci-bot', expires_at: '2999-01-01T00:00:00.000Z', scopes: ['read_package_registry', 'write_package_registry'], revoked: false, expired: false },
      ]);
      assert.ok(!table.stdout.includes(secret) && !json.stdout.includes(secret), 'lists never print the token');

      assert.deepEqual(await cli(['deploy-tokens', 'revoke', ...p, String(token!.id)]), { code: 0, stdout: `Deleted deploy token ${token!.id}.\n`, stderr: '' });
      assert.equal(await feedStatus(secret), 401);
      assert.equal((await cli(['deploy-tokens', 'list', ...p])).stdout, 'No deploy tokens.\n');
    });

    it('group: create --json; the instance list (administrators), --active', async () => {
      const made = await cli(['deploy-tokens', 'create', '--group', 'dt', '--name', 'grp', '--scopes', 'read_package_registry', '--json']);
      assert.equal(made.code, 0, made.stderr);
      const grp = JSON.parse(made.stdout);
      assert.deepEqual([grp.name, grp.username, grp.scopes, grp.expires_at], ['grp', `gitlab+deploy-token-${grp.id}`, ['read_package_registry'], null]);
      assert.match(grp.token, /^gldt-/);
      assert.equal(await feedStatus(grp.token), 200, "a group's token reads its projects' feed");
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const made2 = await cli(['deploy-tokens', 'create', '--project', String(project.id), '--name', 'other', '--scopes', 'read_repository', '--expires-at', tomorrow, '--json']);
      const other = JSON.parse(made2.stdout);

      const ids = async (args: string[], token?: string) => JSON.parse((await cli(['deploy-tokens', 'list', ...args, '--json'], token)).stdout).map((t: { id: number }) => t.id);
      assert.deepEqual(await ids(['--group', 'dt']), [grp.id]);
      assert.deepEqual(await ids(['--instance']), [grp.id, other.id]);
      f.clock.set(new Date(Date.now() + 3 * 86_400_000));
      try {
        assert.deepEqual(await ids(['--instance', '--active']), [grp.id], 'the expired one is left out');
        assert.deepEqual(tableCells((await cli(['deploy-tokens', 'list', '--project', String(project.id)])).stdout)[1]!.slice(0, 4), [String(other.id), 'other', `gitlab+deploy-token-${other.id}`, 'expired']);
      } finally {
        f.clock.set(new Date());
      }
      assert.deepEqual(await cli(['deploy-tokens', 'revoke', '--group', 'dt', String(grp.id), '--json']), { code: 0, stdout: `{"id":${grp.id},"deleted":true}\n`, stderr: '' });
      assert.deepEqual(await ids(['--instance']), [other.id]);
      assert.deepEqual(await cli(['deploy-tokens', 'list', '--instance'], bob.token), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
    });

    it("the server's refusals exit 1; usage errors exit 2", async () => {
      const p = ['--project', project.path_with_namespace];
      assert.deepEqual(await cli(['deploy-tokens', 'create', ...p, '--name', 'x', '--scopes', 'api']), { code: 1, stdout: '', stderr: 'error: 400 scopes does not have a valid value\n' });
      assert.deepEqual(await cli(['deploy-tokens', 'create', ...p, '--name', 'x', '--scopes', 'read_repository'], bob.token), { code: 1, stdout: '', stderr: 'error: 403 Forbidden\n' });
      assert.deepEqual(await cli(['deploy-tokens', 'revoke', ...p, '99999']), { code: 1, stdout: '', stderr: 'error: 404 Deploy Token Not Found\n' });
      assert.deepEqual(await cli(['deploy-tokens', 'list', '--project', 'nope/nope']), { code: 1, stdout: '', stderr: 'error: 404 Project Not Found\n' });
      assert.deepEqual(await cli(['deploy-tokens', 'list']), { code: 2, stdout: '', stderr: 'error: give exactly one of --project, --group, --instance\n' });
      assert.deepEqual(await cli(['deploy-tokens', 'create', ...p, '--group', 'dt', '--name', 'x', '--scopes', 'read_repository']), {
        code: 2, stdout: '', stderr: 'error: give exactly one of --project, --group\n',
      });
      const instance = await cli(['deploy-tokens', 'create', '--instance', '--name', 'x', '--scopes', 'read_repository']);
      assert.equal(instance.code, 2);
      assert.match(instance.stderr, /^error: unknown option '--instance'/);
      assert.deepEqual(await cli(['deploy-tokens', 'revoke', ...p, 'abc']), { code: 2, stdout: '', stderr: 'error: token id must be a positive integer, got "abc"\n' });
    });
  });
}
