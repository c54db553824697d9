/**
 * The built `forgelet serve` sends emoji, member, subgroup, project and system events to a
 * loopback receiver (`--allow-local-egress`): a system hook, a group hook and a project hook,
 * each with GitLab's X-Gitlab-Event, get the events of an ordinary session of API calls.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: served webhook events (emoji, member, subgroup, project, system)`, () => {
    let f: ServedForgelet;
    let rx: HookReceiver;

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2030-05-06T07:00:00.000Z' } });
      rx = await hookReceiver();
    });
    after(async () => {
      await f?.stop();
      await rx?.close();
    });

    it('delivers each event to the hooks that take it', async () => {
      const group = ok(await f.api('POST', '/groups', { body: { name: 'Hooked', path: 'hooked' } }), 201);
      ok(await f.api('POST', '/hooks', { body: { url: `${rx.url}/sys`, push_events: false } }), 201);
      ok(await f.api('POST', `/groups/${group.id}/hooks`, { body: { url: `${rx.url}/group`, member_events: true, subgroup_events: true, project_events: true, push_events: false } }), 201);
      const user = await f.createUser('hooked-user');
      ok(await f.api('POST', `/groups/${group.id}/members`, { body: { user_id: user.id, access_level: 30 } }), 201);
      ok(await f.api('POST', '/groups', { body: { name: 'Below', path: 'below', parent_id: group.id } }), 201);
      const project = ok(await f.api('POST', '/projects', { body: { name: 'app', namespace_id: group.id } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/hooks`, { body: { url: `${rx.url}/project`, emoji_events: true, push_events: false } }), 201);
      const issue = ok(await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'React' } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: user.token, body: { name: 'thumbsup' } }), 201);
      await f.runDue();
      const expected = [
        ['/sys', 'System Hook', 'user_create'],
        ['/sys', 'System Hook', 'user_add_to_group'],
        ['/group', 'Member Hook', 'user_add_to_group'],
        ['/sys', 'System Hook', 'group_create'],
        ['/group', 'Subgroup Hook', 'subgroup_create'],
        ['/sys', 'System Hook', 'user_add_to_group'],
        ['/group', 'Member Hook', 'user_add_to_group'],
        ['/sys', 'System Hook', 'project_create'],
        ['/group', 'Project Hook', 'project_create'],
        ['/project', 'Emoji Hook', 'award'],
      ];
      await until('every event delivered', async () => rx.deliveries.length >= expected.length);
      await new Promise((r) => setTimeout(r, 300));
      const got = rx.deliveries.map((d) => [d.path, d.headers['x-gitlab-event'], d.body.event_name ?? d.body.event_type]);
      assert.deepEqual(got.slice().sort(), expected.slice().sort());
      const emoji = rx.deliveries.find((d) => d.path === '/project')!.body;
      assert.equal(emoji.object_kind, 'emoji');
      assert.equal(emoji.user.username, 'hooked-user');
      assert.equal(emoji.issue.iid, issue.iid);
      assert.equal(emoji.object_attributes.awarded_on_url, issue.web_url);
      const member = rx.deliveries.find((d) => d.path === '/group' && d.body.user_id === user.id)!.body;
      assert.deepEqual([member.group_id, member.group_access, member.user_username], [group.id, 'Developer', 'hooked-user']);
    });
  });
}
