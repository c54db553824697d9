import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
// Not yet exported by @forgelet/client (wired in forgelet.ts / index.ts separately).
import { ProjectSnippets } from '../../packages/client/src/resources/snippets.js';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client project snippets`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let snippets: ProjectSnippets;
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      snippets = new ProjectSnippets(api.requester);
      project = await api.projects.create({ name: 'Client Snippets', visibility: 'internal' });
    });
    after(() => f.stop());

    it('create (content + file_name, or files), show, showContent', async () => {
      const single = await snippets.create(project.id, { title: 'Single', file_name: 'a.sh', content: 'echo hi\n', description: 'shell', visibility: 'internal' });
      assert.deepEqual(
        [single.title, single.file_name, single.description, single.visibility, single.author.username, single.project_id],
        ['Single', 'a.sh', 'shell', 'internal', 'root', project.id],
      );
      assert.equal(single.web_url, `${f.url}/${project.path_with_namespace}/-/snippets/${single.id}`);
      const viaFiles = await snippets.create(project.path_with_namespace, { title: 'Files', files: [{ file_path: 'b.py', content: 'print(1)' }] });
      assert.deepEqual([viaFiles.file_name, viaFiles.visibility, viaFiles.files], ['b.py', 'private', [{ path: 'b.py', raw_url: viaFiles.raw_url }]]);

      assert.deepEqual(await snippets.show(project.path_with_namespace, single.id), single);
      assert.equal(await snippets.showContent(project.id, single.id), 'echo hi\n');
      assert.equal(await snippets.showContent(project.id, viaFiles.id), 'print(1)');
    });

    it('all() pages newest first; edit; remove', async () => {
      const project2 = await api.projects.create({ name: 'Client Snippets Paged' });
      const made: number[] = [];
      for (let i = 0; i < 3; i++) made.push((await snippets.create(project2.id, { title: `s${i}`, file_name: `f${i}`, content: 'x' })).id);
      const list = snippets.all(project2.id, { per_page: 2 });
      const seen: number[] = [];
      for await (const s of list) seen.push(s.id);
      assert.deepEqual(seen, [...made].reverse());
      assert.equal(list.pagination?.total, 3);
      const page = await snippets.all(project2.id, { per_page: 2 }).page(2);
      assert.deepEqual(page.items.map((s) => s.id), [made[0]]);

      const edited = await snippets.edit(project2.id, made[0]!, { title: 'renamed', content: 'y', visibility: 'private' });
      assert.deepEqual([edited.title, edited.visibility], ['renamed', 'private']);
      assert.equal(await snippets.showContent(project2.id, made[0]!), 'y');
      const moved = await snippets.edit(project2.id, made[0]!, { files: [{ action: 'move', previous_path: 'f0', file_path: 'g0' }] });
      assert.equal(moved.file_name, 'g0');

      await snippets.remove(project2.id, made[0]!);
      const gone = await apiError(snippets.show(project2.id, made[0]!));
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Snippet Not Found' }]);
    });

    it('errors arrive as ApiError with GitLab\'s body', async () => {
      const tooVisible = await apiError(snippets.create(project.id, { title: 't', file_name: 'a', content: 'x', visibility: 'public' }));
      assert.deepEqual([tooVisible.status, tooVisible.body], [400, { message: { visibility_level: ['public is not allowed in a internal project.'] } }]);
      const user = await f.createUser('csnipper');
      const outsider = new ProjectSnippets(clientFor(f, { token: user.token }).requester);
      const denied = await apiError(outsider.create(project.id, { title: 't', file_name: 'a', content: 'x' }));
      assert.deepEqual([denied.status, denied.body], [403, { message: '403 Forbidden' }]);
      const s = await snippets.create(project.id, { title: 'mine', file_name: 'a', content: 'x', visibility: 'internal' });
      assert.equal((await apiError(outsider.edit(project.id, s.id, { title: 'theirs' }))).status, 403);
      assert.equal((await apiError(outsider.remove(project.id, s.id))).status, 403);
    });
  });
}
