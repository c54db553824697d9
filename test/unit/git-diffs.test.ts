/**
 * The diff module (domains/repository/diffs.ts) against `git diff` itself on a real repository:
 * patch text, modes, renames, binary files, root commits, and GitLab's collection limits.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GitRepositories } from '@forgelet/core';
import { diffCommit, diffCommits, diffLimits, presentDiff, type DiffEntity } from '../../packages/core/src/domains/repository/index.js';

const repos = new GitRepositories();
const P = 1;
const env = (n: number) => ({
  GIT_AUTHOR_NAME: 'A',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'A',
  GIT_COMMITTER_EMAIL: 'a@example.com',
  GIT_AUTHOR_DATE: `${1_700_000_000 + n} +0000`,
  GIT_COMMITTER_DATE: `${1_700_000_000 + n} +0000`,
});
let n = 0;

/** Writes a commit whose tree is exactly `files` (path → content, `mode` optional), parent `parent`. */
async function commit(files: Record<string, string | Buffer | { content: string; mode: string }>, parent?: string): Promise<string> {
  const indexEnv = { GIT_INDEX_FILE: `${repos.dir(P)}/test-index-${++n}` };
  for (const [path, value] of Object.entries(files)) {
    const content = typeof value === 'object' && !Buffer.isBuffer(value) ? value.content : value;
    const mode = typeof value === 'object' && !Buffer.isBuffer(value) ? value.mode : '100644';
    const blob = (await repos.run(P, ['hash-object', '-w', '--stdin'], { input: content })).stdout.toString().trim();
    await repos.run(P, ['update-index', '--add', '--cacheinfo', `${mode},${blob},${path}`], { env: indexEnv });
  }
  const tree = (await repos.run(P, ['write-tree'], { env: indexEnv })).stdout.toString().trim();
  const args = ['commit-tree', tree, '-m', `c${n}`];
  if (parent) args.push('-p', parent);
  return (await repos.run(P, args, { env: env(n) })).stdout.toString().trim();
}

/** `git diff` of two commits, header lines dropped up to the first hunk, per file: what GitLab's `diff` holds. */
async function gitDiffBodies(from: string, to: string): Promise<string[]> {
  const out = (await repos.run(P, ['diff', '-M', from, to])).stdout.toString('utf8');
  return out
    .split(/^diff --git .*\n/m)
    .slice(1)
    .map((part) => {
      const at = part.search(/^(@@|Binary files )/m);
      return at === -1 ? '' : part.slice(at);
    });
}

