import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { EpicLinks } from '../../packages/client/src/resources/epic-links.js';
import { Epics } from '../../packages/client/src/resources/epics.js';
import { EpicStateEvents } from '../../packages/client/src/resources/state-events.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client epics, epic links and epic state events`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let epics: Epics;
    let links: EpicLinks;
    let group: { id: number; full_path: string };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      epics = new Epics(api.requester);
      links = new EpicLinks(api.requester);
      group = await api.groups.create({ name: 'Client epics', path: 'cep' });
    });
    after(() => f.stop());

    it('Epics: create, show, all with filters, edit, close, reopen, remove', async () => {
      const e = await epics.create(group.full_path, { title: 'Alpha', labels: ['x', 'y'], end_date: '2024-12-31', confidential: true });
      assert.deepEqual([e.title, e.labels, e.due_date, e.due_date_is_fixed, e.confidential, e.state], ['Alpha', ['x', 'y'], '2024-12-31', true, true, 'opened']);
      assert.deepEqual(await epics.show(group.id, e.iid), e);
      const b = await epics.create(group.id, { title: 'Beta', labels: 'y' });
      assert.deepEqual((await epics.all(group.id, { labels: 'y', order_by: 'title', sort: 'asc', per_page: 1 }).toArray()).map((x) => x.id), [e.id, b.id]);
      assert.deepEqual((await epics.all(group.full_path, { search: 'bet' }).toArray()).map((x) => x.id), [b.id]);
      const edited = await epics.edit(group.id, e.iid, { title: 'Alpha 2', add_labels: 'z', remove_labels: ['x'] });
      assert.deepEqual([edited.title, edited.labels], ['Alpha 2', ['y', 'z']]);
      assert.equal((await epics.close(group.id, e.iid)).state, 'closed');
      assert.deepEqual((await epics.all(group.id, { state: 'closed' }).toArray()).map((x) => x.id), [e.id]);
      assert.equal((await epics.reopen(group.id, e.iid)).state, 'opened');
      await epics.remove(group.id, b.iid);
      const gone = await apiError(epics.show(group.id, b.iid));
      assert.deepEqual([gone.status, gone.body], [403, { message: '403 Forbidden' }]);
      const bad = await apiError(epics.create(group.id, { title: '' }));
      assert.deepEqual([bad.status, bad.body], [400, { message: { title: ["can't be blank"] } }]);
    });

    it('EpicLinks: all, assign, create, reorder, unassign; a cycle refused', async () => {
      const top = await epics.create(group.id, { title: 'Top' });
      const one = await epics.create(group.id, { title: 'One' });
      const two = await epics.create(group.id, { title: 'Two' });
      assert.deepEqual(await links.all(group.id, top.iid), []);
      assert.equal((await links.assign(group.id, top.iid, one.id)).parent_id, top.id);
      assert.equal((await links.assign(group.full_path, top.iid, two.id)).parent_id, top.id);
      const made = await links.create(group.id, top.iid, 'Three', { confidential: false });
      assert.deepEqual([made.title, made.parent_id, made.has_children, made.has_issues, made.reference], ['Three', top.id, false, false, `&${made.iid}`]);
      assert.deepEqual((await links.all(group.id, top.iid)).map((x) => x.id), [made.id, two.id, one.id]);
      const reordered = await links.reorder(group.id, top.iid, made.id, { move_before_id: one.id });
      assert.deepEqual(reordered.map((x) => x.id), [two.id, one.id, made.id]);
      // third level, then a cycle
      await links.assign(group.id, one.iid, made.id);
      const cycle = await apiError(links.assign(group.id, made.iid, top.id));
      assert.deepEqual([cycle.status, cycle.body], [409, { message: 'This epic cannot be added. It is already an ancestor of the parent epic.' }]);
      const removed = await links.unassign(group.id, top.iid, two.id);
      assert.deepEqual([removed.id, removed.parent_id], [two.id, null]);
      assert.deepEqual((await links.all(group.id, top.iid)).map((x) => x.id), [one.id]);
    });

    it('EpicIssues: assign, all, edit (move), remove', async () => {
      const e = await epics.create(group.id, { title: 'With issues' });
      const project = await api.projects.create({ name: 'Tracked', namespace_id: group.id });
      const [a, b] = [await api.issues.create(project.id, { title: 'a' }), await api.issues.create(project.id, { title: 'b' })];
      const linkA = await api.epicIssues.assign(group.full_path, e.iid, a.id);
      assert.deepEqual([linkA.epic.id, linkA.issue.id, linkA.epic.reference], [e.id, a.id, `cep&${e.iid}`]);
      const linkB = await api.epicIssues.assign(group.id, e.iid, b.id);
      const pages = await api.epicIssues.all(group.id, e.iid, { per_page: 1 }).toArray();
      assert.deepEqual(pages.map((i) => [i.title, i.epic_issue_id]), [['b', linkB.id], ['a', linkA.id]]);
      const moved = await api.epicIssues.edit(group.id, e.iid, linkB.id, { move_before_id: linkA.id });
      assert.deepEqual(moved.map((i) => i.title), ['a', 'b']);
      const removed = await api.epicIssues.remove(group.id, e.iid, linkA.id);
      assert.deepEqual([removed.id, removed.issue.title], [linkA.id, 'a']);
      assert.deepEqual((await api.epicIssues.all(group.id, e.iid).toArray()).map((i) => i.title), ['b']);
      const twice = await apiError(api.epicIssues.assign(group.id, e.iid, b.id));
      assert.deepEqual([twice.status, twice.body], [409, { message: 'Issue(s) already assigned' }]);
    });

    it('EpicStateEvents: all and show by the epic id', async () => {
      const e = await epics.create(group.id, { title: 'Evented' });
      const events = new EpicStateEvents(api.requester);
      assert.deepEqual(await events.all(group.id, e.id).toArray(), []);
      await epics.close(group.id, e.iid);
      await epics.reopen(group.id, e.iid);
      const all = await events.all(group.full_path, e.id, { per_page: 1 }).toArray();
      assert.deepEqual(all.map((x) => [x.state, x.resource_type, x.resource_id]), [['closed', 'Epic', e.id], ['reopened', 'Epic', e.id]]);
      assert.deepEqual(await events.show(group.id, e.id, all[1]!.id), all[1]);
      const missing = await apiError(events.show(group.id, e.id, 999999));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
    });
  });
}
