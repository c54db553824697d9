import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createProject, expectStatus } from './http.js';

const T0 = '2026-04-03T12:00:00.000Z';
const errorsOnly = { info: () => {}, error: (line: string, err?: unknown) => console.error(line, err) };
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C', TZ: 'UTC', GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 'tester@example.com', GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 'tester@example.com' };

/** `git <args>` in `dir`, its output as text. */
function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env: gitEnv, input, encoding: 'utf8' });
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: repositories are git repositories`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let project: any;
    let repo: string;
    const work = mkdtempSync(join(tmpdir(), 'forgelet-git-test-'));

    const commit = async (body: Record<string, unknown>, id = project.id) => {
      const r = await f.api('POST', `/projects/${id}/repository/commits`, { body });
      expectStatus(r, 201);
      return r.body;
    };

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, logger: errorsOnly });
      project = await createProject(f, f.rootToken, { name: 'Gitty', path: 'gitty' });
      repo = f.forge.deps.git.dir(project.id);
    });
    after(async () => {
      await f.stop();
      rmSync(work, { recursive: true, force: true });
    });

    it('commits, branches, tags, merges and squashes are real git objects that git log and cat-file show', async () => {
      const first = await commit({
        branch: 'main',
        commit_message: 'Start\n\nThe body.',
        actions: [
          { action: 'create', file_path: 'a.txt', content: 'one\ntwo\n' },
          { action: 'create', file_path: 'dir/run.sh', content: '#!/bin/sh\n', execute_filemode: true },
          { action: 'create', file_path: 'bin.dat', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
        ],
      });
      assert.equal(git(repo, ['rev-parse', 'refs/heads/main']).trim(), first.id);
      assert.equal(git(repo, ['log', '-1', '--format=%an|%ae|%aI|%B', 'main']).trim(), `Administrator|${first.author_email}|2026-04-03T12:00:00+00:00|Start\n\nThe body.`);
      assert.equal(git(repo, ['ls-tree', '-r', 'main']), [
        `100644 blob ${git(repo, ['hash-object', '--stdin'], 'one\ntwo\n').trim()}\ta.txt`,
        `100644 blob ${execFileSync('git', ['hash-object', '--stdin'], { input: Buffer.from([0, 1, 2, 255]), env: gitEnv, encoding: 'utf8' }).trim()}\tbin.dat`,
        `100755 blob ${git(repo, ['hash-object', '--stdin'], '#!/bin/sh\n').trim()}\tdir/run.sh`,
        '',
      ].join('\n'));
      // The database's commit id is git's; HEAD names the default branch.
      assert.equal(git(repo, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');

      clock.advance(60_000);
      const second = await commit({
        branch: 'feature',
        start_branch: 'main',
        commit_message: 'Change things',
        actions: [
          { action: 'update', file_path: 'a.txt', content: 'one\nTWO\n' },
          { action: 'move', file_path: 'moved/b.dat', previous_path: 'bin.dat' },
          { action: 'chmod', file_path: 'dir/run.sh', execute_filemode: false },
        ],
      });
      assert.deepEqual(git(repo, ['rev-list', '--parents', '-1', 'feature']).trim().split(' '), [second.id, first.id]);
      assert.equal(git(repo, ['show', 'feature:a.txt']), 'one\nTWO\n');
      assert.equal(git(repo, ['diff-tree', '-r', '--name-status', '-M', 'feature']).trim(), `${second.id}\nM\ta.txt\nM\tdir/run.sh\nR100\tbin.dat\tmoved/b.dat`);
      // An older commit's file is still in git.
      assert.equal(git(repo, ['show', `${first.id}:a.txt`]), 'one\ntwo\n');

      // Tags: lightweight and annotated (a tag object).
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } }), 201);
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v2', ref: 'feature', message: 'Second release' } }), 201);
      assert.equal(git(repo, ['cat-file', '-t', 'refs/tags/v1']).trim(), 'commit');
      assert.equal(git(repo, ['cat-file', '-t', 'refs/tags/v2']).trim(), 'tag');
      assert.equal(git(repo, ['rev-parse', 'v2^{commit}']).trim(), second.id);
      assert.match(git(repo, ['cat-file', 'tag', 'v2']), /\ntag v2\ntagger Administrator <[^>]+> \d+ \+0000\n\nSecond release\n$/);

      // Branch create and delete move refs.
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'tmp', ref: 'feature' } }), 201);
      assert.equal(git(repo, ['rev-parse', 'tmp']).trim(), second.id);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/branches/tmp`), 204);
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/tags/v1`), 204);
      assert.equal(git(repo, ['for-each-ref', '--format=%(refname)']).trim(), 'refs/heads/feature\nrefs/heads/main\nrefs/tags/v2');

      // A squash merge: the squash commit (tree of the source head) is the merge commit's second parent.
      const mr = await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'feature', target_branch: 'main', title: 'Feature', squash: true } });
      expectStatus(mr, 201);
      const merged = await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { body: { squash: true } });
      expectStatus(merged, 200);
      const [mergeSha, p1, p2] = git(repo, ['rev-list', '--parents', '-1', 'main']).trim().split(' ');
      assert.equal(mergeSha, merged.body.merge_commit_sha);
      assert.equal(p1, first.id);
      assert.equal(p2, merged.body.squash_commit_sha);
      assert.equal(git(repo, ['rev-parse', `${p2}^{tree}`]).trim(), git(repo, ['rev-parse', `${second.id}^{tree}`]).trim());
      assert.equal(git(repo, ['rev-parse', `${p2}^`]).trim(), first.id);
      assert.equal(git(repo, ['show', 'main:a.txt']), 'one\nTWO\n');
      assert.equal(git(repo, ['fsck', '--no-dangling']).trim(), '');

      // What the API wrote can be cloned with the git client.
      const clone = join(work, 'clone');
      execFileSync('git', ['clone', '--quiet', `file://${repo}`, clone], { env: gitEnv });
      assert.equal(git(clone, ['rev-parse', 'HEAD']).trim(), mergeSha);
      assert.equal(git(clone, ['log', '--format=%s']).trim().split('\n')[0], "Merge branch 'feature' into 'main'");
    });

    it('a failed write moves no ref; a stale head is refused by compare-and-swap', async () => {
      const head = git(repo, ['rev-parse', 'main']).trim();
      const bad = await f.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'x', actions: [{ action: 'update', file_path: 'nope.txt', content: 'x' }] },
      });
      expectStatus(bad, 400);
      assert.equal(git(repo, ['rev-parse', 'main']).trim(), head);
      // Someone moved the ref behind the database's back: the next write fails and changes nothing.
      const other = git(repo, ['commit-tree', '-m', 'outside', `${head}^{tree}`], '').trim();
      git(repo, ['update-ref', 'refs/heads/main', other, head]);
      const stale = await f.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'y', actions: [{ action: 'create', file_path: 'y.txt', content: 'y' }] },
      });
      expectStatus(stale, 409);
      assert.equal(git(repo, ['rev-parse', 'main']).trim(), other);
      // Reads come from git, which holds the outside commit.
      const list = await f.api('GET', `/projects/${project.id}/repository/commits?ref_name=main&per_page=1`);
      assert.equal(list.body[0].id, other);
      git(repo, ['update-ref', 'refs/heads/main', head, other]);
    });

    it('applyPushedRefUpdates: refs moved in git (a push) reach the database, its files and the push hooks', async () => {
      const { applyPushedRefUpdates } = await import('@forgelet/core');
      const clone = join(work, 'push');
      execFileSync('git', ['clone', '--quiet', `file://${repo}`, clone], { env: gitEnv });
      const author = { ...gitEnv, GIT_AUTHOR_NAME: 'Pusher', GIT_AUTHOR_EMAIL: 'pusher@example.com', GIT_COMMITTER_NAME: 'Pusher', GIT_COMMITTER_EMAIL: 'pusher@example.com', GIT_AUTHOR_DATE: '1775300000 +0000', GIT_COMMITTER_DATE: '1775300000 +0000' };
      const before = git(clone, ['rev-parse', 'HEAD']).trim();
      writeFileSync(join(clone, 'pushed.txt'), 'pushed\n');
      execFileSync('git', ['add', 'pushed.txt'], { cwd: clone, env: author });
      execFileSync('git', ['commit', '--quiet', '-m', 'Pushed one'], { cwd: clone, env: author });
      execFileSync('git', ['mv', 'a.txt', 'b.txt'], { cwd: clone, env: author });
      execFileSync('git', ['commit', '--quiet', '-m', 'Pushed two\n\nbody'], { cwd: clone, env: author });
      execFileSync('git', ['tag', '-a', 'v3', '-m', 'Three'], { cwd: clone, env: author });
      execFileSync('git', ['push', '--quiet', 'origin', 'main', 'HEAD:refs/heads/pushed', 'v3', ':refs/tags/v2'], { cwd: clone, env: author });
      const after = git(repo, ['rev-parse', 'main']).trim();
      const tagObject = git(repo, ['rev-parse', 'v3']).trim();
      const ctx = await f.forge.contextFor('root');
      const row = await f.forge.deps.db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow();
      await applyPushedRefUpdates(ctx, row, [
        { kind: 'branch', name: 'main', before, after },
        { kind: 'branch', name: 'pushed', before: null, after },
        { kind: 'tag', name: 'v3', before: null, after: tagObject },
        { kind: 'tag', name: 'v2', before: git(clone, ['rev-parse', 'v3']).trim(), after: null },
      ]);
      const commits = await f.api('GET', `/projects/${project.id}/repository/commits?ref_name=main&per_page=2`);
      assert.deepEqual(commits.body.map((c: any) => [c.id, c.title, c.author_name, c.authored_date]), [
        [after, 'Pushed two', 'Pusher', '2026-04-04T10:53:20.000+00:00'],
        [git(repo, ['rev-parse', 'main^']).trim(), 'Pushed one', 'Pusher', '2026-04-04T10:53:20.000+00:00'],
      ]);
      const one = await f.api('GET', `/projects/${project.id}/repository/commits/${after}?stats=true`);
      assert.deepEqual(one.body.stats, { additions: 0, deletions: 0, total: 0 });
      const file = await f.api('GET', `/projects/${project.id}/repository/files/b.txt/raw?ref=pushed`);
      assert.equal(file.text, 'one\nTWO\n');
      expectStatus(await f.api('GET', `/projects/${project.id}/repository/files/a.txt?ref=main`), 404);
      const tag = await f.api('GET', `/projects/${project.id}/repository/tags/v3`);
      assert.equal(tag.body.commit.id, after);
      assert.equal(tag.body.message, 'Three');
      expectStatus(await f.api('GET', `/projects/${project.id}/repository/tags/v2`), 404);
      const branch = await f.api('GET', `/projects/${project.id}/repository/branches/pushed`);
      assert.equal(branch.body.commit.id, after);
      // A write through the API continues from the pushed head.
      const next = await commit({ branch: 'main', commit_message: 'After the push', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] });
      assert.equal(git(repo, ['rev-parse', 'main^']).trim(), after);
      assert.equal(git(repo, ['rev-parse', 'main']).trim(), next.id);
    });
    it('replay (the upgrade step): a repository rebuilt from the tables alone keeps messages, parents and head files; ids are remapped', async () => {
      const { replayPendingRepositories } = await import('@forgelet/core');
      const db = f.forge.deps.db;
      const mr = await db.selectFrom('merge_requests').select(['merge_commit_sha']).where('project_id', '=', project.id).executeTakeFirstOrThrow();
      const mainFiles = git(repo, ['ls-tree', '-r', 'main']);
      const messages = git(repo, ['log', '--format=%s|%an', '--topo-order', 'main']);
      rmSync(repo, { recursive: true, force: true });
      f.forge.deps.git.forget();
      await db.insertInto('repository_replays').values({ project_id: project.id, created_at: T0 }).execute();
      assert.equal(await replayPendingRepositories(f.forge.deps), 1);
      assert.equal(git(repo, ['ls-tree', '-r', 'main']), mainFiles);
      assert.equal(git(repo, ['log', '--format=%s|%an', '--topo-order', 'main']), messages);
      const list = await f.api('GET', `/projects/${project.id}/repository/commits?ref_name=main&per_page=100`);
      assert.deepEqual(list.body.map((c: any) => c.id).sort(), git(repo, ['rev-list', 'main']).trim().split('\n').sort());
      const after = await db.selectFrom('merge_requests').select(['merge_commit_sha']).where('project_id', '=', project.id).executeTakeFirstOrThrow();
      assert.equal(git(repo, ['cat-file', '-t', after.merge_commit_sha!]).trim(), 'commit');
      assert.ok(mr.merge_commit_sha);
      assert.equal((await db.selectFrom('repository_replays').selectAll().execute()).length, 0);
      assert.equal(git(repo, ['fsck', '--no-dangling']).trim(), '');
    });

    it("git's HEAD follows the default branch; deleting a project or its group removes its repository", async () => {
      const p = await createProject(f, f.rootToken, { name: 'Heady', path: 'heady' });
      const dir = f.forge.deps.git.dir(p.id);
      await commit({ branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'x', content: 'x' }] }, p.id);
      expectStatus(await f.api('POST', `/projects/${p.id}/repository/branches`, { body: { branch: 'trunk', ref: 'main' } }), 201);
      assert.equal(git(dir, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/main');
      expectStatus(await f.api('PUT', `/projects/${p.id}`, { body: { default_branch: 'trunk' } }), 200);
      assert.equal(git(dir, ['symbolic-ref', 'HEAD']).trim(), 'refs/heads/trunk');
      expectStatus(await f.api('DELETE', `/projects/${p.id}`), 202);
      assert.equal(await f.forge.deps.git.exists(p.id), false);
      const g = await f.api('POST', '/groups', { body: { name: 'Gone', path: 'gone' } });
      expectStatus(g, 201);
      const inGroup = await createProject(f, f.rootToken, { name: 'Inside', path: 'inside', namespace_id: g.body.id });
      await commit({ branch: 'main', commit_message: 'one', actions: [{ action: 'create', file_path: 'x', content: 'x' }] }, inGroup.id);
      assert.equal(await f.forge.deps.git.exists(inGroup.id), true);
      expectStatus(await f.api('DELETE', `/groups/${g.body.id}`), 202);
      assert.equal(await f.forge.deps.git.exists(inGroup.id), false);
    });
  });
}
