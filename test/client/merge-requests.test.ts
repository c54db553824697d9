import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet, GroupEntity, ProjectEntity } from '@forgelet/client';
// Until forgelet.ts exposes `api.mergeRequests`, the resource is built on the client's requester.
import { MergeRequests } from '../../packages/client/src/resources/merge-requests.js';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client merge requests`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let mergeRequests: MergeRequests;
    let group: GroupEntity;
    let project: ProjectEntity;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      mergeRequests = new MergeRequests(api.requester);
      group = await api.groups.create({ name: 'Web', path: 'web' });
      project = await api.projects.create({ name: 'Shop', namespace_id: group.id });
      await commitFiles(f, project.id, 'main', { 'README.md': '# Shop\n' });
    });
    after(() => f.stop());

    it('create, show by encoded path, edit, merge', async () => {
      const head = await commitFiles(f, project.id, 'feature/cart', { 'cart.txt': 'cart\n' }, { startBranch: 'main' });
      const created = await mergeRequests.create('web/shop', { source_branch: 'feature/cart', target_branch: 'main', title: 'Draft: Cart', labels: ['shop', 'ui'] });
      assert.equal(created.project_id, project.id);
      assert.deepEqual([created.state, created.draft, created.labels, created.references.full], ['opened', true, ['shop', 'ui'], `web/shop!${created.iid}`]);
      assert.equal(created.sha, head);

      const shown = await mergeRequests.show('web/shop', created.iid);
      const status = { merge_status: 0, detailed_merge_status: 0, has_conflicts: 0 }; // the queue may have checked it meanwhile
      assert.deepEqual({ ...shown, ...status }, { ...created, first_contribution: true, ...status }, 'GET adds first_contribution');
      // The server's worker runs the mergeability check the create started (`checking` until then).
      for (let i = 0; i < 100 && (await mergeRequests.show(project.id, created.iid)).merge_status === 'checking'; i++) await new Promise((r) => setTimeout(r, 50));

      const edited = await mergeRequests.edit(project.id, created.iid, { title: 'Cart', add_labels: ['ready'], remove_labels: ['ui'] });
      assert.deepEqual([edited.title, edited.draft, edited.labels, edited.detailed_merge_status], ['Cart', false, ['ready', 'shop'], 'mergeable']);

      const merged = await mergeRequests.merge('web/shop', created.iid, { sha: head });
      assert.equal(merged.state, 'merged');
      assert.match(merged.merge_commit_sha ?? '', /^[0-9a-f]{40}$/);
      assert.equal(merged.merged_by?.username, 'root');
    });

    it('edit with state_event closes and reopens', async () => {
      const mr = await mergeRequests.create(project.id, { source_branch: 'fix', target_branch: 'main', title: 'Fix' });
      const closed = await mergeRequests.edit(project.id, mr.iid, { state_event: 'close' });
      assert.equal(closed.state, 'closed');
      assert.equal(closed.closed_by?.username, 'root');
      const reopened = await mergeRequests.edit(project.id, mr.iid, { state_event: 'reopen' });
      assert.deepEqual([reopened.state, reopened.closed_at], ['opened', null]);
    });

    it('allInProject, allInGroup and all page through Link headers with their filters', async () => {
      for (const n of [1, 2, 3]) await mergeRequests.create(project.id, { source_branch: `page-${n}`, target_branch: 'main', title: `Paged ${n}`, labels: ['paged'] });
      const { fetch, sent } = recordingFetch();
      const recorded = new MergeRequests(clientFor(f, { fetch }).requester);
      const inProject = await recorded.allInProject('web/shop', { labels: ['paged'], per_page: 2, order_by: 'title', sort: 'asc' }).toArray();
      assert.deepEqual(inProject.map((m) => m.title), ['Paged 1', 'Paged 2', 'Paged 3']);
      assert.equal(sent.length, 2);
      assert.match(sent[1]!.url, /labels%5B%5D=paged/);
      assert.equal(inProject[0]!.references.relative, `!${inProject[0]!.iid}`);

      const inGroup = await mergeRequests.allInGroup('web', { labels: ['paged'], state: 'opened' }).toArray();
      assert.deepEqual(inGroup.map((m) => m.references.relative).sort(), inProject.map((m) => `shop!${m.iid}`).sort());

      const mine = await mergeRequests.all({ search: 'Paged', per_page: 1 }).toArray();
      assert.equal(mine.length, 3);
      assert.ok(mine.every((m) => m.author?.username === 'root'));
      const page = await mergeRequests.all({ scope: 'all', labels: ['paged'], per_page: 2 }).page(2);
      assert.deepEqual([page.items.length, page.pagination.total, page.pagination.page], [1, 3, 2]);
    });

    it('remove deletes (204); errors carry GitLab bodies', async () => {
      await commitFiles(f, project.id, 'gone', { 'gone.txt': 'g\n' }, { startBranch: 'main' });
      const mr = await mergeRequests.create(project.id, { source_branch: 'gone', target_branch: 'main', title: 'Gone' });
      const dup = await apiError(mergeRequests.create(project.id, { source_branch: 'gone', target_branch: 'main', title: 'Again' }));
      assert.deepEqual([dup.status, dup.body], [409, { message: [`Another open merge request already exists for this source branch: !${mr.iid}`] }]);
      const sha = await apiError(mergeRequests.merge(project.id, mr.iid, { sha: '0'.repeat(40) }));
      assert.deepEqual([sha.status, sha.body], [409, { message: `SHA does not match HEAD of source branch: ${mr.sha}` }]);
      await mergeRequests.remove('web/shop', mr.iid);
      const missing = await apiError(mergeRequests.show(project.id, mr.iid));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Merge Request Not Found' }]);
    });
  });
}
