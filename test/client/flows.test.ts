import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

const SIGNING = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: client agent flows`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect, { workers: false });
      api = clientFor(f);
    });
    after(() => f.stop());

    it('creates, drives, checkpoints and traces a flow', async () => {
      const project = await api.projects.create({ name: 'flows' });
      const flow = await api.agentFlows.create({ project_id: project.id, goal: 'Do it', environment: 'web' });
      assert.equal(flow.status, 'created');
      assert.deepEqual(flow.workload, { id: null, message: null });
      assert.equal((await api.agentFlows.updateStatus(flow.id, 'start')).status, 'running');
      const bad = await apiError(api.agentFlows.updateStatus(flow.id, 'resume'));
      assert.deepEqual([bad.status, bad.body], [400, { message: '400 Bad request - Can not resume workflow that has status running' }]);
      const human = { message_type: 'human', content: 'Do it', status: 'success' };
      const ai = { message_type: 'ai', content: 'Done', status: 'success' };
      await api.agentFlows.createCheckpoint(flow.id, { thread_ts: 'a', checkpoint: { channel_values: { ui_chat_log: [human] } } });
      const cp = await api.agentFlows.createCheckpoint(flow.id, { thread_ts: 'b', parent_ts: 'a', checkpoint: { channel_values: { ui_chat_log: [human, ai] } }, metadata: { step: 2 } });
      assert.deepEqual(cp.metadata, { step: 2 });
      assert.deepEqual((await api.agentFlows.checkpoints(flow.id, { per_page: 1 }).toArray()).map((c) => c.thread_ts), ['b', 'a']);
      assert.deepEqual(await api.agentFlows.trace(flow.id), [human, ai]);
      assert.deepEqual(await api.agentFlows.trace(flow.id, { thread: 'a' }), [human]);
      assert.equal((await api.agentFlows.updateStatus(flow.id, 'finish')).status, 'finished');
      assert.equal((await api.agentFlows.show(flow.id)).status, 'finished');
      assert.deepEqual((await api.agentFlows.agentPrivileges()).map((p) => p.name), [
        'read_write_files', 'read_only_platform', 'read_write_platform', 'run_commands', 'use_git', 'run_mcp_tools',
      ]);
    });

    it('manages callback endpoints and reads their deliveries', async () => {
      const a = await api.agentFlows.createCallback({ url: 'https://hooks.example.com/a', signing_token: SIGNING, token: 't' });
      assert.deepEqual([a.signing_token_set, a.token_set], [true, true]);
      const b = await api.agentFlows.createCallback({ url: 'https://hooks.example.com/b', name: 'B' });
      assert.deepEqual((await api.agentFlows.callbacks({ per_page: 1 }).toArray()).map((c) => c.id), [a.id, b.id]);
      assert.equal((await api.agentFlows.showCallback(b.id)).name, 'B');
      const project = await api.projects.create({ name: 'flows-cb' });
      const flow = await api.agentFlows.create({ project_id: project.id, callback_hook_id: a.id });
      await api.agentFlows.updateStatus(flow.id, 'start');
      const deliveries = await api.agentFlows.deliveries(a.id).toArray();
      assert.deepEqual(deliveries.map((d) => [d.event, d.status, d.attempts.length]), [['flow.started', 'pending', 0]]);
      await api.agentFlows.removeCallback(b.id);
      assert.equal((await apiError(api.agentFlows.showCallback(b.id))).status, 404);
      const user = await f.createUser('flowowner');
      const owner = clientFor(f, { token: user.token });
      assert.equal((await apiError(owner.agentFlows.callbacks().toArray())).status, 403);
      await api.agentFlows.addOrganizationOwner(user.id);
      assert.equal((await owner.agentFlows.callbacks().toArray()).length, 1);
      await api.agentFlows.removeOrganizationOwner(user.id);
      assert.equal((await apiError(owner.agentFlows.callbacks().toArray())).status, 403);
    });
  });
}
