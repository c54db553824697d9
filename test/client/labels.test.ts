import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { GroupLabels } from '../../packages/client/src/resources/group-labels.js';
import { ProjectLabels } from '../../packages/client/src/resources/project-labels.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client labels`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let groupLabels: GroupLabels;
    let projectLabels: ProjectLabels;
    let group: { id: number; full_path: string };
    let sub: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      groupLabels = new GroupLabels(api.requester);
      projectLabels = new ProjectLabels(api.requester);
      group = await api.groups.create({ name: 'Label Team', path: 'label-team' });
      sub = await api.groups.create({ name: 'Inner', path: 'inner', parent_id: group.id });
      project = await api.projects.create({ name: 'Board', namespace_id: sub.id });
    });
    after(() => f.stop());

    it('group labels: create by color name and hex, show by id or title, all with filters across pages', async () => {
      const bug = await groupLabels.create(group.full_path, { name: 'bug label', color: 'red', description: 'Broken' });
      assert.deepEqual([bug.name, bug.color, bug.text_color, bug.description_html, bug.subscribed, bug.archived], ['bug label', '#FF0000', '#FFFFFF', '<p>Broken</p>', false, false]);
      await groupLabels.create(group.id, { name: 'docs', color: '#eee', archived: true });
      await groupLabels.create(sub.id, { name: 'inner', color: '#0033CC' });
      const { fetch, sent } = recordingFetch();
      const traced = new GroupLabels(clientFor(f, { fetch }).requester);
      assert.deepEqual(await traced.show(group.id, 'bug label'), { ...bug });
      assert.match(sent[0]!.url, /labels\/bug%20label$/);
      assert.equal((await groupLabels.show(sub.full_path, bug.id)).id, bug.id);
      const list = traced.all(sub.id, { per_page: 2, with_counts: true });
      const all = await list.toArray();
      assert.deepEqual(all.map((l) => l.name), ['bug label', 'docs', 'inner']);
      assert.equal(list.pagination?.total, 3);
      assert.equal(all[0]!.open_issues_count, 0);
      assert.deepEqual((await groupLabels.all(sub.id, { include_ancestor_groups: false }).toArray()).map((l) => l.name), ['inner']);
      assert.deepEqual((await groupLabels.all(group.id, { include_descendant_groups: true, archived: false }).toArray()).map((l) => l.name), ['bug label', 'inner']);
      assert.deepEqual((await groupLabels.all(group.id, { search: 'broken' }).toArray()).map((l) => l.name), ['bug label']);
      const dup = await apiError(groupLabels.create(sub.id, { name: 'BUG LABEL', color: 'blue' }));
      assert.deepEqual([dup.status, dup.message], [409, 'Label already exists']);
      const bad = await apiError(groupLabels.create(group.id, { name: 'x', color: 'nope' }));
      assert.deepEqual([bad.status, bad.body], [400, { message: { color: ['must be a valid color code'] } }]);
    });

    it('group labels: edit, editByName (deprecated PUT), subscribe/unsubscribe (null on 304), remove and removeByName', async () => {
      const label = await groupLabels.create(group.id, { name: 'triage', color: 'navy' });
      const edited = await groupLabels.edit(group.id, label.id, { new_name: 'Triage', archived: true });
      assert.deepEqual([edited.name, edited.archived, edited.color], ['Triage', true, '#000080']);
      const byName = await groupLabels.editByName(group.id, 'Triage', { color: '#abc', description: null });
      assert.deepEqual([byName.color, byName.description], ['#abc', null]);
      const empty = await apiError(groupLabels.edit(group.id, label.id, {} as never));
      assert.deepEqual([empty.status, empty.message], [400, 'new_name, color, description, archived are missing, at least one parameter must be provided']);
      const on = await groupLabels.subscribe(group.id, 'Triage');
      assert.equal(on?.subscribed, true);
      assert.equal(await groupLabels.subscribe(group.id, label.id), null);
      const off = await groupLabels.unsubscribe(group.id, label.id);
      assert.equal(off?.subscribed, false);
      assert.equal(await groupLabels.unsubscribe(group.id, label.id), null);
      await groupLabels.remove(group.id, 'Triage');
      assert.equal((await apiError(groupLabels.show(group.id, label.id))).status, 404);
      await groupLabels.create(group.id, { name: 'legacy one', color: 'green' });
      await groupLabels.removeByName(group.full_path, 'legacy one');
      assert.equal((await apiError(groupLabels.show(group.id, 'legacy one'))).message, '404 Label Not Found');
    });

    it('project labels: every method, with priority and is_project_label; counts from real issues', async () => {
      const own = await projectLabels.create(project.path_with_namespace, { name: 'perf', color: 'orange' });
      assert.deepEqual([own.color, own.is_project_label, own.priority], ['#FFA500', true, null]);
      await api.requester.post(`projects/${project.id}/issues`, { title: 'slow', labels: 'perf,inner' });
      const listed = await projectLabels.all(project.id, { with_counts: true }).toArray();
      assert.deepEqual(listed.map((l) => [l.name, l.is_project_label, l.open_issues_count]), [['bug label', false, 0], ['docs', false, 0], ['inner', false, 1], ['perf', true, 1]]);
      assert.deepEqual((await projectLabels.all(project.id, { include_ancestor_groups: false }).toArray()).map((l) => l.name), ['inner', 'perf']);
      const shown = await projectLabels.show(project.id, 'perf', { include_ancestor_groups: false });
      assert.deepEqual([shown.id, shown.open_issues_count], [own.id, 1]);
      const edited = await projectLabels.edit(project.id, own.id, { description: 'slow paths' });
      assert.equal(edited.description, 'slow paths');
      const legacy = await projectLabels.editByName(project.id, 'perf', { new_name: 'performance' });
      assert.equal(legacy.name, 'performance');
      assert.equal((await projectLabels.subscribe(project.id, 'performance'))?.subscribed, true);
      assert.equal(await projectLabels.subscribe(project.id, 'performance'), null);
      assert.equal((await projectLabels.unsubscribe(project.id, 'performance'))?.subscribed, false);
      assert.equal(await projectLabels.unsubscribe(project.id, 'performance'), null);
      await projectLabels.removeByName(project.id, 'performance');
      const temp = await projectLabels.create(project.id, { name: 'temp', color: 'red' });
      await projectLabels.remove(project.id, temp.id);
      assert.deepEqual((await projectLabels.all(project.id, { include_ancestor_groups: false }).toArray()).map((l) => l.name), ['inner']);
    });
  });
}
