/** The client's project, group and system hooks against the server: every method once, end to end. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client webhooks`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let rx: HookReceiver;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock('2026-03-02T10:00:00.000Z'), workers: false });
      api = clientFor(f);
      rx = await hookReceiver();
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    for (const kind of ['project', 'group'] as const) {
      it(`${kind} hooks: add, all, show, edit, headers, variables, test, events, resend, remove`, async () => {
        const group = await api.groups.create({ name: `Hooks ${kind}`, path: `hooks-${kind}` });
        const project = await api.projects.create({ name: 'Bot', namespace_id: group.id });
        const res = kind === 'project' ? api.projectHooks : api.groupHooks;
        const id = kind === 'project' ? project.path_with_namespace : group.full_path;
        const hook = await res.add(id, { url: `${rx.url}/${kind}/{v}`, issues_events: true, token: 't', url_variables: [{ key: 'v', value: 'x' }] });
        assert.equal(hook.issues_events, true);
        assert.deepEqual((await res.all(id).toArray()).map((h) => h.id), [hook.id]);
        assert.equal((await res.show(id, hook.id)).url, `${rx.url}/${kind}/{v}`);
        assert.equal((await res.edit(id, hook.id, { note_events: true })).note_events, true);
        await res.setCustomHeader(id, hook.id, 'X-One', '1');
        await res.setUrlVariable(id, hook.id, 'v', 'y');
        assert.deepEqual((await res.show(id, hook.id)).custom_headers, [{ key: 'X-One' }]);
        await res.removeCustomHeader(id, hook.id, 'X-One');
        assert.equal((await apiError(res.removeUrlVariable(id, hook.id, 'nope'))).status, 404);
        await api.issues.create(project.id, { title: 'for the test' });
        assert.deepEqual(await res.test(id, hook.id, 'issues_events'), { message: '201 Created' });
        assert.equal(rx.deliveries.at(-1)!.path, `/${kind}/y`);
        const [event] = await res.events(id, hook.id, { status: ['successful'] }).toArray();
        assert.equal(event!.response_status, '200');
        assert.deepEqual(await res.resend(id, hook.id, event!.id), { response_status: 200 });
        await res.remove(id, hook.id);
        assert.equal((await apiError(res.show(id, hook.id))).status, 404);
      });
    }

    it('system hooks: add, all, show, edit, test, headers, variables, remove', async () => {
      const hook = await api.systemHooks.add({ url: `${rx.url}/system`, merge_requests_events: true });
      assert.deepEqual((await api.systemHooks.all().toArray()).map((h) => h.id), [hook.id]);
      assert.equal((await api.systemHooks.show(hook.id)).merge_requests_events, true);
      assert.equal((await api.systemHooks.edit(hook.id, { push_events: false })).push_events, false);
      assert.equal((await api.systemHooks.test(hook.id)).event_name, 'project_create');
      assert.equal(rx.deliveries.at(-1)!.headers['x-gitlab-event'], 'System Hook');
      await api.systemHooks.setCustomHeader(hook.id, 'X-S', 's');
      await api.systemHooks.removeCustomHeader(hook.id, 'X-S');
      await api.systemHooks.setUrlVariable(hook.id, 'k', 'v');
      await api.systemHooks.removeUrlVariable(hook.id, 'k');
      await api.systemHooks.remove(hook.id);
      assert.equal((await apiError(api.systemHooks.show(hook.id))).status, 404);
    });
  });
}