describe('diffs (domains/repository/diffs.ts)', () => {
  let c1: string, c2: string, c3: string;
  before(async () => {
    await repos.ensure(P);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join('');
    c1 = await commit({ 'README.md': 'hello\n', 'src/a.txt': lines, 'gone.txt': 'bye\n', 'moved/old name.txt': 'same content that is long enough to be a rename\n' });
    c2 = await commit(
      {
        'README.md': 'hello\nworld\n',
        'src/a.txt': lines.replace('line 3\n', 'line three\n').replace('line 25\n', ''),
        'moved/new name.txt': 'same content that is long enough to be a rename\n',
        'bin.dat': Buffer.from([0, 1, 2, 3, 255]),
        'run.sh': { content: '#!/bin/sh\n', mode: '100755' },
      },
      c1,
    );
    c3 = await commit({ 'README.md': 'hello\nworld\n' }, c2);
  });
  after(() => repos.close());

  it('gives each file the patch git prints, from its first hunk, with modes and flags', async () => {
    const { diffs, overflow } = await diffCommits(repos, P, { from: c1, to: c2 });
    assert.equal(overflow, false);
    const bodies = await gitDiffBodies(c1, c2);
    assert.deepEqual(diffs.map((d) => d.diff), bodies);
    const byPath = new Map(diffs.map((d) => [d.new_path, d]));
    assert.deepEqual(byPath.get('README.md'), {
      diff: '@@ -1 +1,2 @@\n hello\n+world\n',
      collapsed: false,
      too_large: false,
      new_path: 'README.md',
      old_path: 'README.md',
      a_mode: '100644',
      b_mode: '100644',
      new_file: false,
      renamed_file: false,
      deleted_file: false,
      generated_file: null,
    } satisfies DiffEntity);
    const gone = diffs.find((d) => d.old_path === 'gone.txt')!;
    assert.equal(gone.deleted_file, true);
    assert.equal(gone.b_mode, '0');
    const renamed = byPath.get('moved/new name.txt')!;
    assert.equal(renamed.renamed_file, true);
    assert.equal(renamed.old_path, 'moved/old name.txt');
    assert.equal(renamed.diff, '', 'a pure rename has no hunk');
    const script = byPath.get('run.sh')!;
    assert.equal(script.new_file, true);
    assert.equal(script.a_mode, '0');
    assert.equal(script.b_mode, '100755');
    assert.equal(byPath.get('bin.dat')!.diff, 'Binary files /dev/null and b/bin.dat differ\n');
  });

  it('diffs a root commit against the empty tree and a commit against its first parent', async () => {
    const root = await diffCommit(repos, P, c1);
    assert.deepEqual(root.diffs.map((d) => [d.new_path, d.new_file]).sort(), [
      ['README.md', true],
      ['gone.txt', true],
      ['moved/old name.txt', true],
      ['src/a.txt', true],
    ]);
    const last = await diffCommit(repos, P, c3);
    assert.deepEqual(last.diffs.map((d) => [d.old_path, d.deleted_file]).sort(), [
      ['bin.dat', true],
      ['moved/new name.txt', true],
      ['run.sh', true],
      ['src/a.txt', true],
    ]);
  });

  it('limits paths, renders unidiff', async () => {
    const { diffs } = await diffCommits(repos, P, { from: c1, to: c2, paths: ['README.md'] });
    assert.equal(diffs.length, 1);
    assert.equal(presentDiff(diffs[0]!, { unidiff: true }).diff, '--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n hello\n+world\n');
    const added = (await diffCommits(repos, P, { from: c1, to: c2, paths: ['run.sh'] })).diffs[0]!;
    assert.match(presentDiff(added, { unidiff: true }).diff, /^--- \/dev\/null\n\+\+\+ b\/run\.sh\n@@/);
  });

  it('applies GitLab limits: too_large patches, collapsed files when not expanded, overflow', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `a fairly long line number ${i} of the big file\n`).join('');
    const base = await commit({ 'big.txt': 'x\n', 'small.txt': 'a\n', 'z.txt': 'z\n' });
    const head = await commit({ 'big.txt': big, 'small.txt': 'b\n', 'z.txt': 'y\n' }, base);
    const expanded = await diffCommits(repos, P, { from: base, to: head, limits: diffLimits({ maxPatchBytes: 100_000 }) });
    const bigDiff = expanded.diffs.find((d) => d.new_path === 'big.txt')!;
    assert.equal(bigDiff.too_large, true);
    assert.equal(bigDiff.diff, '');
    assert.equal(expanded.diffs.find((d) => d.new_path === 'small.txt')!.diff, '@@ -1 +1 @@\n-a\n+b\n');
    // Not expanded: a patch of a tenth of max_patch_bytes or more is collapsed.
    const collapsed = await diffCommits(repos, P, { from: base, to: head, expanded: false, limits: diffLimits({ maxPatchBytes: 1_000_000 }) });
    assert.equal(collapsed.diffs.find((d) => d.new_path === 'big.txt')!.collapsed, true);
    assert.equal(collapsed.diffs.find((d) => d.new_path === 'small.txt')!.collapsed, false);
    // max_lines: the file that crosses it is dropped and the collection overflows.
    const lines = await diffCommits(repos, P, { from: base, to: head, limits: diffLimits({ maxLines: 100, maxPatchBytes: 2_000_000 }) });
    assert.equal(lines.overflow, true);
    assert.deepEqual(lines.diffs.map((d) => d.new_path), []);
    // max_files (the big patch is too_large, so it adds no bytes toward max_bytes = 2 × 5 KiB)
    const files = await diffCommits(repos, P, { from: base, to: head, limits: diffLimits({ maxFiles: 2, maxPatchBytes: 100_000 }) });
    assert.equal(files.overflow, true);
    assert.deepEqual(files.diffs.map((d) => d.new_path), ['big.txt', 'small.txt']);
    // limits: false takes everything.
    const all = await diffCommits(repos, P, { from: base, to: head, limits: false });
    assert.equal(all.overflow, false);
    assert.equal(all.diffs.length, 3);
  });

  it('refuses anything but full object ids', async () => {
    await assert.rejects(diffCommits(repos, P, { from: '--output=/tmp/x', to: c1 }), /full object id/);
    await assert.rejects(diffCommits(repos, P, { from: c1, to: 'HEAD' }), /full object id/);
  });
});
