/**
 * The built `forgelet serve` sends push, tag push, release and milestone events to a loopback
 * receiver (`--allow-local-egress`): a project hook and a system hook, each with GitLab's
 * X-Gitlab-Event, get the events of a session of API calls (a commit, a tag, a release that
 * creates its tag, a milestone closed, a branch deleted), delivered by the server's own worker.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';

const BLANK = '0'.repeat(40);

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: served webhook events (push, tag push, release, milestone)`, () => {
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
      const project = ok(await f.api('POST', '/projects', { body: { name: 'app', initialize_with_readme: true } }), 201);
      ok(await f.api('POST', '/hooks', { body: { url: `${rx.url}/sys`, push_events: true, tag_push_events: true } }), 201);
      ok(await f.api('POST', `/projects/${project.id}/hooks`, {
        body: { url: `${rx.url}/project`, token: 'served', push_events: true, tag_push_events: true, releases_events: true, milestone_events: true, push_events_branch_filter: 'ma*' },
      }), 201);
      const commit = ok(await f.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'Served push', actions: [{ action: 'create', file_path: 'served.txt', content: 'hi' }] },
      }), 201);
      ok(await f.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'topic', ref: 'main' } }), 201);
      ok(await f.api('DELETE', `/projects/${project.id}/repository/branches/topic`), 204);
      ok(await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v1', ref: 'main', name: 'Served one' } }), 201);
      const milestone = ok(await f.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'Served' } }), 201);
      ok(await f.api('PUT', `/projects/${project.id}/milestones/${milestone.id}`, { body: { state_event: 'close' } }));
      await f.runDue();
      const expected = [
        ['/sys', 'System Hook', 'push', 'refs/heads/main'],
        ['/project', 'Push Hook', 'push', 'refs/heads/main'],
        ['/sys', 'System Hook', 'push', 'refs/heads/topic'],
        ['/sys', 'System Hook', 'push', 'refs/heads/topic'],
        ['/sys', 'System Hook', 'tag_push', 'refs/tags/v1'],
        ['/project', 'Tag Push Hook', 'tag_push', 'refs/tags/v1'],
        ['/project', 'Release Hook', 'release', 'create'],
        ['/project', 'Milestone Hook', 'milestone', 'create'],
        ['/project', 'Milestone Hook', 'milestone', 'close'],
      ];
      await until('every event delivered', async () => rx.deliveries.length >= expected.length);
      await new Promise((r) => setTimeout(r, 300));
      const got = rx.deliveries.map((d) => [d.path, d.headers['x-gitlab-event'], d.body.object_kind, d.body.ref ?? d.body.action]);
      assert.deepEqual(got.slice().sort(), expected.slice().sort());
      const push = rx.deliveries.find((d) => d.path === '/project' && d.body.object_kind === 'push')!;
      assert.equal(push.headers['x-gitlab-token'], 'served');
      assert.deepEqual([push.body.after, push.body.checkout_sha, push.body.user_username, push.body.total_commits_count], [commit.id, commit.id, 'root', 1]);
      assert.deepEqual(push.body.commits.map((c: any) => [c.id, c.title, c.added]), [[commit.id, 'Served push', ['served.txt']]]);
      assert.equal(push.body.commits[0].timestamp, '2030-05-06T07:00:00Z');
      const deletion = rx.deliveries.filter((d) => d.body.ref === 'refs/heads/topic').map((d) => d.body.after);
      assert.ok(deletion.includes(BLANK), 'the deleted branch: a push with a blank after');
      const release = rx.deliveries.find((d) => d.body.object_kind === 'release')!.body;
      assert.deepEqual([release.tag, release.name, release.commit.id], ['v1', 'Served one', commit.id]);
    });
  });
}
