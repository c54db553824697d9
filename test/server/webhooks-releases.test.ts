/**
 * Release events (GitLab's Gitlab::HookData::ReleaseBuilder: create, update, delete, also when a
 * tag's deletion takes its release) and milestone events (Gitlab::DataBuilder::Milestone: create,
 * close, reopen, delete of project milestones; none for group milestones nor for plain edits),
 * to the project's hooks with `releases_events` / `milestone_events`; nothing queued with the
 * switch off; the test triggers' samples.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import type { TestForgelet } from '../support/server.js';
import { createProject, expectStatus, uniq } from './http.js';
import { useWebhookProject, type HookReceiver, type WebhookProject } from './webhooks-support.js';

const NOW = '2026-03-02T10:00:00.000Z';
const RELEASE_KEYS = ['id', 'created_at', 'description', 'name', 'released_at', 'tag', 'object_kind', 'project', 'url', 'action', 'assets', 'commit'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: release and milestone webhook events`, () => {
    const world = useWebhookProject(dialect, 'rel', NOW);
    let f: TestForgelet;
    let rx: HookReceiver;
    let group: any;
    let project: any;
    let dev: WebhookProject['dev'];
    before(() => ({ f, rx, group, project, dev } = world));
    const runDue = () => f.forge.deps.queue.runDue();
    const hooks = () => `/projects/${project.id}/hooks`;
    const addHook = async (path: string, body: Record<string, unknown>) => {
      const r = await f.api('POST', hooks(), { body: { url: `${rx.url}${path}`, push_events: false, ...body } });
      expectStatus(r, 201);
      return r.body;
    };


    it('release create, update and delete: Release Hook with GitLab payload; releases_events off has nothing queued', async () => {
      await addHook('/off', { issues_events: true });
      const milestone = (await f.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'M1' } })).body;
      expectStatus(await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v0.1', ref: 'main' } }), 201);
      assert.equal(await runDue(), 0, 'a hook without releases_events has nothing queued');

      await addHook('/releases', { releases_events: true, token: 'rel' });
      const created = await f.api('POST', `/projects/${project.id}/releases`, {
        token: dev.token,
        body: {
          tag_name: 'v1.0', ref: 'main', name: 'One', description: 'First release', milestones: ['M1'],
          assets: { links: [{ name: 'Changelog', url: 'https://example.net/changelog', link_type: 'runbook' }] },
        },
      });
      expectStatus(created, 201);
      assert.equal(await runDue(), 1);
      const d = rx.deliveries.at(-1)!;
      assert.equal(d.path, '/releases');
      assert.equal(d.headers['x-gitlab-event'], 'Release Hook');
      assert.equal(d.headers['x-gitlab-token'], 'rel');
      const body = d.body;
      assert.deepEqual(Object.keys(body), RELEASE_KEYS);
      const row = await f.forge.database.db.selectFrom('releases').selectAll().where('project_id', '=', project.id).where('tag_name', '=', 'v1.0').executeTakeFirstOrThrow();
      const link = await f.forge.database.db.selectFrom('release_links').selectAll().where('release_id', '=', row.id).executeTakeFirstOrThrow();
      assert.deepEqual(
        [body.id, body.created_at, body.description, body.name, body.released_at, body.tag, body.object_kind, body.action],
        [row.id, NOW, 'First release', 'One', NOW, 'v1.0', 'release', 'create'],
      );
      assert.equal(body.url, `${project.web_url}/-/releases/v1.0`);
      assert.equal(body.project.id, project.id);
      assert.equal(body.project.path_with_namespace, project.path_with_namespace);
      assert.deepEqual(body.assets, {
        count: 5,
        links: [{ id: link.id, link_type: 'runbook', name: 'Changelog', url: 'https://example.net/changelog' }],
        sources: created.body.assets.sources,
      });
      assert.deepEqual(body.assets.sources.map((s: any) => s.format), ['zip', 'tar.gz', 'tar.bz2', 'tar']);
      assert.equal(body.assets.sources[0].url, `${project.web_url}/-/archive/v1.0/${project.path}-v1.0.zip`);
      const commit = created.body.commit;
      assert.deepEqual(body.commit, {
        id: commit.id,
        message: commit.message,
        title: commit.title,
        timestamp: '2026-03-02T10:00:00Z',
        url: `${project.web_url}/-/commit/${commit.id}`,
        author: { name: commit.author_name, email: commit.author_email },
      });
      assert.ok(milestone.id);

      expectStatus(await f.api('PUT', `/projects/${project.id}/releases/v1.0`, { token: dev.token, body: { name: 'One, renamed' } }), 200);
      assert.equal(await runDue(), 1);
      assert.deepEqual([rx.deliveries.at(-1)!.body.action, rx.deliveries.at(-1)!.body.name], ['update', 'One, renamed']);

      expectStatus(await f.api('DELETE', `/projects/${project.id}/releases/v1.0`, { token: dev.token }), 200);
      assert.equal(await runDue(), 1);
      const deleted = rx.deliveries.at(-1)!.body;
      assert.deepEqual([deleted.action, deleted.id, deleted.assets.count, deleted.assets.links.length], ['delete', row.id, 5, 1], 'the release as it was');

      // A tag's deletion takes its release: a release delete event (and the tag is gone with it).
      const v2 = await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v2.0', ref: 'main' } });
      expectStatus(v2, 201);
      await runDue();
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/tags/v2.0`), 204);
      assert.equal(await runDue(), 1);
      assert.deepEqual([rx.deliveries.at(-1)!.body.action, rx.deliveries.at(-1)!.body.tag], ['delete', 'v2.0']);
      const releases = await f.forge.database.db.selectFrom('releases').select('tag_name').where('project_id', '=', project.id).execute();
      assert.deepEqual(releases.map((r) => r.tag_name), ['v0.1']);
      for (const h of (await f.api('GET', hooks())).body) expectStatus(await f.api('DELETE', `${hooks()}/${h.id}`), 204);
    });

    it('project milestones: create, close, reopen, delete (Milestone Hook); edits and group milestones send nothing', async () => {
      await addHook('/off', { releases_events: true });
      expectStatus(await f.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'Quiet' } }), 201);
      assert.equal(await runDue(), 0, 'a hook without milestone_events has nothing queued');

      await addHook('/milestones', { milestone_events: true });
      const created = await f.api('POST', `/projects/${project.id}/milestones`, {
        token: dev.token,
        body: { title: 'v1.0', description: 'First stable release', start_date: '2026-03-01', due_date: '2026-03-31' },
      });
      expectStatus(created, 201);
      assert.equal(await runDue(), 1);
      const d = rx.deliveries.at(-1)!;
      assert.equal(d.path, '/milestones');
      assert.equal(d.headers['x-gitlab-event'], 'Milestone Hook');
      assert.deepEqual(Object.keys(d.body), ['object_kind', 'event_type', 'project', 'object_attributes', 'action']);
      assert.deepEqual([d.body.object_kind, d.body.event_type, d.body.action], ['milestone', 'milestone', 'create']);
      assert.equal(d.body.project.id, project.id);
      assert.deepEqual(d.body.object_attributes, {
        id: created.body.id,
        iid: created.body.iid,
        title: 'v1.0',
        description: 'First stable release',
        state: 'active',
        created_at: NOW,
        updated_at: NOW,
        due_date: '2026-03-31',
        start_date: '2026-03-01',
        group_id: null,
        project_id: project.id,
      });
      const path = `/projects/${project.id}/milestones/${created.body.id}`;
      const actions: string[] = [];
      for (const body of [{ state_event: 'close' }, { title: 'v1.0 final' }, { state_event: 'close' }, { state_event: 'activate' }]) {
        expectStatus(await f.api('PUT', path, { body }), 200);
        if (await runDue()) actions.push(`${rx.deliveries.at(-1)!.body.action}:${rx.deliveries.at(-1)!.body.object_attributes.state}`);
      }
      assert.deepEqual(actions, ['close:closed', 'reopen:active'], 'a title edit or closing a closed milestone sends nothing');
      expectStatus(await f.api('DELETE', path), 204);
      assert.equal(await runDue(), 1);
      assert.deepEqual([rx.deliveries.at(-1)!.body.action, rx.deliveries.at(-1)!.body.object_attributes.title], ['delete', 'v1.0 final']);

      expectStatus(await f.api('POST', `/groups/${group.id}/milestones`, { body: { title: 'Group wide' } }), 201);
      assert.equal(await runDue(), 0, 'GitLab sends no hook for group milestones');
      for (const h of (await f.api('GET', hooks())).body) expectStatus(await f.api('DELETE', `${hooks()}/${h.id}`), 204);
    });

    it('test triggers: the latest release (422 without one) and the first milestone (a sample without one)', async () => {
      const bare = await createProject(f, f.rootToken, { name: uniq('bare-') });
      const hook = (await f.api('POST', `/projects/${bare.id}/hooks`, { body: { url: `${rx.url}/test` } })).body;
      const none = await f.api('POST', `/projects/${bare.id}/hooks/${hook.id}/test/releases_events`);
      assert.deepEqual([none.status, none.body], [422, { message: 'Ensure the project has releases.' }]);
      expectStatus(await f.api('POST', `/projects/${bare.id}/hooks/${hook.id}/test/milestone_events`), 201);
      const sample = rx.deliveries.at(-1)!;
      assert.equal(sample.headers['x-gitlab-event'], 'Milestone Hook');
      assert.deepEqual(
        [sample.body.action, sample.body.object_attributes.title, sample.body.object_attributes.due_date, sample.body.object_attributes.project_id],
        ['create', 'Sample milestone', '2026-03-09', bare.id],
      );

      const own = (await f.api('POST', hooks(), { body: { url: `${rx.url}/test` } })).body;
      expectStatus(await f.api('POST', `${hooks()}/${own.id}/test/releases_events`), 201);
      const release = rx.deliveries.at(-1)!;
      assert.equal(release.headers['x-gitlab-event'], 'Release Hook');
      assert.deepEqual([release.body.action, release.body.tag], ['create', 'v0.1']);
      expectStatus(await f.api('POST', `${hooks()}/${own.id}/test/milestone_events`), 201);
      assert.equal(rx.deliveries.at(-1)!.body.object_attributes.title, 'M1', 'the project\'s first milestone');
    });
  });
}
