// `forgelet flow-executor --once` end to end, both sides as users start them: the built
// `bin/forgelet.js flow-executor` against `bin/forgelet.js serve` (test/support/served.ts). Flows
// started over REST with start_workflow are taken through the runner API, the example agent
// (examples/agent-flow/agent.mjs) runs with the goal on stdin, each printed line becomes an ai
// message, and the exit code finishes or fails the flow. The CLI does not depend on the SQL
// dialect, so this runs once, on SQLite.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { ROOT, runBin } from './cli-process.js';

const AGENT = `"${process.execPath}" "${join(ROOT, 'examples/agent-flow/agent.mjs')}"`;

describe('forgelet flow-executor end to end', { skip: DIALECTS.includes('sqlite') ? false : 'runs once, with the sqlite dialect' }, () => {
  let f: ServedForgelet;
  let projectId: number;
  let runnerToken: string;

  before(async () => {
    f = await startServed('sqlite');
    const project = await f.api('POST', '/projects', { body: { name: 'agents' } });
    assert.equal(project.status, 201);
    projectId = project.body.id;
    const runner = await f.api('POST', '/user/runners', { body: { runner_type: 'project_type', project_id: projectId } });
    assert.equal(runner.status, 201);
    runnerToken = runner.body.token;
  });
  after(() => f?.stop());

  async function startFlow(goal: string, extra: Record<string, unknown> = {}): Promise<any> {
    const r = await f.api('POST', '/ai/agent_workflows/workflows', { body: { project_id: String(projectId), goal, start_workflow: true, ...extra } });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.status, 'running');
    return r.body;
  }

  const trace = async (id: number) => {
    const r = await f.api('GET', `/ai/agent_workflows/workflows/${id}/trace.jsonl`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-ndjson');
    return r.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  };

  it('runs the agent: the flow ends finished and its trace shows the goal then the ai lines', async () => {
    // A callback receiver on loopback gets flow.started and flow.completed, signed.
    const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const hits: { headers: IncomingHttpHeaders; body: string }[] = [];
    const recv = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => {
        hits.push({ headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((resolve) => recv.listen(0, '127.0.0.1', resolve));
    const hook = await f.api('POST', '/ai/agent_workflows/flow_callbacks', {
      body: { url: `http://127.0.0.1:${(recv.address() as AddressInfo).port}/`, signing_token: secret, token: 'exec-token' },
    });
    assert.equal(hook.status, 201);
    const flow = await startFlow('Summarise the README file', {
      agent_privileges: [1, 2],
      additional_context: [{ Category: 'file', Content: '{"path":"README.md"}' }],
      callback_hook_id: hook.body.id,
    });
    const exec = await runBin(['flow-executor', '--url', f.url, '--token', runnerToken, '--command', AGENT, '--once', '--json']);
    assert.equal(exec.code, 0, exec.stderr);
    const outcomes = exec.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(outcomes, [{ flow: flow.id, job: Number(flow.workload.id), status: 'finished', exit_code: 0, messages: 5 }]);
    const after = await f.api('GET', `/ai/agent_workflows/workflows/${flow.id}`);
    assert.equal(after.body.status, 'finished');
    const entries = await trace(flow.id);
    assert.deepEqual(entries.map((e) => [e.message_type, e.content, e.status]), [
      ['human', 'Summarise the README file', 'success'],
      ['ai', 'Goal received: Summarise the README file', 'success'],
      ['ai', 'Privileges: read_write_files,read_only_platform', 'success'],
      ['ai', 'Context items: 1', 'success'],
      ['ai', 'Plan: 4 word(s) to work through', 'success'],
      ['ai', 'Done', 'success'],
    ]);
    const latest = await f.api('GET', `/ai/agent_workflows/workflows/${flow.id}/trace.jsonl?thread=latest`);
    assert.equal(latest.text.split('\n').filter(Boolean).length, 6);
    // The workload job succeeded with the program's output in its log.
    const job = await f.api('GET', `/projects/${projectId}/jobs/${flow.workload.id}`);
    assert.equal(job.body.status, 'success');
    const log = await f.api('GET', `/projects/${projectId}/jobs/${flow.workload.id}/trace`);
    assert.match(log.text, /Goal received: Summarise the README file/);
    // The flow's token ended with the flow.
    const checkpoints = await f.api('GET', `/ai/agent_workflows/workflows/${flow.id}/checkpoints?per_page=100`);
    assert.equal(checkpoints.body.length, 6);
    assert.equal(checkpoints.body[0].parent_ts, checkpoints.body[1].thread_ts);
    // The served worker delivers callbacks; running the queue now waits for a delivery in flight
    // and makes any still due, so both have reached the receiver.
    await f.runDue();
    await new Promise<void>((resolve) => recv.close(() => resolve()));
    const events = hits.map((h) => {
      assert.equal(h.headers['x-service-token'], 'exec-token');
      return new Webhook(secret).verify(h.body, h.headers as Record<string, string>) as any;
    });
    assert.deepEqual(events.map((e) => [e.type, e.data.id, e.data.status]), [['flow.started', flow.id, 'running'], ['flow.completed', flow.id, 'finished']]);
  });

  it('fails the flow when the agent exits non-zero', async () => {
    const flow = await startFlow('Please fail now');
    const exec = await runBin(['flow-executor', '--url', f.url, '--token', runnerToken, '--command', AGENT, '--once']);
    assert.equal(exec.code, 0, exec.stderr);
    assert.equal(exec.stdout, `flow ${flow.id} (job ${flow.workload.id}) failed (exit code 3), 4 messages\n`);
    assert.equal((await f.api('GET', `/ai/agent_workflows/workflows/${flow.id}`)).body.status, 'failed');
    assert.deepEqual((await trace(flow.id)).map((e) => e.content).slice(-1), ['Giving up as asked']);
    const job = await f.api('GET', `/projects/${projectId}/jobs/${flow.workload.id}`);
    assert.equal(job.body.status, 'failed');
    assert.equal(job.body.failure_reason, 'script_failure');
  });

  it('takes every pending flow with --once, then exits; nothing pending is a clean exit', async () => {
    const a = await startFlow('first');
    const b = await startFlow('second');
    const both = await runBin(['flow-executor', '--url', f.url, '--token', runnerToken, '--command', AGENT, '--once', '--json']);
    assert.equal(both.code, 0, both.stderr);
    assert.deepEqual(both.stdout.trim().split('\n').map((l) => JSON.parse(l).flow), [a.id, b.id]);
    const idle = await runBin(['flow-executor', '--url', f.url, '--token', runnerToken, '--command', AGENT, '--once']);
    assert.equal(idle.code, 0, idle.stderr);
    assert.equal(idle.stdout, '');
  });

  it('refuses missing options and a bad runner token', async () => {
    const noCommand = await runBin(['flow-executor', '--url', f.url, '--token', runnerToken, '--once']);
    assert.notEqual(noCommand.code, 0);
    assert.match(noCommand.stderr, /an agent program is needed/);
    const noToken = await runBin(['flow-executor', '--url', f.url, '--command', 'true', '--once']);
    assert.notEqual(noToken.code, 0);
    assert.match(noToken.stderr, /a runner token is needed/);
    const badToken = await runBin(['flow-executor', '--url', f.url, '--token', 'glrt-nope', '--command', 'true', '--once']);
    assert.equal(badToken.code, 1);
    assert.match(badToken.stderr, /the runner token was refused \(403\)/);
  });
});
