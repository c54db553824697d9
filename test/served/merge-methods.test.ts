/**
 * Merge methods, rebases and the merge requests of a commit, through the built `forgelet serve`,
 * real `git push`es and the client SDK: a project's `merge_method` (validated, shown); under
 * `ff` a merge request whose source lacks the target head is `need_rebase` and its merge
 * answers 422 as GitLab's; `PUT …/rebase` (202) queues a rebase that replays the source onto
 * the target head (authors kept, a new diff version), after which the merge fast-forwards the
 * target with no merge commit; a conflicting rebase leaves GitLab's `merge_error`;
 * `rebase_merge` with squash writes a squash and a merge commit; a force push of the target
 * that moves the merge base records a diff version; merge request webhooks carry the real
 * `merge_status` and `detailed_merge_status`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';
import { hookReceiver, type HookReceiver } from '../server/webhooks-support.js';

const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

async function refused(promise: Promise<unknown>): Promise<{ status: number; body: unknown }> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, body: err.body };
    throw err;
  }
  assert.fail('expected a refusal');
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge methods and rebases over git push`, () => {
    let f: ServedForgelet;
    let client: Forgelet;
    let work: string;
    let rx: HookReceiver;

    /** A project with `main` pushed from a local clone; returns the clone's helpers. */
    const repo = async (name: string, settings: Record<string, unknown> = {}) => {
      const project = await client.projects.create({ name, ...settings });
      const url = `${f.url.replace('://', `://root:${f.rootToken}@`)}/${project.path_with_namespace}.git`;
      const dir = join(work, name);
      await gitOk(work, ['init', '-q', dir]);
      const commit = async (branch: string, files: Record<string, string>, message: string, options: { push?: boolean } = {}) => {
        await gitOk(dir, ['checkout', '-q', branch]);
        for (const [path, content] of Object.entries(files)) await writeFile(join(dir, path), content);
        await gitOk(dir, ['add', '.']);
        await gitOk(dir, ['commit', '-q', '-m', message]);
        if (options.push !== false) await gitOk(dir, ['push', '-q', url, branch]);
        return (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
      };
      await writeFile(join(dir, 'app.txt'), 'line 1\nline 2\nline 3\n');
      await gitOk(dir, ['add', '.']);
      await gitOk(dir, ['commit', '-q', '-m', 'Base']);
      await gitOk(dir, ['push', '-q', url, 'main']);
      const branch = async (name: string, from = 'main') => gitOk(dir, ['branch', '-f', name, from]);
      const fresh = async () => {
        const clone = await mkdtemp(join(work, `${name}-clone-`));
        await gitOk(work, ['clone', '-q', url, clone]);
        return clone;
      };
      return { project, url, dir, commit, branch, fresh };
    };
    /** The merge request once its mergeability check ran. */
    const checked = (projectId: number, iid: number) =>
      until('the mergeability check', async () => {
        const mr = await client.mergeRequests.show(projectId, iid);
        return mr.merge_status !== 'checking' && mr.detailed_merge_status !== 'checking' && mr.detailed_merge_status !== 'unchecked' && mr;
      });
    const rebased = (projectId: number, iid: number) =>
      until('the rebase', async () => {
        const mr = await client.mergeRequests.show(projectId, iid, { include_rebase_in_progress: true });
        return mr.rebase_in_progress === false && mr;
      });

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2031-05-01T10:00:00.000Z' } });
      client = new Forgelet({ url: f.url, token: f.rootToken });
      work = await mkdtemp(join(tmpdir(), 'forgelet-merge-methods-'));
      rx = await hookReceiver();
    });
    after(async () => {
      if (process.env.SHOW_STDERR) console.log(f?.stderr());
      await f?.stop();
      await rx?.close();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('merge_method: merge by default, set on create and update, validated naming the field', async () => {
      const plain = await client.projects.create({ name: 'plain' });
      assert.equal(plain.merge_method, 'merge');
      const ff = await client.projects.create({ name: 'fast', merge_method: 'ff' });
      assert.equal(ff.merge_method, 'ff');
      assert.equal((await client.projects.show(ff.id)).merge_method, 'ff');
      assert.equal((await client.projects.edit(ff.id, { merge_method: 'rebase_merge' })).merge_method, 'rebase_merge');
      const bad = await f.api('POST', '/projects', { body: { name: 'bad', merge_method: 'squash' } });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'merge_method does not have a valid value' }]);
      const badEdit = await f.api('PUT', `/projects/${ff.id}`, { body: { merge_method: 'fast_forward' } });
      assert.deepEqual([badEdit.status, badEdit.body], [400, { error: 'merge_method does not have a valid value' }]);
      assert.equal((await client.projects.show(ff.id)).merge_method, 'rebase_merge');
    });

    it('ff: need_rebase and 422 until rebased; the rebase replays the commits onto the target; the merge fast-forwards without a merge commit', async () => {
      const r = await repo('ffapp', { merge_method: 'ff' });
      ok(await f.api('POST', `/projects/${r.project.id}/hooks`, { body: { url: `${rx.url}/ff`, merge_requests_events: true, note_events: true, push_events: false } }), 201);
      await r.branch('feature');
      const first = await r.commit('feature', { 'feature.txt': 'one\n' }, 'Feature one');
      const second = await r.commit('feature', { 'feature.txt': 'one\ntwo\n' }, 'Feature two');
      const mr = await client.mergeRequests.create(r.project.id, { source_branch: 'feature', target_branch: 'main', title: 'Feature' });
      assert.equal((await checked(r.project.id, mr.iid)).detailed_merge_status, 'mergeable', 'the source contains the target head');
      const moved = await r.commit('main', { 'main.txt': 'main moves\n' }, 'Main moves');
      const behind = await checked(r.project.id, mr.iid);
      assert.deepEqual([behind.merge_status, behind.detailed_merge_status, behind.sha], ['can_be_merged', 'need_rebase', second]);
      // A comment's event carries the merge request as it stands: need_rebase.
      await client.mergeRequestNotes.create(r.project.id, mr.iid, 'Please rebase');
      const noted = await until('the note event', async () => rx.deliveries.find((d) => d.path === '/ff' && d.body.object_kind === 'note'));
      assert.deepEqual([noted.body.merge_request.merge_status, noted.body.merge_request.detailed_merge_status], ['can_be_merged', 'need_rebase']);
      assert.deepEqual(await refused(client.mergeRequests.merge(r.project.id, mr.iid)), { status: 422, body: { message: 'Branch cannot be merged' } });
      const versions = (await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray()).length;

      assert.deepEqual(await client.mergeRequests.rebase(r.project.id, mr.iid, { skip_ci: true }), { rebase_in_progress: true });
      const after = await rebased(r.project.id, mr.iid);
      assert.equal(after.merge_error, null);
      assert.notEqual(after.sha, second, `the source moved (merge_error ${after.merge_error}, versions ${JSON.stringify(await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray())})`);
      const clone = await r.fresh();
      await gitOk(clone, ['fetch', '-q', 'origin', 'feature']);
      const log = (await gitOk(clone, ['log', '--format=%H|%P|%an|%s', 'origin/main..origin/feature'])).trim().split('\n').map((l) => l.split('|'));
      assert.deepEqual(log.map(([, , author, subject]) => [author, subject]), [['Tester', 'Feature two'], ['Tester', 'Feature one']]);
      assert.equal(log[0]![0], after.sha);
      assert.equal(log[1]![1], moved, 'replayed onto the target head');
      assert.equal(await gitOk(clone, ['show', 'origin/feature:feature.txt']), 'one\ntwo\n');
      assert.equal(await gitOk(clone, ['show', 'origin/feature:main.txt']), 'main moves\n');
      const now = await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray();
      assert.equal(now.length, versions + 1, 'the rebase is a new diff version');
      assert.deepEqual([now[0]!.head_commit_sha, now[0]!.base_commit_sha, now[0]!.start_commit_sha], [after.sha, moved, moved]);
      assert.equal((await checked(r.project.id, mr.iid)).detailed_merge_status, 'mergeable');

      // The merge requests of a commit: the rebased head and the first commit (in the newest version), not the replaced ones.
      const ofHead = await client.commits.allMergeRequests(r.project.id, after.sha!).toArray();
      assert.deepEqual(ofHead.map((m) => [m.iid, m.state]), [[mr.iid, 'opened']]);
      assert.deepEqual(await client.commits.allMergeRequests(r.project.id, first).toArray(), []);
      assert.deepEqual(await client.commits.allMergeRequests(r.project.id, after.sha!, { state: 'merged' }).toArray(), []);
      // Bad input: 400 naming the field; a commit the project lacks, 404.
      const badIid = await f.api('PUT', `/projects/${r.project.id}/merge_requests/abc/rebase`);
      assert.deepEqual([badIid.status, badIid.body], [400, { error: 'merge_request_iid is invalid' }]);
      const unknown = await f.api('GET', `/projects/${r.project.id}/repository/commits/${'0'.repeat(40)}/merge_requests`);
      assert.deepEqual([unknown.status, unknown.body], [404, { message: '404 Commit Not Found' }]);
      const badPage = await f.api('GET', `/projects/${r.project.id}/repository/commits/main/merge_requests?per_page=0`);
      assert.equal(badPage.status, 400);
      assert.match(badPage.text, /per_page/);

      const merged = await client.mergeRequests.merge(r.project.id, mr.iid, { sha: after.sha! });
      assert.deepEqual([merged.state, merged.merge_commit_sha, merged.squash_commit_sha], ['merged', null, null]);
      const end = await r.fresh();
      assert.equal((await gitOk(end, ['rev-parse', 'origin/main'])).trim(), after.sha, 'main fast-forwarded to the head');
      assert.deepEqual((await client.commits.allMergeRequests(r.project.id, 'main', { state: 'merged' }).toArray()).map((m) => m.iid), [mr.iid]);

      // Its webhooks carried the real statuses: opened unchecked, merged as merged leaves it.
      await until('merge request events', async () => rx.deliveries.filter((d) => d.path === '/ff' && d.body.object_kind === 'merge_request').length >= 2);
      const events = rx.deliveries.filter((d) => d.path === '/ff' && d.body.object_kind === 'merge_request').map((d) => d.body.object_attributes);
      const open = events.find((e) => e.action === 'open');
      const merge = events.find((e) => e.action === 'merge');
      assert.deepEqual([open.merge_status, open.detailed_merge_status], ['unchecked', 'unchecked']);
      assert.deepEqual([merge.merge_status, merge.detailed_merge_status, merge.merge_commit_sha], ['can_be_merged', 'not_open', null]);
    });

    it('rebase: a conflict leaves merge_error; who may not push gets 403 naming why; a closed one 409', async () => {
      const r = await repo('clashing', { merge_method: 'ff' });
      await r.branch('clash');
      const head = await r.commit('clash', { 'app.txt': 'line 1 clash\nline 2\nline 3\n' }, 'Clash');
      await r.commit('main', { 'app.txt': 'line 1 main\nline 2\nline 3\n' }, 'Main');
      const mr = await client.mergeRequests.create(r.project.id, { source_branch: 'clash', target_branch: 'main', title: 'Clash' });
      const reporter = await f.createUser(`reporter-${dialect}`);
      await client.projectMembers.add(r.project.id, { user_id: reporter.id, access_level: 20 });
      const asReporter = new Forgelet({ url: f.url, token: reporter.token });
      assert.deepEqual(await refused(asReporter.mergeRequests.rebase(r.project.id, mr.iid)), { status: 403, body: { message: '403 Forbidden - Cannot push to source branch' } });

      assert.deepEqual(await client.mergeRequests.rebase(r.project.id, mr.iid), { rebase_in_progress: true });
      const failed = await rebased(r.project.id, mr.iid);
      assert.deepEqual([failed.merge_error, failed.sha], [REBASE_ERROR, head]);
      const clone = await r.fresh();
      assert.equal((await gitOk(clone, ['rev-parse', 'origin/clash'])).trim(), head, 'the branch did not move');

      // A push to the source clears the error (GitLab's RefreshService).
      await r.commit('clash', { 'other.txt': 'x\n' }, 'More');
      assert.equal((await client.mergeRequests.show(r.project.id, mr.iid)).merge_error, null);

      await client.mergeRequests.edit(r.project.id, mr.iid, { state_event: 'close' });
      assert.deepEqual(await refused(client.mergeRequests.rebase(r.project.id, mr.iid)), { status: 409, body: { message: '409 Conflict: Resource lock' } });
      await r.branch('gone');
      await r.commit('gone', { 'gone.txt': 'g\n' }, 'Gone');
      const orphan = await client.mergeRequests.create(r.project.id, { source_branch: 'gone', target_branch: 'main', title: 'Gone' });
      await gitOk(r.dir, ['push', '-q', r.url, ':gone']);
      assert.deepEqual(await refused(client.mergeRequests.rebase(r.project.id, orphan.iid)), { status: 403, body: { message: '403 Forbidden - Source branch does not exist' } });
    });

    it('rebase_merge with squash: a squash commit on the target head and a merge commit; ff with squash moves the target to the squash commit', async () => {
      const r = await repo('rebasemerge', { merge_method: 'rebase_merge' });
      await r.branch('topic');
      await r.commit('topic', { 't.txt': '1\n' }, 'T1');
      const head = await r.commit('topic', { 't.txt': '1\n2\n' }, 'T2');
      const mr = await client.mergeRequests.create(r.project.id, { source_branch: 'topic', target_branch: 'main', title: 'Topic' });
      const main = await r.commit('main', { 'm.txt': 'm\n' }, 'M');
      assert.equal((await checked(r.project.id, mr.iid)).detailed_merge_status, 'need_rebase');
      assert.equal((await refused(client.mergeRequests.merge(r.project.id, mr.iid, { sha: head }))).status, 422);
      await client.mergeRequests.rebase(r.project.id, mr.iid);
      const after = await rebased(r.project.id, mr.iid);
      assert.equal(after.merge_error, null);
      await checked(r.project.id, mr.iid);
      const merged = await client.mergeRequests.merge(r.project.id, mr.iid, { squash: true, squash_commit_message: 'Topic squashed' });
      assert.ok(merged.merge_commit_sha && merged.squash_commit_sha);
      const clone = await r.fresh();
      const [mergeSha, parents] = (await gitOk(clone, ['log', '-1', '--format=%H%n%P', 'origin/main'])).trim().split('\n');
      assert.deepEqual([mergeSha, parents!.split(' ')], [merged.merge_commit_sha, [main, merged.squash_commit_sha]]);
      assert.deepEqual((await gitOk(clone, ['log', '-1', '--format=%P%n%s', merged.squash_commit_sha!])).trim().split('\n'), [main, 'Topic squashed']);
      assert.notEqual(after.sha, head);
      const byMerge = await client.commits.allMergeRequests(r.project.id, merged.merge_commit_sha!).toArray();
      const bySquash = await client.commits.allMergeRequests(r.project.id, merged.squash_commit_sha!).toArray();
      assert.deepEqual([byMerge.map((m) => m.iid), bySquash.map((m) => m.iid)], [[mr.iid], [mr.iid]]);

      await client.projects.edit(r.project.id, { merge_method: 'ff' });
      await gitOk(r.dir, ['pull', '-q', '--no-rebase', r.url, 'main']);
      await r.branch('quick');
      await r.commit('quick', { 'q.txt': 'q1\n' }, 'Q1');
      await r.commit('quick', { 'q.txt': 'q1\nq2\n' }, 'Q2');
      const quick = await client.mergeRequests.create(r.project.id, { source_branch: 'quick', target_branch: 'main', title: 'Quick' });
      await checked(r.project.id, quick.iid);
      const done = await client.mergeRequests.merge(r.project.id, quick.iid, { squash: true });
      assert.equal(done.merge_commit_sha, null);
      const end = await r.fresh();
      assert.deepEqual((await gitOk(end, ['log', '-1', '--format=%H%n%P', 'origin/main'])).trim().split('\n'), [done.squash_commit_sha, merged.merge_commit_sha]);
    });

    it('a force push of the target that moves the merge base records a diff version', async () => {
      const r = await repo('forced');
      await r.branch('develop');
      await gitOk(r.dir, ['push', '-q', r.url, 'develop']);
      const d1 = await r.commit('develop', { 'd.txt': 'd1\n' }, 'D1');
      await r.branch('work', 'develop');
      const head = await r.commit('work', { 'w.txt': 'w\n' }, 'W');
      const mr = await client.mergeRequests.create(r.project.id, { source_branch: 'work', target_branch: 'develop', title: 'Work' });
      const before = await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray();
      assert.deepEqual(before.map((v) => v.base_commit_sha), [d1]);
      // An ordinary push to the target does not move the base: no version.
      await r.commit('develop', { 'd.txt': 'd1\nd2\n' }, 'D2');
      assert.equal((await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray()).length, 1);
      // Rewritten below D1: the merge base is the base commit now.
      await gitOk(r.dir, ['checkout', '-q', 'develop']);
      await gitOk(r.dir, ['reset', '-q', '--hard', 'main']);
      const rewritten = await r.commit('develop', { 'other.txt': 'o\n' }, 'Rewritten', { push: false });
      const pushed = await git(r.dir, ['push', '-q', '--force', r.url, 'develop']);
      assert.equal(pushed.code, 0, pushed.stderr);
      const versions = await client.mergeRequests.allVersions(r.project.id, mr.iid).toArray();
      const base = (await gitOk(r.dir, ['rev-parse', 'main'])).trim();
      assert.deepEqual(versions.map((v) => [v.head_commit_sha, v.base_commit_sha, v.start_commit_sha]).slice(0, 1), [[head, base, rewritten]]);
      assert.equal(versions.length, 2);
      assert.equal((await client.mergeRequests.allCommits(r.project.id, mr.iid).toArray()).length, 2, 'D1 and W are now its commits');
    });
  });
}

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}
