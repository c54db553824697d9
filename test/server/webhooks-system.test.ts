/**
 * Member, subgroup, project and system events (GitLab's Gitlab::HookData builders and
 * SystemHooksService): group hooks (Premium) take member events of their group and the groups
 * below with `member_events` (Member Hook), subgroups created or removed below them with
 * `subgroup_events` (Subgroup Hook), projects created or deleted below them with
 * `project_events` (Project Hook); system hooks take every system event (System Hook). Hooks
 * with the switch off have nothing queued; so does an instance without hooks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock, type ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus, uniq } from './http.js';
import { hookReceiver, type HookReceiver } from './webhooks-support.js';

const T0 = '2026-03-02T10:00:00.000Z';

const GROUP_MEMBER_KEYS = [
  'created_at', 'updated_at', 'group_name', 'group_path', 'group_id', 'user_username', 'user_name', 'user_email', 'user_id', 'group_access',
  'group_plan', 'expires_at', 'event_name',
];
const PROJECT_MEMBER_KEYS = [
  'created_at', 'updated_at', 'project_name', 'project_path', 'project_path_with_namespace', 'project_id', 'user_username', 'user_name',
  'user_email', 'user_id', 'access_level', 'project_visibility', 'event_name',
];

for (const dialect of DIALECTS) {
  describe(`${dialect}: member, subgroup, project and system webhook events`, () => {
    let f: TestForgelet;
    let clock: ControllableClock;
    let rx: HookReceiver;
    let top: any;
    let sys: any;
    let gh: any;
    let ghOff: any;
    const at = (iso: string) => clock.set(new Date(iso), true);

    /** Runs the queue and answers what was delivered since the last call, as [path, X-Gitlab-Event, event_name]. */
    const drain = async () => {
      await f.forge.deps.queue.runDue();
      const out = rx.deliveries.splice(0);
      assert.deepEqual(out.filter((d) => d.path === '/group-off'), [], 'a group hook with the switches off takes none of these');
      return out;
    };
    const summary = (ds: Awaited<ReturnType<typeof drain>>) => ds.map((d) => [d.path, d.headers['x-gitlab-event'], d.body.event_name]);

    before(async () => {
      clock = fixedClock(T0);
      f = await startTestServer(dialect, { clock, workers: false, testMode: true });
      rx = await hookReceiver();
      top = await createGroup(f, f.rootToken, { name: uniq('Top '), path: uniq('top-') });
      sys = (await f.api('POST', '/hooks', { body: { url: `${rx.url}/sys`, push_events: false, token: 'sys-secret' } })).body;
      gh = (await f.api('POST', `/groups/${top.id}/hooks`, { body: { url: `${rx.url}/group`, member_events: true, subgroup_events: true, project_events: true, push_events: false } })).body;
      ghOff = (await f.api('POST', `/groups/${top.id}/hooks`, { body: { url: `${rx.url}/group-off`, issues_events: true, push_events: false } })).body;
    });
    after(async () => {
      await f.stop();
      await rx.close();
    });

    it('member events: to group hooks with member_events (Member Hook) and system hooks; update only on level or expiry', async () => {
      const u = await f.createUser(uniq('member'));
      await drain();
      at('2026-03-02T11:00:00.000Z');
      expectStatus(await f.api('POST', `/groups/${top.id}/members`, { body: { user_id: u.id, access_level: 30, expires_at: '2026-12-31' } }), 201);
      const added = await drain();
      // One delivery per hook, in hook order (the system hook was added first).
      assert.deepEqual(summary(added), [['/sys', 'System Hook', 'user_add_to_group'], ['/group', 'Member Hook', 'user_add_to_group']]);
      const expected = {
        created_at: '2026-03-02T11:00:00Z', updated_at: '2026-03-02T11:00:00Z', group_name: top.name, group_path: top.path, group_id: top.id,
        user_username: u.username, user_name: u.username, user_email: '[REDACTED]', user_id: u.id, group_access: 'Developer', group_plan: null,
        expires_at: '2026-12-31T00:00:00Z', event_name: 'user_add_to_group',
      };
      for (const d of added) {
        assert.deepEqual(Object.keys(d.body), GROUP_MEMBER_KEYS);
        assert.deepEqual(d.body, expected);
      }
      assert.equal(added[0]!.headers['x-gitlab-event-uuid'], added[1]!.headers['x-gitlab-event-uuid'], 'one event');
      assert.equal(added[0]!.headers['x-gitlab-token'], 'sys-secret');

      at('2026-03-02T12:00:00.000Z');
      expectStatus(await f.api('PUT', `/groups/${top.id}/members/${u.id}`, { body: { access_level: 40 } }), 200);
      const updated = await drain();
      assert.deepEqual(summary(updated), [['/sys', 'System Hook', 'user_update_for_group'], ['/group', 'Member Hook', 'user_update_for_group']]);
      assert.deepEqual(updated[0]!.body, { ...expected, updated_at: '2026-03-02T12:00:00Z', group_access: 'Maintainer', event_name: 'user_update_for_group' });
      // The same level and expiry again: no event.
      expectStatus(await f.api('PUT', `/groups/${top.id}/members/${u.id}`, { body: { access_level: 40 } }), 200);
      assert.deepEqual(await drain(), []);
      expectStatus(await f.api('PUT', `/groups/${top.id}/members/${u.id}`, { body: { access_level: 40, expires_at: '2027-01-31' } }), 200);
      assert.equal((await drain())[0]!.body.expires_at, '2027-01-31T00:00:00Z');

      expectStatus(await f.api('DELETE', `/groups/${top.id}/members/${u.id}`), 204);
      const removed = await drain();
      assert.deepEqual(summary(removed), [['/sys', 'System Hook', 'user_remove_from_group'], ['/group', 'Member Hook', 'user_remove_from_group']]);
      assert.equal(removed[0]!.body.group_access, 'Maintainer');

      // Refused (the last owner): rolled back, nothing queued.
      const root = (await f.api('GET', '/user')).body;
      expectStatus(await f.api('DELETE', `/groups/${top.id}/members/${root.id}`), 403);
      assert.deepEqual(await drain(), []);
    });

    it('subgroup events to the parent group hooks and above; group create, rename and destroy to system hooks', async () => {
      at('2026-03-03T09:00:00.000Z');
      const sub = await createGroup(f, f.rootToken, { name: 'Sub', path: uniq('sub-'), parent_id: top.id });
      const created = await drain();
      assert.deepEqual(summary(created), [
        ['/sys', 'System Hook', 'group_create'],
        ['/group', 'Subgroup Hook', 'subgroup_create'],
        ['/sys', 'System Hook', 'user_add_to_group'],
        ['/group', 'Member Hook', 'user_add_to_group'],
      ]);
      assert.deepEqual(created[0]!.body, {
        created_at: '2026-03-03T09:00:00Z', updated_at: '2026-03-03T09:00:00Z', event_name: 'group_create', name: 'Sub', path: sub.path,
        full_path: `${top.path}/${sub.path}`, group_id: sub.id,
      });
      assert.deepEqual(created[1]!.body, {
        created_at: '2026-03-03T09:00:00Z', updated_at: '2026-03-03T09:00:00Z', event_name: 'subgroup_create', name: 'Sub', path: sub.path,
        full_path: `${top.path}/${sub.path}`, group_id: sub.id, parent_group_id: top.id, parent_name: top.name, parent_path: top.path,
        parent_full_path: top.full_path,
      });
      assert.equal(created[3]!.body.group_id, sub.id, 'the creator becomes Owner of the subgroup: a member event below the hook');
      assert.equal(created[3]!.body.group_access, 'Owner');

      const deeper = await createGroup(f, f.rootToken, { name: 'Deeper', path: uniq('deeper-'), parent_id: sub.id });
      const deep = await drain();
      assert.deepEqual(deep.filter((d) => d.path === '/group').map((d) => [d.body.event_name, d.body.group_id, d.body.parent_group_id ?? null]), [
        ['subgroup_create', deeper.id, sub.id],
        ['user_add_to_group', deeper.id, null],
      ]);

      // A new name alone sends nothing; a new path is a rename.
      expectStatus(await f.api('PUT', `/groups/${sub.id}`, { body: { name: 'Sub renamed' } }), 200);
      assert.deepEqual(await drain(), []);
      at('2026-03-03T10:00:00.000Z');
      const newPath = uniq('moved-');
      expectStatus(await f.api('PUT', `/groups/${sub.id}`, { body: { path: newPath } }), 200);
      const renamed = await drain();
      assert.deepEqual(summary(renamed), [['/sys', 'System Hook', 'group_rename']]);
      assert.deepEqual(renamed[0]!.body, {
        created_at: '2026-03-03T09:00:00Z', updated_at: '2026-03-03T10:00:00Z', event_name: 'group_rename', name: 'Sub renamed', path: newPath,
        full_path: `${top.path}/${newPath}`, group_id: sub.id, old_path: sub.path, old_full_path: `${top.path}/${sub.path}`,
      });

      // Deleting the subgroup removes the deeper one first; each removal goes to its parent's hooks and above.
      expectStatus(await f.api('DELETE', `/groups/${sub.id}`), 202);
      const destroyed = await drain();
      assert.deepEqual(destroyed.map((d) => [d.path, d.headers['x-gitlab-event'], d.body.event_name, d.body.group_id]), [
        ['/sys', 'System Hook', 'group_destroy', deeper.id],
        ['/group', 'Subgroup Hook', 'subgroup_destroy', deeper.id],
        ['/sys', 'System Hook', 'group_destroy', sub.id],
        ['/group', 'Subgroup Hook', 'subgroup_destroy', sub.id],
      ]);
      assert.equal(destroyed[3]!.body.full_path, `${top.path}/${newPath}`);
      assert.equal(destroyed[3]!.body.parent_group_id, top.id);
    });

    it('project events: create and destroy to group hooks with project_events and system hooks; update, rename, archive and team members to system hooks', async () => {
      const root = (await f.api('GET', '/user')).body;
      at('2026-03-04T09:00:00.000Z');
      const project = await createProject(f, f.rootToken, { name: 'Proj', path: uniq('proj-'), namespace_id: top.id });
      const created = await drain();
      assert.deepEqual(summary(created), [['/sys', 'System Hook', 'project_create'], ['/group', 'Project Hook', 'project_create']]);
      const base = {
        event_name: 'project_create', created_at: '2026-03-04T09:00:00Z', updated_at: '2026-03-04T09:00:00Z', name: 'Proj', path: project.path,
        path_with_namespace: `${top.full_path}/${project.path}`, project_id: project.id, project_namespace_id: top.id,
        owners: [{ name: root.name, email: '[REDACTED]' }], project_visibility: 'private',
      };
      assert.deepEqual(created[0]!.body, { ...base, owner_name: top.name, owner_email: '' });
      assert.deepEqual(Object.keys(created[0]!.body), [...Object.keys(base), 'owner_name', 'owner_email']);
      assert.deepEqual(created[1]!.body, base, 'group hooks get no deprecated owner');

      const u = await f.createUser(uniq('teammate'));
      await drain();
      at('2026-03-04T10:00:00.000Z');
      expectStatus(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: u.id, access_level: 20 } }), 201);
      const team = await drain();
      assert.deepEqual(summary(team), [['/sys', 'System Hook', 'user_add_to_team']], 'project members go to system hooks only');
      assert.deepEqual(Object.keys(team[0]!.body), PROJECT_MEMBER_KEYS);
      assert.deepEqual(team[0]!.body, {
        created_at: '2026-03-04T10:00:00Z', updated_at: '2026-03-04T10:00:00Z', project_name: 'Proj', project_path: project.path,
        project_path_with_namespace: project.path_with_namespace, project_id: project.id, user_username: u.username, user_name: u.username,
        user_email: '[REDACTED]', user_id: u.id, access_level: 'Reporter', project_visibility: 'private', event_name: 'user_add_to_team',
      });
      expectStatus(await f.api('PUT', `/projects/${project.id}/members/${u.id}`, { body: { access_level: 30 } }), 200);
      assert.deepEqual((await drain()).map((d) => [d.body.event_name, d.body.access_level]), [['user_update_for_team', 'Developer']]);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/members/${u.id}`), 204);
      assert.deepEqual(summary(await drain()), [['/sys', 'System Hook', 'user_remove_from_team']]);

      // A project access token: its bot user is created and added to the team.
      const pat = await f.api('POST', `/projects/${project.id}/access_tokens`, { body: { name: 'ci-bot', scopes: ['api'], access_level: 30, expires_at: '2026-06-01' } });
      expectStatus(pat, 201);
      const bot = await drain();
      assert.deepEqual(summary(bot), [['/sys', 'System Hook', 'user_create'], ['/sys', 'System Hook', 'user_add_to_team']]);
      assert.equal(bot[1]!.body.user_id, pat.body.user_id);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/access_tokens/${pat.body.id}`), 204);
      assert.deepEqual((await drain()).map((d) => [d.body.event_name, d.body.user_id]), [['user_remove_from_team', pat.body.user_id]]);

      // Every successful edit is an update; a new path a rename (with the old full path); archiving an update.
      at('2026-03-04T11:00:00.000Z');
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { description: 'now described' } }), 200);
      const update = await drain();
      assert.deepEqual(summary(update), [['/sys', 'System Hook', 'project_update']]);
      assert.equal(update[0]!.body.updated_at, '2026-03-04T11:00:00Z');
      assert.equal('old_path_with_namespace' in update[0]!.body, false);
      const newPath = uniq('renamed-');
      expectStatus(await f.api('PUT', `/projects/${project.id}`, { body: { path: newPath } }), 200);
      const rename = await drain();
      assert.deepEqual(summary(rename), [['/sys', 'System Hook', 'project_rename']]);
      assert.equal(rename[0]!.body.path_with_namespace, `${top.full_path}/${newPath}`);
      assert.equal(rename[0]!.body.old_path_with_namespace, project.path_with_namespace);
      expectStatus(await f.api('POST', `/projects/${project.id}/archive`), 201);
      assert.deepEqual(summary(await drain()), [['/sys', 'System Hook', 'project_update']]);
      expectStatus(await f.api('POST', `/projects/${project.id}/archive`), 201);
      assert.deepEqual(await drain(), [], 'already archived: nothing changed');

      expectStatus(await f.api('DELETE', `/projects/${project.id}`), 202);
      const destroyed = await drain();
      assert.deepEqual(summary(destroyed), [['/sys', 'System Hook', 'project_destroy'], ['/group', 'Project Hook', 'project_destroy']]);
      assert.equal(destroyed[1]!.body.project_id, project.id);
      assert.deepEqual(destroyed[1]!.body.owners, [{ name: root.name, email: '[REDACTED]' }]);

      // A personal project: its owner is the namespace's, who joins the team as Owner; group hooks take none.
      const mine = await createProject(f, u.token, { name: uniq('mine-') });
      const personal = await drain();
      assert.deepEqual(summary(personal), [['/sys', 'System Hook', 'project_create'], ['/sys', 'System Hook', 'user_add_to_team']]);
      assert.equal(personal[0]!.body.owner_name, u.username);
      assert.equal(personal[0]!.body.owner_email, '[REDACTED]');
      assert.deepEqual(personal[0]!.body.owners, [{ name: u.username, email: '[REDACTED]' }]);
      assert.equal(personal[1]!.body.access_level, 'Owner');
      assert.equal(personal[1]!.body.project_id, mine.id);
    });

    it('user events to system hooks: create, rename (old username), destroy with the personal projects', async () => {
      at('2026-03-05T09:00:00.000Z');
      const username = uniq('person');
      const created = await f.api('POST', '/users', { body: { username, name: 'A Person', email: `${username}@example.com`, public_email: `${username}@public.example` } });
      expectStatus(created, 201);
      const c = await drain();
      assert.deepEqual(summary(c), [['/sys', 'System Hook', 'user_create']]);
      assert.deepEqual(c[0]!.body, {
        created_at: '2026-03-05T09:00:00Z', updated_at: '2026-03-05T09:00:00Z', event_name: 'user_create', name: 'A Person',
        email: `${username}@example.com`, user_id: created.body.id, username,
      });
      expectStatus(await f.api('PUT', `/users/${created.body.id}`, { body: { name: 'Renamed Person' } }), 200);
      assert.deepEqual(await drain(), [], 'a new name alone is no rename');
      at('2026-03-05T10:00:00.000Z');
      const next = uniq('renamed');
      expectStatus(await f.api('PUT', `/users/${created.body.id}`, { body: { username: next } }), 200);
      const r = await drain();
      assert.deepEqual(r[0]!.body, {
        created_at: '2026-03-05T09:00:00Z', updated_at: '2026-03-05T10:00:00Z', event_name: 'user_rename', name: 'Renamed Person',
        email: `${username}@example.com`, user_id: created.body.id, username: next, old_username: username,
      });

      const project = await createProject(f, f.rootToken, { name: uniq('theirs-'), namespace_id: next });
      const made = await drain();
      assert.equal(made[0]!.body.owners[0].email, `${username}@public.example`, 'owners show the public email');
      expectStatus(await f.api('DELETE', `/users/${created.body.id}`), 204);
      assert.deepEqual((await drain()).map((d) => [d.body.event_name, d.body.project_id ?? d.body.user_id]), [
        ['project_destroy', project.id],
        ['user_destroy', created.body.id],
      ]);
    });

    it('on the free tier group hooks take none; without any hook (or with the switches off) nothing is queued', async () => {
      const u = await f.createUser(uniq('free'));
      await drain();
      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } }), 200);
      try {
        expectStatus(await f.api('POST', `/groups/${top.id}/members`, { body: { user_id: u.id, access_level: 10 } }), 201);
        assert.deepEqual(summary(await drain()), [['/sys', 'System Hook', 'user_add_to_group']]);
      } finally {
        expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'ultimate' } }), 200);
      }
      expectStatus(await f.api('DELETE', `/hooks/${sys.id}`), 204);
      expectStatus(await f.api('DELETE', `/groups/${top.id}/hooks/${gh.id}`), 204);
      // Only a hook with these switches off is left.
      expectStatus(await f.api('PUT', `/groups/${top.id}/members/${u.id}`, { body: { access_level: 20 } }), 200);
      await createGroup(f, f.rootToken, { name: 'Quiet', path: uniq('quiet-'), parent_id: top.id });
      await createProject(f, f.rootToken, { name: uniq('quiet-'), namespace_id: top.id });
      assert.equal(await f.forge.deps.queue.runDue(), 0);
      expectStatus(await f.api('DELETE', `/groups/${top.id}/hooks/${ghOff.id}`), 204);
      await f.createUser(uniq('nobody'));
      assert.equal(await f.forge.deps.queue.runDue(), 0);
      assert.deepEqual(rx.deliveries, []);
    });
  });
}
