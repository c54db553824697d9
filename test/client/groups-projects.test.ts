import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Forgelet, type GroupEntity } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client groups and projects`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let top: GroupEntity;
    let sub: GroupEntity;
    let deep: GroupEntity;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      top = await api.groups.create({ name: 'Platform', path: 'platform', description: 'Top level', visibility: 'public' });
      sub = await api.groups.create({ name: 'Tools', path: 'tools', parent_id: top.id });
      deep = await api.groups.create({ name: 'Deep', path: 'deep', parent_id: sub.id });
    });
    after(() => f.stop());

    it('groups.create makes groups and subgroups; show by id and by encoded full path', async () => {
      assert.equal(top.full_path, 'platform');
      assert.equal(top.description, 'Top level');
      assert.equal(sub.full_path, 'platform/tools');
      assert.equal(sub.parent_id, top.id);
      assert.equal(deep.full_name, 'Platform / Tools / Deep');
      assert.deepEqual(await api.groups.show(sub.id), sub);
      assert.deepEqual(await api.groups.show('platform/tools/deep'), deep);
    });

    it('groups.subgroups lists direct children; descendantGroups the whole tree', async () => {
      const direct = await api.groups.subgroups('platform').toArray();
      assert.deepEqual(direct.map((g) => g.id), [sub.id]);
      const all = await api.groups.descendantGroups(top.id, { order_by: 'id' }).toArray();
      assert.deepEqual(all.map((g) => g.full_path), ['platform/tools', 'platform/tools/deep']);
    });

    it('groups.all lists groups with filters', async () => {
      const found = await api.groups.all({ search: 'tool' }).toArray();
      assert.deepEqual(found.map((g) => g.id), [sub.id]);
      const topLevel = await api.groups.all({ top_level_only: true }).toArray();
      assert.ok(topLevel.some((g) => g.id === top.id));
      assert.ok(topLevel.every((g) => g.parent_id === null));
    });

    it('groups.edit renames, and the new path resolves', async () => {
      const scratch = await api.groups.create({ name: 'Scratch', path: 'scratch' });
      const edited = await api.groups.edit('scratch', { name: 'Renamed', path: 'renamed', description: 'changed' });
      assert.equal(edited.id, scratch.id);
      assert.equal(edited.full_path, 'renamed');
      assert.equal(edited.description, 'changed');
      assert.equal((await api.groups.show('renamed')).name, 'Renamed');
    });

    it('projects.create in a subgroup by path; show by encoded path; edit; remove', async () => {
      const project = await api.projects.create({ name: 'CLI', namespace_id: 'platform/tools', description: 'The CLI', topics: ['go', 'cli'] });
      assert.equal(project.path_with_namespace, 'platform/tools/cli');
      assert.equal(project.namespace.id, sub.id);
      assert.deepEqual(project.topics, ['go', 'cli']);

      const shown = await api.projects.show('platform/tools/cli');
      assert.equal(shown.id, project.id);
      assert.deepEqual(shown.permissions, { project_access: null, group_access: { access_level: 50, notification_level: 3 } });

      const edited = await api.projects.edit(project.id, { name: 'Command Line', path: 'command-line', archived: true });
      assert.equal(edited.path_with_namespace, 'platform/tools/command-line');
      assert.equal(edited.archived, true);
      // the old path still resolves (redirect route)
      assert.equal((await api.projects.show('platform/tools/cli')).id, project.id);

      await api.projects.remove('platform/tools/command-line');
      const gone = await apiError(api.projects.show(project.id));
      assert.equal(gone.status, 404);
      assert.deepEqual(gone.body, { message: '404 Project Not Found' });
    });

    it('projects.create by namespace id, in the personal namespace, and as 400 on a taken name', async () => {
      const byId = await api.projects.create({ path: 'by-id', namespace_id: deep.id });
      assert.equal(byId.path_with_namespace, 'platform/tools/deep/by-id');
      const personal = await api.projects.create({ name: 'Mine' });
      assert.equal(personal.path_with_namespace, 'root/mine');
      assert.equal(personal.owner?.username, 'root');
      const taken = await apiError(api.projects.create({ name: 'Mine' }));
      assert.equal(taken.status, 400);
      assert.deepEqual(taken.body, { message: { name: ['has already been taken'] } });
    });

    it('for await follows Link rel="next": 25 projects, per_page=10, 3 pages, each id once', async () => {
      const group = await api.groups.create({ name: 'Many', path: 'many' });
      const created: number[] = [];
      for (let i = 0; i < 25; i++) created.push((await api.projects.create({ name: `p${String(i).padStart(2, '0')}`, namespace_id: group.id })).id);

      const { fetch, sent } = recordingFetch();
      const list = clientFor(f, { fetch }).groups.projects('many', { per_page: 10, order_by: 'id', sort: 'asc' });
      const seen: number[] = [];
      for await (const project of list) seen.push(project.id);
      assert.deepEqual(seen, created);
      assert.equal(new Set(seen).size, 25);
      assert.equal(sent.length, 3);
      assert.equal(sent[0]!.url, `${f.url}/api/v4/groups/many/projects?per_page=10&order_by=id&sort=asc`);
      // pages 2 and 3 are the server's Link rel="next" URLs, used verbatim (its keys come sorted)
      assert.equal(sent[1]!.url, `${f.url}/api/v4/groups/many/projects?order_by=id&page=2&per_page=10&sort=asc`);
      assert.equal(sent[2]!.url, `${f.url}/api/v4/groups/many/projects?order_by=id&page=3&per_page=10&sort=asc`);
      assert.ok(sent.every((r) => r.method === 'GET' && r.body === undefined));
      assert.deepEqual(
        { ...list.pagination, links: undefined },
        { page: 3, perPage: 10, total: 25, totalPages: 3, nextPage: null, prevPage: 2, links: undefined },
      );
      assert.equal(list.pagination?.links.next, undefined);
      assert.ok(list.pagination?.links.first);

      const pages = [];
      for await (const page of list.pages()) pages.push(page.items.length);
      assert.deepEqual(pages, [10, 10, 5]);

      const second = await list.page(2);
      assert.deepEqual(second.items.map((p) => p.id), created.slice(10, 20));
      assert.equal(second.pagination.page, 2);
      assert.equal(second.pagination.nextPage, 3);
      assert.equal(list.pagination?.page, 2);

      const simple = await api.projects.all({ search: 'p0', simple: true, per_page: 100 }).toArray();
      assert.equal(simple.length, 10);
      assert.ok(simple.every((p) => !('visibility' in p) && p.namespace.id === group.id));
    });

    it('groups.projects with include_subgroups and projects.all with a filter', async () => {
      const tree = await api.groups.projects(top.id, { include_subgroups: true }).toArray();
      assert.deepEqual(tree.map((p) => p.path_with_namespace), ['platform/tools/deep/by-id']);
      assert.deepEqual(await api.groups.projects(top.id).toArray(), []);
      const mine = await api.projects.all({ search: 'mine' }).toArray();
      assert.deepEqual(mine.map((p) => p.path_with_namespace), ['root/mine']);
    });

    it('groups.remove deletes the group tree with its projects', async () => {
      const doomed = await api.groups.create({ name: 'Doomed', path: 'doomed' });
      const child = await api.groups.create({ name: 'Child', path: 'child', parent_id: doomed.id });
      const project = await api.projects.create({ name: 'In child', namespace_id: child.id });
      await api.groups.remove('doomed');
      assert.equal((await apiError(api.groups.show(child.id))).status, 404);
      assert.equal((await apiError(api.projects.show(project.id))).status, 404);
    });
  });
}
