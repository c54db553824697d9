/**
 * @gitbeaker/rest 43.8.0 reading a repository from git through a real Forgelet: a file and its
 * raw bytes at an older sha, blobs, the tree followed page by page with `pagination: 'keyset'`,
 * a commit's diff, compare, blame with a range, merge base, contributors and a zip archive.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

type Client = InstanceType<typeof Gitlab>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 repository reads`, () => {
    let f: ServedForgelet;
    let root: Client;
    let projectId: number;
    let first: string;
    let second: string;
    let side: string;

    before(async () => {
      f = await startServed(dialect);
      root = new Gitlab({ host: f.url, token: f.rootToken });
      const project = await root.Projects.create({ name: 'Reads', path: 'reads' });
      projectId = project.id;
      const files = Array.from({ length: 5 }, (_, i) => ({ action: 'create' as const, filePath: `docs/page-${i}.md`, content: `page ${i}\n` }));
      first = (await root.Commits.create(projectId, 'main', 'First', [{ action: 'create', filePath: 'README.md', content: 'one\ntwo\n' }, ...files])).id as string;
      second = (await root.Commits.create(projectId, 'main', 'Second', [{ action: 'update', filePath: 'README.md', content: 'one\n2\nthree\n' }])).id as string;
      await root.Branches.create(projectId, 'side', first);
      side = (await root.Commits.create(projectId, 'side', 'Side', [{ action: 'create', filePath: 'side.txt', content: 'side\n' }])).id as string;
    });
    after(async () => {
      await f?.stop();
    });

    it('a file, its raw bytes and its blob at an older sha', async () => {
      const file = await root.RepositoryFiles.show(projectId, 'README.md', first);
      assert.deepEqual([Buffer.from(String(file.content), 'base64').toString(), file.commit_id, file.last_commit_id], ['one\ntwo\n', first, first]);
      assert.equal(await root.RepositoryFiles.showRaw(projectId, 'README.md', first), 'one\ntwo\n');
      const blob = await root.Repositories.showBlob(projectId, String(file.blob_id));
      assert.deepEqual([blob.size, blob.sha], [8, file.blob_id]);
      // text/plain: gitbeaker hands back the text.
      assert.equal(String(await root.Repositories.showBlobRaw(projectId, String(file.blob_id))), 'one\ntwo\n');
    });

    it('the tree, followed with keyset pagination', async () => {
      const entries = await root.Repositories.allRepositoryTrees(projectId, { ref: first, recursive: true, pagination: 'keyset', perPage: 2 });
      assert.deepEqual(entries.map((e) => e.path), ['docs', 'README.md', 'docs/page-0.md', 'docs/page-1.md', 'docs/page-2.md', 'docs/page-3.md', 'docs/page-4.md']);
    });

    it('a commit diff, compare, blame, merge base, contributors', async () => {
      const diff = await root.Commits.showDiff(projectId, second);
      assert.deepEqual(diff.map((d) => [d.new_path, d.diff]), [['README.md', '@@ -1,2 +1,3 @@\n one\n-two\n+2\n+three\n']]);
      const cmp = await root.Repositories.compare(projectId, 'main', 'side');
      assert.deepEqual((cmp.commits as Array<{ id: string }>).map((c) => c.id), [side]);
      assert.deepEqual((cmp.diffs as Array<{ new_path: string; new_file: boolean }>).map((d) => [d.new_path, d.new_file]), [['side.txt', true]]);
      const straight = await root.Repositories.compare(projectId, 'main', 'side', { straight: true });
      assert.deepEqual((straight.diffs as Array<{ new_path: string }>).map((d) => d.new_path).sort(), ['README.md', 'side.txt']);
      const blame = await root.RepositoryFiles.allFileBlames(projectId, 'README.md', 'main', { range: { start: 2, end: 3 } });
      assert.deepEqual(blame.map((g) => [(g.commit as { id: string }).id, g.lines]), [[second, ['2', 'three']]]);
      assert.equal((await root.Repositories.mergeBase(projectId, ['main', 'side'])).id, first);
      const contributors = await root.Repositories.allContributors(projectId, { orderBy: 'commits', sort: 'desc' });
      assert.deepEqual(contributors.map((c) => c.commits), [2]);
    });

    it('a zip archive of an older sha', async () => {
      const zip = Buffer.from(await (await root.Repositories.showArchive(projectId, { fileType: 'zip', sha: first })).arrayBuffer());
      assert.equal(zip.subarray(0, 2).toString('latin1'), 'PK');
      assert.ok(zip.includes(Buffer.from(`reads-${first}-${first}/README.md`)), 'entries under GitLab\'s prefix');
    });
  });
}
