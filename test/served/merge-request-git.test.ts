/**
 * Merge requests over real git through the built `forgelet serve`: a `git push` to the source
 * branch records a new diff version whose shas and `patch_id_sha` are git's (the patch id is
 * what `git diff --full-index base head | git patch-id --stable` gives on a clone), the
 * mergeability passes through `checking` and `approvals_syncing` to its settled value as
 * GitLab's does, the spec's automation guidance (wait until neither, and a patch id, then
 * approve) works, conflicts are found with `git merge-tree`, and a merge after the target moved
 * on is a real merge commit with both parents on a fresh clone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitOk } from '../support/git-client.js';

const T0 = '2026-11-29T08:00:00.000Z';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge requests over git push`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    let reviewer: { id: number; token: string };
    let url: string;
    let src: string;

    const mrPath = (iid: number, suffix = '') => `/projects/${project.id}/merge_requests/${iid}${suffix}`;
    const commit = async (branch: string, files: Record<string, string>, message: string) => {
      await gitOk(src, ['checkout', '-q', branch]);
      for (const [path, content] of Object.entries(files)) await writeFile(join(src, path), content);
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', message]);
      await gitOk(src, ['push', '-q', url, branch]);
      return (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
    };
    /** The spec's automation guidance, literally: poll until neither checking nor approvals_syncing and a patch id. */
    const settled = async (iid: number, wanted?: (mr: any) => boolean) => {
      const seen: string[] = [];
      for (let i = 0; i < 100; i++) {
        const mr = ok(await f.api('GET', mrPath(iid)));
        const [latest] = ok(await f.api('GET', mrPath(iid, '/versions')));
        if (seen.at(-1) !== mr.detailed_merge_status) seen.push(mr.detailed_merge_status);
        const busy = mr.detailed_merge_status === 'checking' || mr.detailed_merge_status === 'approvals_syncing' || !latest?.patch_id_sha;
        if (!busy && (!wanted || wanted(mr))) return { mr, latest, seen };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`never settled: ${seen.join(' → ')}`);
    };

    /** Polls until the mergeability check ran (merge_status no longer `checking`). */
    const checked = async (iid: number) => {
      for (let i = 0; i < 100; i++) {
        const mr = ok(await f.api('GET', mrPath(iid)));
        if (mr.merge_status !== 'checking') return mr;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the mergeability check never ran');
    };

    before(async () => {
      f = await startServed(dialect, { clock: { now: T0 } });
      work = await mkdtemp(join(tmpdir(), 'forgelet-mr-git-'));
      project = ok(await f.api('POST', '/projects', { body: { name: 'reviewed' } }), 201);
      const user = await f.createUser('mrreviewer');
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: user.id, access_level: 30 } }), 201);
      reviewer = user;
      // One approval from anyone eligible (root, the author, may not approve its own).
      ok(await f.api('POST', `/projects/${project.id}/approval_rules`, { body: { name: 'Any', approvals_required: 1, rule_type: 'any_approver' } }), 201);
      url = `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`;
      src = join(work, 'src');
      await gitOk(work, ['init', '-q', src]);
      await writeFile(join(src, 'app.txt'), 'line 1\nline 2\nline 3\n');
      await gitOk(src, ['add', '.']);
      await gitOk(src, ['commit', '-q', '-m', 'Base']);
      await gitOk(src, ['push', '-q', url, 'main']);
      await gitOk(src, ['branch', 'feature']);
      await gitOk(src, ['branch', 'clash']);
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('a push to the source: a second version with git\'s shas and patch id; checking, approvals_syncing, then approve; a merge commit after the target moved', async () => {
      const base = (await gitOk(src, ['rev-parse', 'main'])).trim();
      const first = await commit('feature', { 'app.txt': 'line 1\nline 2 changed\nline 3\n' }, 'Change line 2');
      const created = ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'feature', target_branch: 'main', title: 'Feature' } }), 201);
      assert.deepEqual([created.merge_status, created.detailed_merge_status, created.sha], ['checking', 'checking', first]);
      const one = await settled(created.iid);
      assert.equal(one.mr.detailed_merge_status, 'not_approved');

      const second = await commit('feature', { 'notes.txt': 'new file\n' }, 'Add notes');
      // The push is processed: the first read starts the mergeability check; approvals were reset.
      const after = ok(await f.api('GET', mrPath(created.iid)));
      assert.deepEqual([after.sha, after.merge_status, after.detailed_merge_status], [second, 'checking', 'checking']);
      // Checked, the approvals stay syncing until the sync job 10 s after the push (the clock is frozen).
      const still = await checked(created.iid);
      assert.deepEqual([still.merge_status, still.detailed_merge_status], ['can_be_merged', 'approvals_syncing']);
      await f.clock.advance(10);
      const two = await settled(created.iid);
      assert.equal(two.mr.detailed_merge_status, 'not_approved');

      const versions = ok(await f.api('GET', mrPath(created.iid, '/versions')));
      assert.deepEqual(
        versions.map((v: any) => [v.head_commit_sha, v.base_commit_sha, v.start_commit_sha, v.state, v.real_size, v.merge_request_id]),
        [[second, base, base, 'collected', '2', created.id], [first, base, base, 'collected', '1', created.id]],
      );
      const clone = join(work, 'clone');
      await gitOk(work, ['clone', '-q', url, clone]);
      await gitOk(clone, ['fetch', '-q', 'origin', 'feature']);
      const diff = spawnSync('git', ['diff', '--full-index', base, second], { cwd: clone });
      const patchId = spawnSync('git', ['patch-id', '--stable'], { cwd: clone, input: diff.stdout }).stdout.toString().split(' ')[0];
      assert.match(patchId!, /^[0-9a-f]{40}$/);
      assert.equal(versions[0].patch_id_sha, patchId);
      assert.deepEqual([two.mr.diff_refs, two.mr.changes_count], [{ base_sha: base, head_sha: second, start_sha: base }, '2']);
      const commits = ok(await f.api('GET', mrPath(created.iid, '/commits')));
      assert.deepEqual(commits.map((c: any) => [c.id, c.title]), [[second, 'Add notes'], [first, 'Change line 2']]);
      const version = ok(await f.api('GET', mrPath(created.iid, `/versions/${versions[1].id}`)));
      assert.deepEqual([version.id, version.head_commit_sha, version.commits.map((c: any) => c.id)], [versions[1].id, first, [first]]);
      assert.deepEqual(version.diffs.map((d: any) => d.new_path), ['app.txt']);

      // /changes, /diffs and /raw_diffs: git diff of base..head.
      const gitDiff = async (path?: string) => gitOk(clone, ['diff', '--full-index', base, second, ...(path ? ['--', path] : [])]);
      const changes = ok(await f.api('GET', mrPath(created.iid, '/changes')));
      assert.deepEqual([changes.changes_count, changes.overflow, changes.sha, changes.changes.map((c: any) => [c.new_path, c.new_file])], ['2', false, second, [['app.txt', false], ['notes.txt', true]]]);
      for (const change of changes.changes) {
        const whole = await gitDiff(change.new_path);
        assert.equal(change.diff, whole.slice(whole.indexOf('@@')), change.new_path);
      }
      const paged = await f.api('GET', mrPath(created.iid, '/diffs?per_page=1&page=2&unidiff=true'));
      assert.deepEqual([paged.status, paged.headers.get('x-total'), paged.body.map((d: any) => d.new_path)], [200, '2', ['notes.txt']]);
      const notes = await gitDiff('notes.txt');
      assert.equal(paged.body[0].diff, `--- /dev/null\n+++ b/notes.txt\n${notes.slice(notes.indexOf('@@'))}`);
      const raw = await f.api('GET', mrPath(created.iid, '/raw_diffs'));
      assert.deepEqual([raw.status, raw.text], [200, await gitDiff()]);
      assert.deepEqual(await f.api('GET', mrPath(created.iid, '/versions/999999')).then((r) => [r.status, r.body]), [404, { message: '404 Not found' }]);

      // The guidance followed: now approve at the head.
      ok(await f.api('POST', mrPath(created.iid, '/approve'), { token: reviewer.token, body: { sha: second } }), 201);

      // The target moves on (another file): mergeability is checked again, the merge is a real merge commit.
      const moved = await commit('main', { 'other.txt': 'main only\n' }, 'Main moves');
      assert.equal(ok(await f.api('GET', mrPath(created.iid))).detailed_merge_status, 'checking');
      assert.equal((await settled(created.iid)).mr.detailed_merge_status, 'mergeable');
      const merged = ok(await f.api('PUT', mrPath(created.iid, '/merge'), { body: { sha: second } }));
      const fresh = join(work, 'fresh');
      await gitOk(work, ['clone', '-q', url, fresh]);
      const [head, parents] = (await gitOk(fresh, ['log', '-1', '--format=%H%n%P', 'main'])).trim().split('\n');
      assert.deepEqual([head, parents!.split(' ')], [merged.merge_commit_sha, [moved, second]]);
      assert.equal((await gitOk(fresh, ['show', 'main:notes.txt'])), 'new file\n');
      assert.equal((await gitOk(fresh, ['show', 'main:other.txt'])), 'main only\n');
    });

    it('a merge pushed with git (GitLab\'s post_merge_manually_merged): the merge request is merged by the pusher, its merge commit the pushed one', async () => {
      await gitOk(src, ['checkout', '-q', 'main']);
      await gitOk(src, ['pull', '-q', '--no-rebase', url, 'main']);
      await gitOk(src, ['checkout', '-q', '-b', 'manual']);
      const head = await commit('manual', { 'manual.txt': 'by hand\n' }, 'Manual change');
      const mr = ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'manual', target_branch: 'main', title: 'Manual' } }), 201);
      await gitOk(src, ['checkout', '-q', 'main']);
      await gitOk(src, ['merge', '-q', '--no-ff', '-m', 'Merge manual by hand', 'manual']);
      const mergeCommit = (await gitOk(src, ['rev-parse', 'HEAD'])).trim();
      await gitOk(src, ['push', '-q', url, 'main']);
      const merged = ok(await f.api('GET', mrPath(mr.iid)));
      assert.deepEqual([merged.state, merged.sha, merged.merge_commit_sha, merged.merged_by?.username], ['merged', head, mergeCommit, 'root']);
      const events = ok(await f.api('GET', mrPath(mr.iid, '/resource_state_events')));
      assert.deepEqual(events.map((e: any) => e.state), ['merged']);
    });

    it('conflicts: both branches change the same line; the check says cannot_be_merged / conflict', async () => {
      await commit('clash', { 'app.txt': 'line 1 clash\nline 2\nline 3\n' }, 'Clash');
      await gitOk(src, ['checkout', '-q', 'main']);
      await gitOk(src, ['pull', '-q', url, 'main']);
      await commit('main', { 'app.txt': 'line 1 main\nline 2 changed\nline 3\n' }, 'Main changes line 1');
      const mr = ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'clash', target_branch: 'main', title: 'Clash' } }), 201);
      assert.equal(mr.detailed_merge_status, 'checking');
      const { mr: checked } = await settled(mr.iid, (m) => m.merge_status !== 'checking');
      assert.deepEqual([checked.merge_status, checked.has_conflicts], ['cannot_be_merged', true]);
      // Approvals are checked first (GitLab EE's order); approved, the conflict shows.
      ok(await f.api('POST', mrPath(mr.iid, '/approve'), { token: reviewer.token }), 201);
      assert.equal(ok(await f.api('GET', mrPath(mr.iid))).detailed_merge_status, 'conflict');
      const refused = await f.api('PUT', mrPath(mr.iid, '/merge'));
      assert.deepEqual([refused.status, refused.body], [422, { message: 'Branch cannot be merged' }]);
    });
  });
}
