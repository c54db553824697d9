/** `forgelet flows list|show|trace|callbacks …` against a server: JSON and human output, errors. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { createProject } from '../server/http.js';
import { runIn, tableCells } from './cli-io.js';

const T = '2024-05-01T10:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: forgelet flows`, () => {
    let f: TestForgelet;
    let dev: { id: number; username: string; token: string };
    let project: { id: number; path_with_namespace: string };
    let other: { id: number };
    let flowId: number;
    const cli = (args: string[], token = dev.token) => runIn([...args, '--url', f.url, '--token', token]);
    const human = { message_type: 'human', content: 'Fix the README', timestamp: T };
    const ai = { message_type: 'ai', content: 'Done', timestamp: T };

    before(async () => {
      f = await startTestServer(dialect);
      dev = await f.createUser('flowcli');
      project = await createProject(f, dev.token, { name: 'agent', path: 'agent' });
      other = await createProject(f, dev.token, { name: 'other', path: 'other' });
      await commitFiles(f, project.id, 'main', { 'README.md': 'hi' });
      const flow = await f.api('POST', '/ai/agent_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), goal: 'Fix the README', start_workflow: true } });
      assert.equal(flow.status, 201, flow.text);
      flowId = flow.body.id;
      const path = `/ai/agent_workflows/workflows/${flowId}/checkpoints`;
      const post = (thread_ts: string, parent_ts: string | undefined, log: unknown[]) =>
        f.api('POST', path, { token: dev.token, body: { thread_ts, parent_ts, checkpoint: { channel_values: { ui_chat_log: log } }, metadata: { step: log.length } } });
      assert.equal((await post('t1', undefined, [human])).status, 201);
      assert.equal((await post('t2', 't1', [human, ai])).status, 201);
    });
    after(() => f.stop());

    it('list shows the flow workloads of a project (pipelines of source duo_workflow)', async () => {
      const json = await cli(['flows', 'list', project.path_with_namespace, '--json']);
      assert.equal(json.code, 0, json.stderr);
      const [workload, ...rest] = JSON.parse(json.stdout);
      assert.equal(rest.length, 0);
      assert.equal(workload.source, 'duo_workflow');
      assert.deepEqual(workload.jobs.map((j: { name: string }) => j.name), ['agent_flow']);
      const table = await cli(['flows', 'list', String(project.id)]);
      assert.deepEqual(tableCells(table.stdout).map((r) => r.slice(0, 5)), [
        ['PIPELINE', 'STATUS', 'JOB', 'USER', 'REF'],
        [String(workload.id), workload.status, `${workload.jobs[0].id} agent_flow`, 'flowcli', 'main'],
      ]);
      assert.equal((await cli(['flows', 'list', String(other.id)])).stdout, 'No flow workloads.\n');
    });

    it('show and trace: the flow, its checkpoints (oldest first) and its chat log', async () => {
      const shown = await cli(['flows', 'show', String(flowId), '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(JSON.parse(shown.stdout).project_id, project.id);
      const trace = await cli(['flows', 'trace', project.path_with_namespace, String(flowId), '--json']);
      assert.equal(trace.code, 0, trace.stderr);
      const doc = JSON.parse(trace.stdout);
      assert.equal(doc.flow.id, flowId);
      assert.deepEqual(doc.checkpoints.map((c: { thread_ts: string }) => c.thread_ts), ['t1', 't2']);
      assert.deepEqual(doc.trace, [human, ai]);
      const latest = await cli(['flows', 'trace', String(project.id), String(flowId), '--thread', 't1', '--json']);
      assert.deepEqual(JSON.parse(latest.stdout).trace, [human]);

      const text = await cli(['flows', 'trace', String(project.id), String(flowId)]);
      assert.equal(text.code, 0, text.stderr);
      const [head, checkpoints, log] = text.stdout.split('\n\n');
      assert.match(head!, new RegExp(`^Flow: +${flowId}\\nStatus: +\\w+\\nProject: +${project.id}\\n`));
      const [title, ...rows] = checkpoints!.split('\n');
      assert.equal(title, 'Checkpoints (2):');
      assert.deepEqual(tableCells(rows.join('\n')).map((r) => r.slice(1)), [['THREAD', 'PARENT', 'STEP'], ['t1', '-', '1'], ['t2', 't1', '2']]);
      assert.equal(log, `Chat log (2 entries):\n  ${T} human: Fix the README\n  ${T} ai: Done\n`);
    });

    it('trace refuses a flow of another project; unknown flows are the server\'s 404', async () => {
      assert.deepEqual(await cli(['flows', 'trace', String(other.id), String(flowId)]), { code: 1, stdout: '', stderr: `error: flow ${flowId} is not a flow of project ${other.id}\n` });
      const missing = await cli(['flows', 'show', '999999']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^error: 404 /);
      const stranger = await f.createUser('flowstranger');
      const hidden = await cli(['flows', 'show', String(flowId)], stranger.token);
      assert.equal(hidden.code, 1);
      assert.match(hidden.stderr, /^error: 404 /);
      assert.deepEqual(await cli(['flows', 'show', 'x']), { code: 2, stdout: '', stderr: 'error: flow id must be a positive integer, got "x"\n' });
    });

    it('callbacks create, list, deliveries and delete (organization owners)', async () => {
      const created = await cli(['flows', 'callbacks', 'create', '--callback-url', 'http://127.0.0.1:1/hook', '--name', 'recv', '--service-token', 'sekrit', '--json'], f.rootToken);
      assert.equal(created.code, 0, created.stderr);
      const hook = JSON.parse(created.stdout);
      assert.deepEqual([hook.url, hook.name, hook.token_set, hook.signing_token_set], ['http://127.0.0.1:1/hook', 'recv', true, false]);
      const human = await cli(['flows', 'callbacks', 'create', '--callback-url', 'http://127.0.0.1:1/other'], f.rootToken);
      assert.match(human.stdout, /^Created flow callback \d+ for http:\/\/127\.0\.0\.1:1\/other\.\n$/);
      const table = await cli(['flows', 'callbacks', 'list'], f.rootToken);
      assert.deepEqual(tableCells(table.stdout).map((r) => [r[0], r[1], r[2], r[3], r[5]]), [
        ['ID', 'NAME', 'SIGNED', 'TOKEN', 'URL'],
        [String(hook.id), 'recv', 'no', 'yes', 'http://127.0.0.1:1/hook'],
        [String(hook.id + 1), '-', 'no', 'no', 'http://127.0.0.1:1/other'],
      ]);
      assert.equal((await cli(['flows', 'callbacks', 'deliveries', String(hook.id)], f.rootToken)).stdout, 'No deliveries.\n');
      assert.deepEqual(JSON.parse((await cli(['flows', 'callbacks', 'deliveries', String(hook.id), '--json'], f.rootToken)).stdout), []);
      const forbidden = await cli(['flows', 'callbacks', 'list'], dev.token);
      assert.equal(forbidden.code, 1);
      assert.match(forbidden.stderr, /^error: 403 /);
      const bad = await cli(['flows', 'callbacks', 'create', '--callback-url', 'ftp://x'], f.rootToken);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /^error: 4\d\d /);
      assert.deepEqual(await cli(['flows', 'callbacks', 'delete', String(hook.id)], f.rootToken), { code: 0, stdout: `Deleted flow callback ${hook.id}.\n`, stderr: '' });
      assert.deepEqual(JSON.parse((await cli(['flows', 'callbacks', 'delete', String(hook.id + 1), '--json'], f.rootToken)).stdout), { id: hook.id + 1, deleted: true });
      assert.equal((await cli(['flows', 'callbacks', 'list', '--json'], f.rootToken)).stdout, '[]\n');
      const gone = await cli(['flows', 'callbacks', 'delete', String(hook.id)], f.rootToken);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /^error: 404 /);
    });
  });
}
