/**
 * Fields configuration tools write and read back (issue 27): a project label's `priority`
 * (per project, group labels too) and a project's `approvals_before_merge` (Premium and up,
 * the same value as the project approval settings).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, uniq } from './http.js';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: label priority`, () => {
    let f: TestForgelet;
    let group: any;
    let app: any;
    let other: any;
    let guest: User;

    before(async () => {
      f = await startTestServer(dialect);
      [guest] = await createUsers(f, [uniq('guest')]);
      group = await createGroup(f, f.rootToken, { name: 'Prio', path: uniq('prio') });
      app = await createProject(f, f.rootToken, { name: 'app', namespace_id: group.id });
      other = await createProject(f, f.rootToken, { name: 'other', namespace_id: group.id });
      await addMember(f, 'projects', app.id, guest.id, 10);
    });
    after(() => f.stop());

    it('is stored on create, returned by get and list, changed and removed (null) by update', async () => {
      const bug = await f.api('POST', `/projects/${app.id}/labels`, { body: { name: 'bug', color: '#FF0000', priority: 2 } });
      expectStatus(bug, 201);
      assert.equal(bug.body.priority, 2);
      const plain = await f.api('POST', `/projects/${app.id}/labels`, { body: { name: 'plain', color: 'red' } });
      assert.equal(plain.body.priority, null);
      const got = await f.api('GET', `/projects/${app.id}/labels/bug`);
      assert.equal(got.body.priority, 2);
      const list = await f.api('GET', `/projects/${app.id}/labels`);
      assert.deepEqual(list.body.map((l: any) => [l.name, l.priority]), [['bug', 2], ['plain', null]]);
      const changed = await f.api('PUT', `/projects/${app.id}/labels/bug`, { body: { priority: 0 } });
      expectStatus(changed, 200);
      assert.equal(changed.body.priority, 0);
      assert.equal(changed.body.color, '#FF0000', 'other fields unchanged');
      // python-gitlab's save() sends the deprecated PUT …/labels with `name`
      const byName = await f.api('PUT', `/projects/${app.id}/labels`, { body: { name: 'plain', priority: 7 } });
      assert.equal(byName.body.priority, 7);
      const removed = await f.api('PUT', `/projects/${app.id}/labels/bug`, { body: { priority: null } });
      assert.equal(removed.body.priority, null);
      assert.equal((await f.api('GET', `/projects/${app.id}/labels/bug`)).body.priority, null);
    });

    it('a group label has a priority per project; group routes show none', async () => {
      const shared = await f.api('POST', `/groups/${group.id}/labels`, { body: { name: 'shared', color: '#00FF00' } });
      expectStatus(shared, 201);
      assert.equal('priority' in shared.body, false, 'GroupLabel has no priority');
      const set = await f.api('PUT', `/projects/${app.id}/labels/shared`, { body: { priority: 1 } });
      expectStatus(set, 200);
      assert.equal(set.body.priority, 1);
      assert.equal(set.body.is_project_label, false);
      assert.equal((await f.api('GET', `/projects/${other.id}/labels/shared`)).body.priority, null, 'another project of the group');
      assert.equal((await f.api('GET', `/projects/${app.id}/labels/shared`)).body.priority, 1);
    });

    it("a milestone's issues come in GitLab's label_priority order: best label priority first, none last, then newest", async () => {
      const project = await createProject(f, f.rootToken, { name: uniq('ms'), namespace_id: group.id });
      const milestone = (await f.api('POST', `/projects/${project.id}/milestones`, { body: { title: 'v1' } })).body;
      for (const [name, priority] of [['p-low', 5], ['p-high', 1]] as const) {
        expectStatus(await f.api('POST', `/projects/${project.id}/labels`, { body: { name, color: 'red', priority } }), 201);
      }
      const ids: Record<string, number> = {};
      for (const [title, labels] of [['none-old', ''], ['low', 'p-low'], ['high', 'p-high'], ['none-new', ''], ['both', 'p-low,p-high']]) {
        const r = await f.api('POST', `/projects/${project.id}/issues`, { body: { title, labels, milestone_id: milestone.id } });
        expectStatus(r, 201);
        ids[title] = r.body.iid;
      }
      const listed = await f.api('GET', `/projects/${project.id}/milestones/${milestone.id}/issues`);
      expectStatus(listed, 200);
      assert.deepEqual(listed.body.map((i: any) => i.title), ['both', 'high', 'low', 'none-new', 'none-old']);
    });

    it('refuses bad priorities naming the field, and callers who may not change labels', async () => {
      const negative = await f.api('POST', `/projects/${app.id}/labels`, { body: { name: 'neg', color: 'red', priority: -1 } });
      assert.deepEqual([negative.status, negative.body], [400, { error: 'priority does not have a valid value' }]);
      const text = await f.api('PUT', `/projects/${app.id}/labels/bug`, { body: { priority: 'high' } });
      assert.deepEqual([text.status, text.body], [400, { error: 'priority is invalid' }]);
      const nothing = await f.api('PUT', `/projects/${app.id}/labels/bug`, { body: {} });
      assert.equal(nothing.status, 400);
      assert.match(nothing.body.error, /priority/);
      const asGuest = await f.api('PUT', `/projects/${app.id}/labels/bug`, { token: guest.token, body: { priority: 3 } });
      assert.equal(asGuest.status, 403);
      assert.equal((await f.api('GET', `/projects/${app.id}/labels/bug`)).body.priority, null);
    });
  });

  describe(`${dialect}: approvals_before_merge`, () => {
    let f: TestForgelet;
    let maintainer: User;
    let developer: User;
    let project: any;

    before(async () => {
      f = await startTestServer(dialect, { testMode: true, tier: 'premium' });
      [maintainer, developer] = await createUsers(f, [uniq('maint'), uniq('dev')]);
      const group = await createGroup(f, f.rootToken, { name: 'Abm', path: uniq('abm') });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      await addMember(f, 'groups', group.id, developer.id, 30);
      project = await createProject(f, maintainer.token, { name: 'svc', namespace_id: group.id, approvals_before_merge: 2 });
    });
    after(() => f.stop());

    it('is set on create and update, shown in the project entity and in the approval settings', async () => {
      assert.equal(project.approvals_before_merge, 2);
      assert.equal((await f.api('GET', `/projects/${project.id}`)).body.approvals_before_merge, 2);
      assert.equal((await f.api('GET', `/projects/${project.id}/approvals`)).body.approvals_before_merge, 2);
      const put = await f.api('PUT', `/projects/${project.id}`, { token: maintainer.token, body: { approvals_before_merge: 3 } });
      expectStatus(put, 200);
      assert.equal(put.body.approvals_before_merge, 3);
      assert.equal((await f.api('GET', `/projects/${project.id}/approvals`)).body.approvals_before_merge, 3);
      const viaSettings = await f.api('POST', `/projects/${project.id}/approvals`, { token: maintainer.token, body: { approvals_before_merge: 1 } });
      expectStatus(viaSettings, 201);
      assert.equal((await f.api('GET', `/projects/${project.id}`)).body.approvals_before_merge, 1, 'one value, either endpoint');
      const listed = await f.api('GET', `/projects?search=svc`);
      assert.equal(listed.body.find((p: any) => p.id === project.id).approvals_before_merge, 1);
    });

    it('refuses a negative count naming the field and a Developer', async () => {
      const negative = await f.api('PUT', `/projects/${project.id}`, { token: maintainer.token, body: { approvals_before_merge: -1 } });
      assert.deepEqual([negative.status, negative.body], [400, { error: 'approvals_before_merge does not have a valid value' }]);
      const asDeveloper = await f.api('PUT', `/projects/${project.id}`, { token: developer.token, body: { approvals_before_merge: 0 } });
      assert.equal(asDeveloper.status, 403);
      assert.equal((await f.api('GET', `/projects/${project.id}`)).body.approvals_before_merge, 1);
    });

    it('below Premium the field is absent and not written', async () => {
      await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } });
      try {
        const got = await f.api('GET', `/projects/${project.id}`);
        assert.equal('approvals_before_merge' in got.body, false);
        const put = await f.api('PUT', `/projects/${project.id}`, { token: maintainer.token, body: { approvals_before_merge: 5, description: 'x' } });
        expectStatus(put, 200);
        assert.equal('approvals_before_merge' in put.body, false);
      } finally {
        await f.api('PUT', '/forgelet/tier', { body: { tier: 'premium' } });
      }
      assert.equal((await f.api('GET', `/projects/${project.id}`)).body.approvals_before_merge, 1);
    });
  });
}
