/**
 * Agent flows: the trigger attributes and their rules, the flow object, the workload (a CI job
 * with the flow's inputs as variables and a token limited to its privileges), the status
 * machine, checkpoints, the JSON Lines trace, agent privileges and callback endpoints.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { addMember, createProject, createUsers, expectStatus } from './http.js';
import { createRunner, requestJob } from './ci-support.js';

type User = { id: number; username: string; token: string };
const NOW = '2025-03-01T10:00:00.000Z';
const SIGNING = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: agent flows`, () => {
    let f: TestForgelet;
    let dev: User;
    let reporter: User;
    let other: User;
    let project: any;
    let runner: { id: number; token: string };

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW), workers: false });
      [dev, reporter, other] = await createUsers(f, ['fdev', 'frep', 'fother']);
      project = await createProject(f, dev.token, { name: 'agent', visibility: 'private' });
      await commitFiles(f, project.id, 'main', { 'README.md': 'hi' });
      await addMember(f, 'projects', project.id, reporter.id, 20);
      runner = await createRunner(f, dev.token, { runner_type: 'project_type', project_id: project.id });
    });
    after(() => f.stop());

    const create = (body: Record<string, unknown>, token = dev.token) => f.api('POST', '/ai/agent_workflows/workflows', { token, body });

    it('creates a flow with the defaults and the spec fields', async () => {
      const r = await create({ project_id: String(project.id), goal: 'Fix the README', workflow_definition: 'software_development' });
      expectStatus(r, 201);
      assert.equal(r.headers.get('content-type'), 'application/json');
      const { id, ...rest } = r.body;
      assert.ok(Number.isInteger(id));
      assert.deepEqual(rest, {
        project_id: project.id,
        namespace_id: null,
        agent_privileges: [1, 2, 3, 4, 5, 6],
        agent_privileges_names: ['read_write_files', 'read_only_platform', 'read_write_platform', 'run_commands', 'use_git', 'run_mcp_tools'],
        pre_approved_agent_privileges: [1, 2],
        pre_approved_agent_privileges_names: ['read_write_files', 'read_only_platform'],
        workflow_definition: 'software_development',
        status: 'created',
        allow_agent_to_request_user: true,
        image: null,
        environment: null,
        ai_catalog_item_version_id: null,
        mcp_enabled: true,
        instance_url: f.url,
        summary: '',
        title: 'Fix the README',
        workload: { id: null, message: null },
      });
      // The GitLab spelling serves the same flows.
      const g = await f.api('GET', `/ai/duo_workflows/workflows/${id}`, { token: dev.token });
      expectStatus(g, 200);
      assert.equal(g.body.id, id);
      assert.equal(g.body.workload, undefined);
    });

    it('refuses every rule with a 400 naming it', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ goal: 'x' }, { error: 'project_id, namespace_id are missing, exactly one parameter must be provided' }],
        [{ project_id: String(project.id), namespace_id: 'fdev' }, { error: 'project_id, namespace_id are mutually exclusive' }],
        [{ namespace_id: 'fdev', issue_id: 1 }, { message: '400 Bad request - issue_id requires project_id' }],
        [{ namespace_id: 'fdev', merge_request_id: 1 }, { message: '400 Bad request - merge_request_id requires project_id' }],
        [{ namespace_id: 'fdev', ai_catalog_item_consumer_id: 4 }, { message: '400 Bad request - ai_catalog_item_consumer_id requires project_id' }],
        [{ project_id: String(project.id), agent_privileges: [1, 9] }, { message: '400 Bad request - Agent privileges contains an invalid value 9' }],
        [{ project_id: String(project.id), agent_privileges: [1], pre_approved_agent_privileges: [1, 4] },
          { message: '400 Bad request - Pre approved agent privileges contains privilege 4 not present in agent_privileges' }],
        [{ project_id: String(project.id), pre_approved_agent_privileges: [7] }, { message: '400 Bad request - Pre approved agent privileges contains an invalid value 7' }],
        [{ project_id: String(project.id), environment: 'desktop' }, { error: 'environment does not have a valid value' }],
        [{ project_id: String(project.id), additional_context: [{ Category: 'file' }] }, { error: 'additional_context[0][Content] is missing' }],
        [{ project_id: String(project.id), additional_context: [{ Content: '{}' }] }, { error: 'additional_context[0][Category] is missing' }],
        [{ project_id: String(project.id), additional_context: [{ Category: 'file', Content: '{}' }, { Category: 'file', Content: 'not json' }] },
          { error: 'additional_context[1][Content] must hold valid serialized JSON' }],
        [{ project_id: String(project.id), additional_context: ['x'] }, { error: 'additional_context[0] is invalid' }],
        [{ project_id: String(project.id), callback_hook_id: 999 }, { error: 'callback_hook_id does not have a valid value' }],
        [{ project_id: String(project.id), goal: 'g'.repeat(16385) }, { error: 'goal is expected to have length less than or equal to 16384' }],
        [{ project_id: String(project.id), shallow_clone: 'maybe' }, { error: 'shallow_clone is invalid' }],
      ];
      for (const [body, expected] of cases) {
        const r = await create(body);
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
        assert.deepEqual(r.body, expected, JSON.stringify(body).slice(0, 200));
      }
      const missingIssue = await create({ project_id: String(project.id), issue_id: 77 });
      assert.equal(missingIssue.status, 404);
    });

    // The catalog attributes (ai_catalog_item_consumer_id, ai_catalog_item_version_id): ai-catalog.test.ts.
    it('accepts every trigger attribute', async () => {
      const r = await create({
        project_id: project.path_with_namespace,
        goal: 'Review',
        agent_privileges: [1, 2, 5],
        pre_approved_agent_privileges: [2],
        workflow_definition: 'code_review/v1',
        allow_agent_to_request_user: false,
        environment: 'ambient',
        image: 'node:22',
        source_branch: 'main',
        shallow_clone: false,
        source: 'issue_sidebar',
        additional_context: [{ Category: 'file', Content: JSON.stringify({ path: 'README.md' }), Metadata: {} }],
      });
      expectStatus(r, 201);
      assert.equal(r.body.workflow_definition, 'code_review/v1');
      assert.deepEqual(r.body.agent_privileges_names, ['read_write_files', 'read_only_platform', 'use_git']);
      assert.deepEqual(r.body.pre_approved_agent_privileges, [2]);
      assert.equal(r.body.allow_agent_to_request_user, false);
      assert.equal(r.body.environment, 'ambient');
      assert.equal(r.body.image, 'node:22');
      assert.equal(r.body.ai_catalog_item_version_id, null);
      assert.equal(r.body.mcp_enabled, false);
      const ns = await create({ namespace_id: 'fdev', goal: 'chat', environment: 'chat' });
      expectStatus(ns, 201);
      assert.equal(ns.body.project_id, null);
      assert.equal(typeof ns.body.namespace_id, 'number');
    });

    it('needs Developer on the project', async () => {
      assert.equal((await create({ project_id: String(project.id) }, reporter.token)).status, 403);
      assert.deepEqual((await create({ project_id: String(project.id) }, other.token)).body, { message: '404 Project Not Found' });
      assert.equal((await create({ namespace_id: 'fdev' }, other.token)).status, 404);
    });

    it('lists the six agent privileges', async () => {
      for (const seg of ['agent_workflows', 'duo_workflows']) {
        const r = await f.api('GET', `/ai/${seg}/workflows/agent_privileges`, { token: reporter.token });
        expectStatus(r, 200);
        assert.deepEqual(r.body.all_privileges.map((p: any) => [p.id, p.name, p.default_enabled]), [
          [1, 'read_write_files', true], [2, 'read_only_platform', true], [3, 'read_write_platform', true],
          [4, 'run_commands', true], [5, 'use_git', true], [6, 'run_mcp_tools', true],
        ]);
        assert.equal(typeof r.body.all_privileges[0].description, 'string');
      }
      assert.equal((await f.api('GET', '/ai/agent_workflows/workflows/agent_privileges', { token: null })).status, 401);
    });

    it('start_workflow creates a CI workload the runner takes with the goal, context, privileges and a limited token', async () => {
      const r = await create({
        project_id: String(project.id),
        goal: 'Write tests',
        start_workflow: true,
        agent_privileges: [1, 2],
        additional_context: [{ Category: 'issue', Content: '{"iid":1}' }],
        image: 'alpine:3',
      });
      expectStatus(r, 201);
      assert.equal(r.body.status, 'running');
      assert.equal(r.body.workload.message, 'Workload started');
      assert.match(r.body.workload.id, /^\d+$/);
      const job = await requestJob(f, runner.token);
      assert.ok(job);
      assert.equal(String(job.id), r.body.workload.id);
      assert.equal(job.image.name, 'alpine:3');
      const vars = Object.fromEntries(job.variables.map((v: any) => [v.key, v.value]));
      assert.equal(vars.CI_PIPELINE_SOURCE, 'duo_workflow');
      assert.equal(vars.DUO_WORKFLOW_WORKFLOW_ID, String(r.body.id));
      assert.equal(vars.DUO_WORKFLOW_GOAL, 'Write tests');
      assert.equal(vars.DUO_WORKFLOW_AGENT_PRIVILEGES, 'read_write_files,read_only_platform');
      assert.deepEqual(JSON.parse(vars.DUO_WORKFLOW_ADDITIONAL_CONTEXT), [{ Category: 'issue', Content: '{"iid":1}' }]);
      const token = vars.GITLAB_OAUTH_TOKEN;
      assert.match(token, /^glpat-/);
      // The pipeline's source is the flow.
      const pipelines = await f.api('GET', `/projects/${project.id}/pipelines?source=duo_workflow`, { token: dev.token });
      expectStatus(pipelines, 200);
      assert.equal(pipelines.body.length, 1);
      // The token reaches this flow (read-only platform: reads, no writes elsewhere).
      expectStatus(await f.api('GET', `/ai/agent_workflows/workflows/${r.body.id}`, { token }), 200);
      expectStatus(await f.api('GET', `/projects/${project.id}`, { token }), 200);
      const write = await f.api('POST', `/projects/${project.id}/issues`, { token, body: { title: 'x' } });
      assert.equal(write.status, 403);
      assert.equal(write.body.error, 'insufficient_scope');
      // Not other flows of the same user.
      const mine = await create({ project_id: String(project.id) });
      assert.deepEqual((await f.api('GET', `/ai/agent_workflows/workflows/${mine.body.id}`, { token })).body, { message: '404 Not found' });
      // The executor drives the flow with it; the end revokes it.
      const cp = await f.api('POST', `/ai/agent_workflows/workflows/${r.body.id}/checkpoints`, {
        token,
        body: { thread_ts: 't1', checkpoint: { channel_values: { ui_chat_log: [] } } },
      });
      expectStatus(cp, 201);
      expectStatus(await f.api('PATCH', `/ai/agent_workflows/workflows/${r.body.id}`, { token, body: { status_event: 'finish' } }), 200);
      assert.equal((await f.api('GET', `/ai/agent_workflows/workflows/${r.body.id}`, { token })).status, 401);
    });

    it('a read_write_platform flow token may write through the API', async () => {
      const r = await create({ project_id: String(project.id), start_workflow: true, agent_privileges: [3] });
      expectStatus(r, 201);
      const job = await requestJob(f, runner.token);
      const token = job.variables.find((v: any) => v.key === 'GITLAB_OAUTH_TOKEN').value;
      expectStatus(await f.api('POST', `/projects/${project.id}/issues`, { token, body: { title: 'by agent' } }), 201);
      expectStatus(await f.api('PATCH', `/ai/agent_workflows/workflows/${r.body.id}`, { token, body: { status_event: 'stop' } }), 200);
    });

    it('moves through the transition table and refuses illegal moves', async () => {
      const flow = (await create({ project_id: String(project.id) })).body;
      const move = (event: string) => f.api('PATCH', `/ai/agent_workflows/workflows/${flow.id}`, { token: dev.token, body: { status_event: event } });
      const steps: [string, number, string][] = [
        ['finish', 400, 'created'], ['pause', 400, 'created'], ['resume', 400, 'created'],
        ['start', 200, 'running'], ['start', 400, 'running'],
        ['pause', 200, 'paused'], ['finish', 400, 'paused'], ['resume', 200, 'running'],
        ['require_input', 200, 'input_required'], ['resume', 200, 'running'],
        ['require_plan_approval', 200, 'plan_approval_required'], ['resume', 200, 'running'],
        ['require_tool_call_approval', 200, 'tool_call_approval_required'], ['drop', 200, 'failed'],
        ['resume', 400, 'failed'], ['retry', 200, 'running'], ['stop', 200, 'stopped'], ['retry', 200, 'running'],
        ['finish', 200, 'finished'], ['retry', 400, 'finished'], ['stop', 400, 'finished'], ['drop', 400, 'finished'],
      ];
      for (const [event, status, after] of steps) {
        const r = await move(event);
        assert.equal(r.status, status, `${event} → ${r.text}`);
        if (status === 400) assert.match(r.body.message, new RegExp(`^400 Bad request - Can not ${event} workflow that has status ${after}$`));
        else assert.equal(r.body.status, after);
      }
      assert.deepEqual((await move('explode')).body, { error: 'status_event does not have a valid value' });
    });

    it('hides others’ flows (404) on every flow route', async () => {
      const flow = (await create({ project_id: String(project.id) })).body;
      const nf = { message: '404 Not found' };
      for (const seg of ['agent_workflows', 'duo_workflows']) {
        assert.deepEqual((await f.api('GET', `/ai/${seg}/workflows/${flow.id}`, { token: other.token })).body, nf);
        assert.deepEqual((await f.api('PATCH', `/ai/${seg}/workflows/${flow.id}`, { token: other.token, body: { status_event: 'start' } })).body, nf);
        assert.deepEqual((await f.api('GET', `/ai/${seg}/workflows/${flow.id}/checkpoints`, { token: other.token })).body, nf);
        assert.deepEqual((await f.api('POST', `/ai/${seg}/workflows/${flow.id}/checkpoints`, { token: other.token, body: { thread_ts: 'a', checkpoint: {} } })).body, nf);
        assert.deepEqual((await f.api('GET', `/ai/${seg}/workflows/${flow.id}/trace.jsonl`, { token: other.token })).body, nf);
      }
      assert.equal((await f.api('GET', '/ai/agent_workflows/workflows/999999', { token: dev.token })).status, 404);
    });

    it('stores checkpoints and serves the trace as JSON Lines by thread', async () => {
      const flow = (await create({ project_id: String(project.id), goal: 'Trace me' })).body;
      const path = `/ai/agent_workflows/workflows/${flow.id}`;
      const empty = await f.api('GET', `${path}/trace.jsonl`, { token: dev.token });
      expectStatus(empty, 200);
      assert.equal(empty.headers.get('content-type'), 'application/x-ndjson');
      assert.equal(empty.text, '');
      const human = { message_type: 'human', content: 'Trace me', status: 'success', timestamp: NOW };
      const ai1 = { message_type: 'ai', content: 'Looking', status: 'success', timestamp: NOW };
      const tool = { message_type: 'tool', content: 'read README.md', status: 'success', timestamp: NOW, tool_info: { name: 'read_file' } };
      const ai2 = { message_type: 'ai', content: 'Done', status: 'success', timestamp: NOW };
      const post = (thread_ts: string, parent_ts: string | undefined, log: unknown[]) =>
        f.api('POST', `${path}/checkpoints`, { token: dev.token, body: { thread_ts, parent_ts, checkpoint: { v: 1, channel_values: { ui_chat_log: log } }, metadata: { step: log.length } } });
      const c1 = await post('1', undefined, [human]);
      expectStatus(c1, 201);
      assert.deepEqual(c1.body, { id: c1.body.id, thread_ts: '1', parent_ts: null, checkpoint: { v: 1, channel_values: { ui_chat_log: [human] } }, metadata: { step: 1 } });
      expectStatus(await post('2', '1', [human, ai1]), 201);
      expectStatus(await post('3', '2', [human, ai1, tool, ai2]), 201);
      const lines = (t: string) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const all = await f.api('GET', `${path}/trace.jsonl`, { token: dev.token });
      assert.deepEqual(lines(all.text), [human, ai1, tool, ai2]);
      assert.ok(all.text.endsWith('\n'));
      assert.deepEqual(lines((await f.api('GET', `${path}/trace.jsonl?thread=latest`, { token: dev.token })).text), [human, ai1, tool, ai2]);
      assert.deepEqual(lines((await f.api('GET', `${path}/trace.jsonl?thread=2`, { token: dev.token })).text), [human, ai1]);
      assert.equal((await f.api('GET', `${path}/trace.jsonl?thread=nope`, { token: dev.token })).text, '');
      const list = await f.api('GET', `${path}/checkpoints?per_page=2`, { token: dev.token });
      expectStatus(list, 200);
      assert.deepEqual(list.body.map((c: any) => c.thread_ts), ['3', '2']);
      assert.equal(list.headers.get('x-total'), '3');
      assert.deepEqual((await f.api('POST', `${path}/checkpoints`, { token: dev.token, body: { checkpoint: {} } })).body, { error: 'thread_ts is missing' });
      assert.deepEqual((await f.api('POST', `${path}/checkpoints`, { token: dev.token, body: { thread_ts: 'x', checkpoint: [1] } })).body, { error: 'checkpoint is invalid' });
    });

    it('flow callbacks: organization owners register, list, read and delete; secrets never shown', async () => {
      const base = '/ai/agent_workflows/flow_callbacks';
      // Not an owner of the organization yet.
      assert.deepEqual((await f.api('POST', base, { token: dev.token, body: { url: 'https://hooks.example.com/a' } })).body, { message: '403 Forbidden' });
      assert.equal((await f.api('GET', base, { token: dev.token })).status, 403);
      // Only administrators grant the role.
      assert.equal((await f.api('POST', '/organizations/default/owners', { token: dev.token, body: { user_id: dev.id } })).status, 403);
      expectStatus(await f.api('POST', '/organizations/default/owners', { body: { user_id: dev.id } }), 201);
      const owners = await f.api('GET', '/organizations/default/owners');
      assert.deepEqual(owners.body.map((o: any) => o.username), ['fdev']);

      const bad: [Record<string, unknown>, string][] = [
        [{ url: 'http://hooks.example.com/a' }, '400 Bad request - url must use HTTPS'],
        [{ url: 'not a url' }, '400 Bad request - url is not a valid URL'],
        [{ url: 'https://hooks.example.com/a', signing_token: 'abc' }, '400 Bad request - signing_token must be whsec_ followed by the base64 encoding of 32 bytes'],
        [{ url: 'https://hooks.example.com/a', signing_token: `whsec_${Buffer.alloc(16).toString('base64')}` }, '400 Bad request - signing_token must be whsec_ followed by the base64 encoding of 32 bytes'],
      ];
      for (const [body, message] of bad) assert.deepEqual((await f.api('POST', base, { token: dev.token, body })).body, { message });
      assert.deepEqual((await f.api('POST', base, { token: dev.token, body: {} })).body, { error: 'url is missing' });

      const a = await f.api('POST', base, { token: dev.token, body: { url: 'https://hooks.example.com/a', name: 'A', signing_token: SIGNING, token: 'shh' } });
      expectStatus(a, 201);
      assert.deepEqual(a.body, { id: a.body.id, url: 'https://hooks.example.com/a', name: 'A', signing_token_set: true, token_set: true, created_at: NOW });
      const b = await f.api('POST', base, { token: dev.token, body: { url: 'https://hooks.example.com/b' } });
      assert.deepEqual([b.body.signing_token_set, b.body.token_set, b.body.name], [false, false, null]);
      // Loopback over plain HTTP is allowed when the instance allows local egress (tests do).
      const local = await f.api('POST', base, { token: dev.token, body: { url: 'http://127.0.0.1:9/x' } });
      expectStatus(local, 201);
      // Encrypted at rest.
      const rows = await f.forge.deps.db.selectFrom('ai_flow_callbacks').selectAll().execute();
      for (const row of rows) {
        assert.ok(!row.url_encrypted.includes('hooks.example.com') && !row.url_encrypted.includes('127.0.0.1'));
        assert.ok(!(row.signing_token_encrypted ?? '').includes('whsec_'));
        assert.ok(!(row.token_encrypted ?? '').includes('shh'));
      }
      const page = await f.api('GET', `${base}?per_page=2`, { token: dev.token });
      expectStatus(page, 200);
      assert.deepEqual(page.body.map((c: any) => c.id), [a.body.id, b.body.id]);
      assert.equal(page.headers.get('x-total'), '3');
      assert.equal(page.headers.get('x-next-page'), '2');
      assert.ok(!JSON.stringify(page.body).includes('shh'));
      expectStatus(await f.api('GET', `/ai/duo_workflows/flow_callbacks/${a.body.id}`, { token: dev.token }), 200);
      // Administrators are owners.
      expectStatus(await f.api('GET', `${base}/${a.body.id}`), 200);
      assert.equal((await f.api('GET', `${base}/${a.body.id}`, { token: other.token })).status, 403);
      // A flow can select it.
      const flow = await create({ project_id: String(project.id), callback_hook_id: a.body.id });
      expectStatus(flow, 201);
      const del = await f.api('DELETE', `${base}/${b.body.id}`, { token: dev.token });
      assert.equal(del.status, 204);
      assert.equal(del.text, '');
      assert.deepEqual((await f.api('GET', `${base}/${b.body.id}`, { token: dev.token })).body, { message: '404 Not found' });
      assert.equal((await f.api('DELETE', `${base}/${b.body.id}`, { token: dev.token })).status, 404);
      expectStatus(await f.api('DELETE', `${base}/${local.body.id}`, { token: dev.token }), 204);
    });

    it('refuses plain-HTTP loopback callbacks when local egress is off', async () => {
      const g = await startTestServer(dialect, { clock: fixedClock(NOW), workers: false, allowLocalEgress: false });
      try {
        const r = await g.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url: 'http://127.0.0.1:9/x' } });
        assert.deepEqual(r.body, { message: '400 Bad request - url must use HTTPS' });
      } finally {
        await g.stop();
      }
    });

    it('refuses local-network callback URLs at registration when local egress is off (422, as GitLab hooks)', async () => {
      const g = await startTestServer(dialect, { clock: fixedClock(NOW), workers: false, allowLocalEgress: false });
      try {
        const refused: [string, string][] = [
          ['https://127.0.0.1:9/x', 'Requests to localhost are not allowed'],
          ['https://[::1]/x', 'Requests to localhost are not allowed'],
          ['https://localhost/x', 'Requests to localhost are not allowed'],
          ['https://[::ffff:127.0.0.1]:9/x', 'Requests to localhost are not allowed'],
          ['https://2130706433/x', 'Requests to localhost are not allowed'],
          ['https://0.0.0.0/x', 'Requests to localhost are not allowed'],
          ['https://127.0.0.2/x', 'Requests to loopback addresses are not allowed'],
          ['https://169.254.169.254/', 'Requests to the link local network are not allowed'],
          ['https://[::ffff:a9fe:a9fe]/latest/meta-data', 'Requests to the link local network are not allowed'],
          ['https://10.1.2.3/hook', 'Requests to the local network are not allowed'],
          ['https://[::ffff:a00:1]/hook', 'Requests to the local network are not allowed'],
          ['https://[64:ff9b::c0a8:101]/hook', 'Requests to the local network are not allowed'],
          ['https://[2002:a00:1::1]/hook', 'Requests to the local network are not allowed'],
          ['https://[fd00::1]/hook', 'Requests to the local network are not allowed'],
          ['https://100.64.0.1/hook', 'Requests to the shared address space are not allowed'],
        ];
        for (const [url, reason] of refused) {
          const r = await g.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url, token: 'x' } });
          assert.equal(r.status, 422, url);
          assert.deepEqual(r.body, { message: { url: [`is blocked: ${reason}`] } }, url);
        }
        assert.deepEqual((await g.api('GET', '/ai/agent_workflows/flow_callbacks')).body, []);
        // Public addresses stay allowed, also embedded in IPv6.
        for (const url of ['https://8.8.8.8/hook', 'https://[2001:4860::8888]/hook', 'https://[::ffff:8.8.8.8]/hook']) {
          expectStatus(await g.api('POST', '/ai/agent_workflows/flow_callbacks', { body: { url } }), 201);
        }
      } finally {
        await g.stop();
      }
    });
  });
}
