import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { text } from 'node:stream/consumers';
import { GitCommandError, GitRepositories } from '@forgelet/core';
import { blobStream } from '../../packages/core/src/storage/git-read.js';

describe('GitRepositories (storage/git.ts)', () => {
  it('creates a bare repository per project on first use, runs git in it, removes it', async () => {
    const repos = new GitRepositories();
    try {
      assert.equal(await repos.exists(7), false);
      const dir = await repos.ensure(7, 'trunk');
      assert.equal(dir, repos.dir(7));
      assert.equal(await repos.exists(7), true);
      assert.equal(await repos.ensure(7), dir, 'a second ensure keeps the repository');
      assert.equal((await repos.run(7, ['rev-parse', '--is-bare-repository'])).stdout.toString().trim(), 'true');
      assert.equal((await repos.run(7, ['symbolic-ref', 'HEAD'])).stdout.toString().trim(), 'refs/heads/trunk');
      // Input on stdin, output collected: the object id is git's.
      const blob = await repos.run(7, ['hash-object', '-w', '--stdin'], { input: 'hello\n' });
      assert.equal(blob.stdout.toString().trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');
      // A failing command rejects with its exit code and stderr; okCodes turn codes into answers.
      await assert.rejects(repos.run(7, ['cat-file', '-e', '0'.repeat(40)]), (err: unknown) => err instanceof GitCommandError && err.code === 1);
      assert.equal((await repos.run(7, ['cat-file', '-e', '0'.repeat(40)], { okCodes: [0, 1] })).code, 1);
      await repos.remove(7);
      assert.equal(await repos.exists(7), false);
    } finally {
      await repos.close();
    }
    assert.equal(existsSync(repos.root), false, 'a temporary root is removed at close');
  });

  it('refuses an id that is not a project id', () => {
    const repos = new GitRepositories('/nonexistent-root');
    assert.throws(() => repos.dir(0));
    assert.throws(() => repos.dir(1.5));
    assert.equal(repos.dir(12), '/nonexistent-root/12.git');
  });

  it('a blob stream keeps its bytes when git exits before anyone reads it, and breaks when git fails', async () => {
    const repos = new GitRepositories();
    try {
      await repos.ensure(3);
      const sha = (await repos.run(3, ['hash-object', '-w', '--stdin'], { input: 'hello\n' })).stdout.toString().trim();
      // An answer is piped a few database round trips after the stream is made: by then the
      // process has exited (Node then resumes an output nobody reads, and used to drop it).
      const stream = blobStream(repos, 3, sha);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(await text(stream), 'hello\n');
      const missing = blobStream(repos, 3, '0'.repeat(40));
      missing.resume();
      const [err] = await once(missing, 'error');
      assert.match((err as Error).message, /git cat-file blob exited 128/);
    } finally {
      await repos.close();
    }
  });
});
