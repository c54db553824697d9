/**
 * Upgrade of a data directory made before repositories were git repositories: the fixture
 * (test/fixtures/legacy-repository/data.tar.gz: the SQLite database and secret key) was made
 * by the built `forgelet serve` of main before git storage (28 Nov 2026, 23:57 build) with the
 * calls of make.sh beside it: a README commit, a commit with a body by another author, a
 * feature branch, an annotated and a lightweight tag, a merged merge request, a commit after
 * it, an open merge request and a release. The first start of this version replays it into
 * git (migration 028 and the first-start step); commit ids become git's everywhere.
 * The fixture is a SQLite file, so this runs on SQLite; the replay itself is dialect-neutral
 * and runs on both in test/server/repository-git.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServed, type ServedForgelet } from '../support/served.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'legacy-repository', 'data.tar.gz');
const gitEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C', TZ: 'UTC' };
const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });

describe('sqlite: a data directory from before git storage is upgraded on first start', () => {
  const work = mkdtempSync(join(tmpdir(), 'forgelet-upgrade-'));
  const dataDir = join(work, 'data');
  let f: ServedForgelet;

  before(async () => {
    execFileSync('mkdir', ['-p', dataDir]);
    execFileSync('tar', ['xzf', FIXTURE, '-C', dataDir]);
    f = await startServed('sqlite', { dataDir, rootToken: 'legacy-root-token-0001', testMode: false });
  });
  after(async () => {
    await f?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('commits are replayed with their messages, authors and dates; refs, merge requests and releases name git ids', async () => {
    const repo = join(dataDir, 'repositories', '1.git');
    const log = git(repo, ['log', '--format=%H %P|%an|%ae|%s', '--topo-order', 'main']).trim().split('\n');
    assert.deepEqual(
      log.map((l) => l.split('|').slice(1).join('|')),
      [
        'Administrator|admin@example.com|After merge',
        "Administrator|admin@example.com|Merge branch 'feature' into 'main'",
        'Administrator|admin@example.com|Feature work',
        'Ada|ada@example.com|Add app',
        'Administrator|admin@example.com|Initial commit',
      ],
    );
    const api = await f.api('GET', '/projects/1/repository/commits?ref_name=main&order=topo');
    assert.deepEqual(
      api.body.map((c: any) => c.id),
      log.map((l) => l.split(' ')[0]),
    );
    // Dates kept (to the second), body kept.
    const add = api.body.find((c: any) => c.title === 'Add app');
    assert.equal(git(repo, ['log', '-1', '--format=%aI', add.id]).trim(), add.authored_date.replace('.000', ''));
    assert.equal(git(repo, ['log', '-1', '--format=%B', add.id]).trim(), 'Add app\n\nWith a body.');
    // Each ref head carries exactly the files the old version kept for it.
    assert.equal(git(repo, ['ls-tree', '-r', '--name-only', 'main']).trim(), 'README.md\ndocs/a.md\nsrc/app.js');
    assert.equal(git(repo, ['show', 'main:src/app.js']), 'console.log(2);\n');
    assert.equal(git(repo, ['ls-tree', 'feature', 'run.sh']).split(' ')[0], '100755');
    // An older commit's files are there too (the README, and the file it added).
    assert.equal(git(repo, ['show', `${add.id}:src/app.js`]), 'console.log(1);\n');
    // Tags: annotated stays annotated.
    assert.equal(git(repo, ['cat-file', '-t', 'v1.0']).trim(), 'tag');
    assert.equal(git(repo, ['rev-parse', 'v1.0^{commit}']).trim(), add.id);
    assert.equal(git(repo, ['rev-parse', 'light']).trim(), add.id);
    const tag = await f.api('GET', '/projects/1/repository/tags/v1.0');
    assert.equal(tag.body.commit.id, add.id);
    assert.equal(tag.body.message, 'First release');
    // Merge requests and releases name the new ids.
    const merged = await f.api('GET', '/projects/1/merge_requests/1');
    assert.equal(merged.body.merge_commit_sha, log[1]!.split(' ')[0]);
    const open = await f.api('GET', '/projects/1/merge_requests/2');
    assert.equal(open.body.sha, git(repo, ['rev-parse', 'feature']).trim());
    const release = await f.api('GET', '/projects/1/releases/v1.0');
    assert.equal(release.body.commit.id, add.id);
    assert.equal(git(repo, ['fsck', '--no-dangling']).trim(), '');

    // Writes continue on top, and the git client clones it.
    const next = await f.api('POST', '/projects/1/repository/commits', { body: { branch: 'main', commit_message: 'Upgraded', actions: [{ action: 'create', file_path: 'new.txt', content: 'new\n' }] } });
    assert.equal(next.status, 201);
    assert.equal(git(repo, ['rev-parse', 'main^']).trim(), log[0]!.split(' ')[0]);
    const clone = join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', `file://${repo}`, clone], { env: gitEnv });
    assert.equal(git(clone, ['rev-parse', 'HEAD']).trim(), next.body.id);
  });
});
