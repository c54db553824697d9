import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { api, runCli, startServe, tempDir } from './cli-process.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet init, then serve on the same data`, () => {
    const data = tempDir();
    let database: { url: string; drop(): Promise<void> } | null = null;
    let storage: string[];
    let rootToken: string;
    let projectId: number;

    before(async () => {
      storage = ['--data', data.path];
      if (dialect === 'postgres') {
        database = await createTestDatabaseUrl('postgres');
        storage.push('--database-url', database.url);
      }
    });

    after(async () => {
      await database?.drop();
      data.remove();
    });

    it('creates the data dir, migrates, creates root and prints its token', async () => {
      const r = await runCli(['init', ...storage, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      rootToken = out.root_token;
      assert.match(rootToken, /^glpat-/);
      const shownDatabase = dialect === 'sqlite' ? join(data.path, 'forgelet.db') : database!.url.replace(/^(postgres:\/\/[^:]+:)[^@]+@/, '$1***@');
      assert.deepEqual(out, { data_dir: data.path, database: shownDatabase, root_created: true, root_token: rootToken });
      assert.equal(statSync(join(data.path, 'blobs')).isDirectory(), true);
      assert.equal(statSync(join(data.path, 'secret.key')).mode & 0o777, 0o600);
      assert.equal(existsSync(join(data.path, 'forgelet.db')), dialect === 'sqlite');
    });

    it('says root already exists on a second init, and makes a given root token valid', async () => {
      const again = await runCli(['init', ...storage]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^Initialized .+\nRoot user already exists; its token is not shown again/);
      const given = await runCli(['init', ...storage, '--json'], { FORGELET_ROOT_TOKEN: 'glpat-cli-init-given-000001' });
      assert.equal(given.code, 0, given.stderr);
      assert.deepEqual({ ...JSON.parse(given.stdout), database: null }, { data_dir: data.path, database: null, root_created: false, root_token: 'glpat-cli-init-given-000001' });
    });

    it("serve reuses the data: init's root token works and no new root is created", async () => {
      const server = await startServe(['--port', '0', ...storage]);
      assert.equal(server.ready, `Forgelet listening on ${server.url}`);
      assert.equal(server.output().stdout.indexOf('Root user created'), -1);
      const me = await api(server.url, 'GET', '/user', rootToken);
      assert.deepEqual([me.status, me.body.username], [200, 'root']);
      assert.equal((await api(server.url, 'GET', '/user', 'glpat-cli-init-given-000001')).status, 200);
      const project = await api(server.url, 'POST', '/projects', rootToken, { name: 'kept' });
      assert.equal(project.status, 201);
      projectId = project.body.id;
      const stopped = await server.stop('SIGINT');
      assert.deepEqual([stopped.code, stopped.signal], [0, null]);
      assert.match(stopped.stderr, /SIGINT: stopping/);
    });

    it('a restart keeps the data', async () => {
      const server = await startServe(['--port', '0', ...storage]);
      try {
        const project = await api(server.url, 'GET', `/projects/${projectId}`, rootToken);
        assert.deepEqual([project.status, project.body.name], [200, 'kept']);
      } finally {
        assert.equal((await server.stop()).code, 0);
      }
    });
  });
}
