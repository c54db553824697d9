/** `forgelet catalog list|create|enable` and `forgelet flows trigger --catalog-item` against a server (GraphQL underneath). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createProject } from '../server/http.js';
import { runIn, tableCells } from './cli-io.js';

const FLOW_YAML = 'version: v1\nenvironment: ambient\ncomponents:\n  - name: writer\n    type: AgentComponent\n    prompt_id: notes\n';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet catalog`, () => {
    let f: TestForgelet;
    let maint: { id: number; username: string; token: string };
    let dev: { id: number; username: string; token: string };
    let project: { id: number; path_with_namespace: string };
    const cli = (args: string[], token = maint.token) => runIn([...args, '--url', f.url, '--token', token]);
    const definitionFile = join(mkdtempSync(join(tmpdir(), 'forgelet-catalog-')), 'flow.yml');

    before(async () => {
      f = await startTestServer(dialect, { workers: false });
      maint = await f.createUser('catcli-maint');
      dev = await f.createUser('catcli-dev');
      project = await createProject(f, maint.token, { name: 'notes', path: 'notes' });
      await addMember(f, 'projects', project.id, dev.id, 30);
      writeFileSync(definitionFile, FLOW_YAML);
    });
    after(() => f.stop());

    it('create makes a released flow (or an agent), list shows the items you may read', async () => {
      const created = await cli(['catalog', 'create', project.path_with_namespace, '--name', 'Notes writer', '--description', 'Writes release notes', '--definition-file', definitionFile]);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^Item: +(\d+)\nName: +Notes writer\nType: +flow\nVisibility: +private\nProject: +catcli-maint\/notes\nVersion: +1\.0\.0\n$/);
      const agent = await cli(['catalog', 'create', String(project.id), '--type', 'agent', '--name', 'Helper', '--description', 'Helps', '--system-prompt', 'Be brief', '--public', '--draft', '--json']);
      assert.equal(agent.code, 0, agent.stderr);
      const agentItem = JSON.parse(agent.stdout);
      assert.deepEqual([agentItem.itemType, agentItem.public, agentItem.latestVersion.versionName, agentItem.latestVersion.released], ['AGENT', true, '1.0.0', false]);

      const table = await cli(['catalog', 'list'], dev.token);
      assert.deepEqual(tableCells(table.stdout).map((r) => r.slice(1)), [
        ['NAME', 'TYPE', 'VISIBILITY', 'PROJECT', 'VERSION'],
        ['Helper', 'agent', 'public', 'catcli-maint/notes', '1.0.0 (draft)'],
        ['Notes writer', 'flow', 'private', 'catcli-maint/notes', '1.0.0'],
      ]);
      const flows = JSON.parse((await cli(['catalog', 'list', '--type', 'flow', '--json'], dev.token)).stdout);
      assert.deepEqual(flows.map((i: { name: string }) => i.name), ['Notes writer']);
      // A stranger sees only the public agent.
      const stranger = await f.createUser('catcli-stranger');
      assert.deepEqual(tableCells((await cli(['catalog', 'list'], stranger.token)).stdout).map((r) => r[1]), ['NAME', 'Helper']);
      // Developers cannot create items: the server's refusal.
      const denied = await cli(['catalog', 'create', String(project.id), '--name', 'Nope', '--description', 'x', '--definition', 'version: v1'], dev.token);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /^error: .*(permission|403)/);
      assert.deepEqual(await cli(['catalog', 'create', String(project.id), '--name', 'Nope', '--description', 'x']), { code: 2, stdout: '', stderr: 'error: a flow needs --definition or --definition-file\n' });
    });

    it('enable an item by name for a project; list --project shows its consumer id; flows trigger runs it by name', async () => {
      const enabled = await cli(['catalog', 'enable', 'Notes writer', '--project', project.path_with_namespace]);
      assert.equal(enabled.code, 0, enabled.stderr);
      const [, consumerId] = /consumer (\d+)\.\n$/.exec(enabled.stdout)!;
      assert.equal(enabled.stdout, `Enabled Notes writer for catcli-maint/notes: consumer ${consumerId}.\n`);
      const again = await cli(['catalog', 'enable', 'Notes writer', '--project', String(project.id)]);
      assert.deepEqual([again.code, again.stderr], [1, 'error: aiCatalogItemConsumerCreate: Item already configured\n']);

      const listed = await cli(['catalog', 'list', '--project', project.path_with_namespace], dev.token);
      assert.deepEqual(tableCells(listed.stdout), [
        ['CONSUMER', 'ITEM', 'TYPE', 'ENABLED', 'PINNED', 'WHERE'],
        [consumerId!, 'Notes writer', 'flow', 'yes', '-', 'catcli-maint/notes'],
      ]);

      const triggered = await cli(['flows', 'trigger', project.path_with_namespace, '--catalog-item', 'Notes writer', '--goal', 'Notes for 2.0', '--json'], dev.token);
      assert.equal(triggered.code, 0, triggered.stderr);
      const flow = JSON.parse(triggered.stdout);
      assert.deepEqual([flow.project_id, flow.workflow_definition, flow.title, typeof flow.ai_catalog_item_version_id], [project.id, 'ai_catalog_agent', 'Notes for 2.0', 'number']);
      const human = await cli(['flows', 'trigger', String(project.id), '--catalog-item', 'Notes writer'], dev.token);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^Flow: +\d+\nStatus: +created\n.*Definition: +ai_catalog_agent\nCatalog version: +\d+\n/s);
      const missing = await cli(['flows', 'trigger', String(project.id), '--catalog-item', 'Helper'], dev.token);
      assert.deepEqual(missing, { code: 1, stdout: '', stderr: `error: no catalog item named "Helper" is enabled for ${project.id}\n` });
      assert.deepEqual(await cli(['flows', 'trigger', String(project.id)], dev.token), { code: 2, stdout: '', stderr: 'error: give exactly one of --catalog-item, --definition\n' });
    });
  });
}
