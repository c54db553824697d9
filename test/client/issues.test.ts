import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { GroupIssues } from '../../packages/client/src/resources/group-issues.js';
import { Issues } from '../../packages/client/src/resources/issues.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client issues`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let issues: Issues;
    let groupIssues: GroupIssues;
    let project: { id: number; path_with_namespace: string };
    let group: { id: number; full_path: string };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      issues = new Issues(api.requester);
      groupIssues = new GroupIssues(api.requester);
      group = await api.groups.create({ name: 'Client Team', path: 'client-team' });
      const sub = await api.groups.create({ name: 'Inner', path: 'inner', parent_id: group.id });
      project = await api.projects.create({ name: 'Tracker', namespace_id: sub.id });
    });
    after(() => f.stop());

    it('create with labels as a string or an array; show by encoded path', async () => {
      const me = await api.users.current();
      const a = await issues.create(project.path_with_namespace, { title: 'From the client', labels: 'bug,client', assignee_ids: [me.id], due_date: '2030-01-02' });
      assert.deepEqual([a.iid, a.labels, a.assignee?.username, a.due_date, a.references.full], [1, ['bug', 'client'], 'root', '2030-01-02', 'client-team/inner/tracker#1']);
      const b = await issues.create(project.id, { title: 'Second', labels: ['client'], created_at: new Date('2021-05-05T05:05:05.000Z') });
      assert.deepEqual([b.iid, b.labels, b.created_at], [2, ['client'], '2021-05-05T05:05:05.000Z']);
      assert.deepEqual(await issues.show(project.path_with_namespace, 1), a);
    });

    it('all: project issues with filters, following Link across pages', async () => {
      for (const n of [3, 4, 5]) await issues.create(project.id, { title: `Paged ${n}`, labels: 'paged' });
      const { fetch, sent } = recordingFetch();
      const traced = new Issues(clientFor(f, { fetch }).requester);
      const list = traced.all(project.id, { labels: ['paged'], per_page: 2, sort: 'asc' });
      const all = await list.toArray();
      assert.deepEqual(all.map((i) => i.title), ['Paged 3', 'Paged 4', 'Paged 5']);
      assert.equal(sent.length, 2);
      assert.equal(list.pagination?.total, 3);
      assert.match(sent[0]!.url, /labels%5B%5D=paged/);
      const byDate = await issues.all(project.id, { created_before: '2022-01-01T00:00:00Z' }).toArray();
      assert.deepEqual(byDate.map((i) => i.iid), [2]);
    });

    it('edit, close and reopen', async () => {
      const edited = await issues.edit(project.id, 1, { title: 'Renamed', add_labels: 'triaged', remove_labels: ['bug'], assignee_ids: [] });
      assert.deepEqual([edited.title, edited.labels, edited.assignees], ['Renamed', ['client', 'triaged'], []]);
      const closed = await issues.close(project.id, 1);
      assert.deepEqual([closed.state, closed.closed_by?.username], ['closed', 'root']);
      const reopened = await issues.reopen(project.id, 1);
      assert.deepEqual([reopened.state, reopened.closed_at], ['opened', null]);
      const err = await apiError(issues.edit(project.id, 1, {}));
      assert.equal(err.status, 400);
      assert.match(String(err.message), /at least one parameter must be provided/);
    });

    it('allAccessible: GET /issues with scope; GroupIssues.all over subgroups', async () => {
      const mine = await issues.allAccessible({ state: 'opened', per_page: 100 }).toArray();
      assert.deepEqual(mine.map((i) => i.iid).sort(), [1, 2, 3, 4, 5]);
      const assigned = await issues.allAccessible({ scope: 'assigned_to_me' }).toArray();
      assert.deepEqual(assigned, []);
      const inGroup = await groupIssues.all(group.full_path, { search: 'paged', order_by: 'title', sort: 'asc' }).toArray();
      assert.deepEqual(inGroup.map((i) => i.title), ['Paged 3', 'Paged 4', 'Paged 5']);
    });

    it('remove: 204, then show is a 404 ApiError', async () => {
      await issues.remove(project.id, 5);
      const err = await apiError(issues.show(project.id, 5));
      assert.deepEqual([err.status, err.body], [404, { message: '404 Issue Not Found' }]);
    });
  });
}
