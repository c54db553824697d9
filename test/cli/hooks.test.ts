/** `forgelet hooks list|add|remove|test|events` against a server: project, group and system hooks, JSON and tables. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject } from '../server/http.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { runIn, tableCells } from './cli-io.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet hooks`, () => {
    let f: TestForgelet;
    let rx: HookReceiver;
    let project: { id: number; path_with_namespace: string };
    const cli = (args: string[]) => runIn([...args, '--url', f.url, '--token', f.rootToken]);

    before(async () => {
      f = await startTestServer(dialect);
      rx = await hookReceiver();
      project = await createProject(f, f.rootToken, { name: 'clihooks', path: 'clihooks' });
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    it('adds, lists, tests, shows deliveries of and removes a project hook', async () => {
      const added = await cli(['hooks', 'add', project.path_with_namespace, `${rx.url}/cli`, '--events', 'issues,note', '--secret-token', 'sekrit', '--json']);
      assert.equal(added.code, 0, added.stderr);
      const hook = JSON.parse(added.stdout);
      assert.deepEqual([hook.issues_events, hook.note_events, hook.push_events], [true, true, false]);
      const table = await cli(['hooks', 'list', String(project.id)]);
      assert.deepEqual(tableCells(table.stdout), [['ID', 'URL', 'EVENTS', 'STATUS'], [String(hook.id), `${rx.url}/cli`, 'issues,note', 'executable']]);
      assert.equal((await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'cli' } })).status, 201);
      const tested = await cli(['hooks', 'test', String(project.id), String(hook.id), 'issues_events']);
      assert.equal(tested.code, 0, tested.stderr);
      assert.equal(tested.stdout, `Sent a issues_events sample to hook ${hook.id} (201 Created).\n`);
      assert.equal(rx.deliveries.at(-1)!.headers['x-gitlab-token'], 'sekrit');
      const events = await cli(['hooks', 'events', String(project.id), String(hook.id), '--json']);
      assert.equal(events.code, 0, events.stderr);
      assert.ok(JSON.parse(events.stdout).some((e: { response_status: string }) => e.response_status === '200'));
      const bad = await cli(['hooks', 'add', String(project.id), rx.url, '--events', 'nope']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /unknown event "nope"/);
      assert.equal((await cli(['hooks', 'remove', String(project.id), String(hook.id)])).stdout, `Hook ${hook.id} deleted.\n`);
      assert.equal((await cli(['hooks', 'list', String(project.id)])).stdout, 'No hooks.\n');
    });

    it('group hooks with --group, system hooks with --system', async () => {
      const group = await createGroup(f, f.rootToken, { name: 'clihookgroup', path: 'clihookgroup' });
      const g = await cli(['hooks', 'add', '--group', String(group.id), `${rx.url}/group`, '--events', 'issues,member', '--json']);
      assert.equal(g.code, 0, g.stderr);
      assert.equal(JSON.parse(g.stdout).member_events, true);
      assert.equal(JSON.parse((await cli(['hooks', 'list', '--group', 'clihookgroup', '--json'])).stdout).length, 1);
      const s = await cli(['hooks', 'add', '--system', `${rx.url}/system`, '--json']);
      assert.equal(s.code, 0, s.stderr);
      const sys = JSON.parse(s.stdout);
      const test = await cli(['hooks', 'test', '--system', String(sys.id)]);
      assert.equal(test.stdout, `Sent a project_create sample to hook ${sys.id}.\n`);
      assert.equal((await cli(['hooks', 'remove', '--system', String(sys.id)])).code, 0);
      assert.equal((await cli(['hooks', 'list', '--system'])).stdout, 'No hooks.\n');
    });
  });
}
