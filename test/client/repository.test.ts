import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet, ProjectEntity } from '@forgelet/client';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const NOW = '2026-04-06T10:00:00.000Z';
const SHA = /^[0-9a-f]{40}$/;

for (const dialect of DIALECTS) {
  describe(`${dialect}: client repository`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let project: ProjectEntity;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      api = clientFor(f);
      const group = await api.groups.create({ name: 'Code', path: 'code' });
      project = await api.projects.create({ name: 'Lib', namespace_id: group.id, initialize_with_readme: true });
    });
    after(() => f.stop());

    it('commits: create with actions, show with stats, all with filters, references', async () => {
      assert.equal((await api.projects.show(project.id)).empty_repo, false, 'initialize_with_readme made a first commit');
      const created = await api.commits.create('code/lib', 'feature/x', 'Add lib', [
        { action: 'create', file_path: 'src/lib.ts', content: 'export const x = 1;\n' },
        { action: 'create', file_path: 'bin/tool', content: '#!/bin/sh\n', execute_filemode: true },
      ], { start_branch: 'main' });
      assert.match(created.id, SHA);
      assert.deepEqual([created.title, created.stats, created.project_id], ['Add lib', { additions: 2, deletions: 0, total: 2 }, project.id]);
      const shown = await api.commits.show(project.id, 'feature/x', { stats: false });
      assert.deepEqual([shown.id, 'stats' in shown], [created.id, false]);
      const history = await api.commits.all(project.id, { ref_name: 'feature/x', with_stats: true }).toArray();
      assert.deepEqual(history.map((c) => c.title), ['Add lib', 'Initial commit']);
      assert.deepEqual(await api.commits.all(project.id, { ref_name: 'feature/x', path: 'src', since: new Date(NOW) }).toArray().then((l) => l.map((c) => c.id)), [created.id]);
      const refs = await api.commits.allReferences(project.id, shown.parent_ids[0]!).toArray();
      assert.deepEqual(refs, [{ type: 'branch', name: 'feature/x' }, { type: 'branch', name: 'main' }]);
    });

    it('branches: create, show (slash in the name), all with search, remove, removeMerged', async () => {
      const { fetch, sent } = recordingFetch();
      const traced = clientFor(f, { fetch });
      const made = await traced.repositoryBranches.create(project.id, 'release/1', 'main');
      assert.deepEqual([made.name, made.default, made.protected], ['release/1', false, false]);
      const shown = await traced.repositoryBranches.show(project.id, 'release/1');
      assert.equal(shown.web_url, `${f.url}/code/lib/-/tree/release/1`);
      assert.match(sent[1]!.url, /repository\/branches\/release%2F1$/);
      assert.deepEqual((await api.repositoryBranches.all(project.id).toArray()).map((b) => b.name), ['feature/x', 'main', 'release/1']);
      assert.deepEqual((await api.repositoryBranches.all(project.id, { search: '^rel' }).toArray()).map((b) => b.name), ['release/1']);
      await api.repositoryBranches.remove(project.id, 'release/1');
      const gone = await apiError(api.repositoryBranches.show(project.id, 'release/1'));
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Branch Not Found' }]);
      await api.repositoryBranches.create(project.id, 'merged', 'main');
      await api.commits.create(project.id, 'main', 'More', [{ action: 'create', file_path: 'more.txt', content: 'm\n' }]);
      await api.repositoryBranches.removeMerged(project.id);
      assert.deepEqual((await api.repositoryBranches.all(project.id).toArray()).map((b) => b.name), ['feature/x', 'main']);
    });

    it('tags: create (annotated), show, all by version, remove', async () => {
      const tag = await api.repositoryTags.create(project.id, 'v1.0.0', 'main', { message: 'First release' });
      assert.deepEqual([tag.name, tag.message, tag.created_at, tag.release], ['v1.0.0', 'First release', NOW, null]);
      await api.repositoryTags.create(project.id, 'v1.10.0', 'feature/x');
      await api.repositoryTags.create(project.id, 'v1.9.0', 'feature/x');
      assert.deepEqual((await api.repositoryTags.show(project.id, 'v1.9.0')).commit?.title, 'Add lib');
      assert.deepEqual((await api.repositoryTags.all(project.id, { order_by: 'version', sort: 'asc' }).toArray()).map((t) => t.name), ['v1.0.0', 'v1.9.0', 'v1.10.0']);
      await api.repositoryTags.remove(project.id, 'v1.9.0');
      assert.equal((await apiError(api.repositoryTags.show(project.id, 'v1.9.0'))).status, 404);
    });

    it('files: create, show, showRaw, edit, remove; tree lists them', async () => {
      const made = await api.repositoryFiles.create(project.id, 'docs/guide.md', 'feature/x', '# Guide\n', 'Add guide');
      assert.deepEqual(made, { file_path: 'docs/guide.md', branch: 'feature/x' });
      const file = await api.repositoryFiles.show('code/lib', 'docs/guide.md', 'feature/x');
      assert.deepEqual([file.file_name, Buffer.from(file.content, 'base64').toString(), file.ref], ['guide.md', '# Guide\n', 'feature/x']);
      const edited = await api.repositoryFiles.edit(project.id, 'docs/guide.md', 'feature/x', '# Guide v2\n', 'Edit guide', { last_commit_id: file.last_commit_id });
      assert.deepEqual(edited, { file_path: 'docs/guide.md', branch: 'feature/x' });
      assert.equal(await api.repositoryFiles.showRaw(project.id, 'docs/guide.md', { ref: 'feature/x' }), '# Guide v2\n');
      assert.equal(await api.repositoryFiles.showRaw(project.id, 'README.md'), '# Lib\n');
      const stale = await apiError(api.repositoryFiles.edit(project.id, 'docs/guide.md', 'feature/x', 'x', 'x', { last_commit_id: file.last_commit_id }));
      assert.deepEqual([stale.status, stale.body], [400, { message: 'You are attempting to update a file that has changed since you started editing it.' }]);
      const tree = await api.repositoryTree.all(project.id, { ref: 'feature/x', recursive: true }).toArray();
      assert.deepEqual(tree.map((e) => [e.type, e.path, e.mode]), [
        ['tree', 'bin', '040000'], ['tree', 'docs', '040000'], ['tree', 'src', '040000'],
        ['blob', 'README.md', '100644'], ['blob', 'bin/tool', '100755'], ['blob', 'docs/guide.md', '100644'], ['blob', 'src/lib.ts', '100644'],
      ]);
      await api.repositoryFiles.remove(project.id, 'docs/guide.md', 'feature/x', 'Remove guide');
      assert.equal((await apiError(api.repositoryFiles.show(project.id, 'docs/guide.md', 'feature/x'))).status, 404);
      // The directory went with its last file: not a tree any more.
      assert.equal((await apiError(api.repositoryTree.all(project.id, { ref: 'feature/x', path: 'docs' }).toArray())).status, 404);
    });
  });
}
