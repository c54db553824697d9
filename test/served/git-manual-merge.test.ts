/**
 * Merge requests merged by a `git push` of their target branch (GitLab's RefreshService
 * post_merge_manually_merged), through the built `forgelet serve` and Debian's git: a merge
 * commit pushed, a fast-forward pushed, and a merge request whose head did not arrive.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

const AS_DEV = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com'];

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge requests merged by a push`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    let dev: { id: number; username: string; token: string };
    let dir: string;

    const branchWithCommit = async (branch: string, file: string) =>
      ok(
        await f.api('POST', `/projects/${project.id}/repository/commits`, {
          body: { branch, start_branch: 'main', commit_message: `Add ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }] },
        }),
        201,
      );
    const openMr = async (source: string, description = '') =>
      ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: source, target_branch: 'main', title: `Merge ${source}`, description } }), 201);
    const mrOf = async (iid: number) => ok(await f.api('GET', `/projects/${project.id}/merge_requests/${iid}`));

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2031-04-01T10:00:00Z' } });
      work = await mkdtemp(join(tmpdir(), 'forgelet-manual-merge-'));
      project = ok(await f.api('POST', '/projects', { body: { name: 'app', initialize_with_readme: true } }), 201);
      dev = await f.createUser(`merger-${dialect}`, { scopes: ['api', 'write_repository'] });
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 40 } }), 201);
      const host = new URL(f.url).host;
      dir = join(work, 'app');
      await gitOk(work, ['clone', '-q', `http://${dev.username}:${dev.token}@${host}/${project.path_with_namespace}.git`, 'app']);
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('a pushed merge commit merges the merge request, by the pusher, and what it closes closes', async () => {
      const issue = ok(await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'to close' } }), 201);
      const head = (await branchWithCommit('feature', 'feature.txt')).id;
      const mr = await openMr('feature', `Closes #${issue.iid}`);
      await branchWithCommit('later', 'later.txt');
      const waiting = await openMr('later');
      await gitOk(dir, ['fetch', '-q', 'origin']);
      await gitOk(dir, ['checkout', '-q', 'main']);
      await gitOk(dir, ['reset', '-q', '--hard', 'origin/main']);
      await gitOk(dir, [...AS_DEV, 'merge', '-q', '--no-ff', '-m', 'Merge feature by hand', 'origin/feature']);
      const mergeCommit = (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
      const pushed = await git(dir, ['push', 'origin', 'main']);
      assert.equal(pushed.code, 0, pushed.stderr);

      const merged = await mrOf(mr.iid);
      assert.equal(merged.state, 'merged');
      assert.equal(merged.merge_commit_sha, mergeCommit);
      assert.equal(merged.sha, head);
      assert.equal(merged.merged_by.id, dev.id);
      assert.ok(merged.merged_at);
      const events = ok(await f.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/resource_state_events`)) as any[];
      assert.deepEqual(events.map((e) => e.state), ['merged']);
      assert.equal((await mrOf(waiting.iid)).state, 'opened', 'its head is not on main');

      await f.runDue();
      const closed = ok(await f.api('GET', `/projects/${project.id}/issues/${issue.iid}`));
      assert.equal(closed.state, 'closed');
      const [closing] = ok(await f.api('GET', `/projects/${project.id}/issues/${issue.iid}/resource_state_events`)) as any[];
      assert.equal(closing.source_merge_request_id, mr.id);
    });

    it('a fast-forward push merges with the head as the merge commit', async () => {
      // quick starts from main as it is now (with the merge above): main can fast-forward to it.
      const head = (await branchWithCommit('quick', 'quick.txt')).id;
      const mr = await openMr('quick');
      await gitOk(dir, ['fetch', '-q', 'origin']);
      const pushed = await git(dir, ['push', 'origin', 'origin/quick:refs/heads/main']);
      assert.equal(pushed.code, 0, pushed.stderr);
      const merged = await mrOf(mr.iid);
      assert.equal(merged.state, 'merged');
      assert.equal(merged.merge_commit_sha, head);
    });
  });
}
