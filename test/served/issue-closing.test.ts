/**
 * Automatic issue closing through the built `forgelet serve`, as GitLab does it: "Closes #N"
 * (and its other keywords, lists, cross-project references and links) in commits that reach
 * the default branch, by the API and by `git push`, and in the description of a merge request
 * merged into the default branch. Each closed issue's state event names its source. Commits on
 * other branches close nothing; nor do references to issues the pusher may not update.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { git, gitOk } from '../support/git-client.js';

function ok<T = any>(r: { status: number; text: string; body: T }, status = 200): T {
  assert.equal(r.status, status, r.text);
  return r.body;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: issues closed by commits and merge requests`, () => {
    let f: ServedForgelet;
    let work: string;
    let project: any;
    let other: any;
    let hidden: any;
    let dev: { id: number; username: string; token: string };

    const issue = async (p: any, title: string) => ok(await f.api('POST', `/projects/${p.id}/issues`, { body: { title } }), 201);
    const stateOf = async (p: any, iid: number) => ok(await f.api('GET', `/projects/${p.id}/issues/${iid}`)).state as string;
    const events = async (p: any, iid: number) => ok(await f.api('GET', `/projects/${p.id}/issues/${iid}/resource_state_events`)) as any[];
    const commit = async (branch: string, message: string, file: string, start?: string) =>
      ok(
        await f.api('POST', `/projects/${project.id}/repository/commits`, {
          token: dev.token,
          body: { branch, ...(start ? { start_branch: start } : {}), commit_message: message, actions: [{ action: 'create', file_path: file, content: `${file}\n` }] },
        }),
        201,
      );

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2031-03-01T09:00:00Z' } });
      work = await mkdtemp(join(tmpdir(), 'forgelet-closing-test-'));
      const group = ok(await f.api('POST', '/groups', { body: { name: 'Acme', path: 'acme' } }), 201);
      project = ok(await f.api('POST', '/projects', { body: { name: 'app', namespace_id: group.id, initialize_with_readme: true } }), 201);
      other = ok(await f.api('POST', '/projects', { body: { name: 'lib', namespace_id: group.id } }), 201);
      hidden = ok(await f.api('POST', '/projects', { body: { name: 'secret', path: 'secret' } }), 201);
      dev = await f.createUser(`closer-${dialect}`, { scopes: ['api', 'write_repository'] });
      // Maintainer of app (pushes to its protected default branch), Reporter of lib, nothing in root's secret.
      ok(await f.api('POST', `/projects/${project.id}/members`, { body: { user_id: dev.id, access_level: 40 } }), 201);
      ok(await f.api('POST', `/projects/${other.id}/members`, { body: { user_id: dev.id, access_level: 20 } }), 201);
    });
    after(async () => {
      await f?.stop();
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('closes the issues named by a commit on the default branch, with the commit as the source', async () => {
      const [a, b, c, keep] = [await issue(project, 'a'), await issue(project, 'b'), await issue(project, 'c'), await issue(project, 'keep')];
      const lib = await issue(other, 'in lib');
      const secret = await issue(hidden, 'not yours');
      const link = `${f.url}/acme/app/-/issues/${c.iid}`;
      const sha = (
        await commit(project.default_branch, `Fix the login\n\nCloses #${a.iid} and #${b.iid}, fixes acme/lib#${lib.iid}\nResolves ${link}.\nCloses ${hidden.path_with_namespace}#${secret.iid}\nSee #${keep.iid}`, 'login.txt')
      ).id;
      // Queued, as GitLab's ProcessCommitWorker (the served process may have run it already).
      await f.runDue();
      for (const i of [a, b, c]) assert.equal(await stateOf(project, i.iid), 'closed', `#${i.iid}`);
      assert.equal(await stateOf(other, lib.iid), 'closed', 'a Reporter of lib may close its issue');
      assert.equal(await stateOf(project, keep.iid), 'opened', 'a mention is not a closing reference');
      assert.equal(await stateOf(hidden, secret.iid), 'opened', 'an issue the pusher cannot update stays open');
      const [event] = await events(project, a.iid);
      assert.equal(event.state, 'closed');
      assert.equal(event.source_commit, sha);
      assert.equal(event.source_merge_request_id, null);
      assert.equal(event.user.id, dev.id);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/issues/${a.iid}`)).closed_by.id, dev.id);
    });

    it('closes nothing for commits on another branch, and closes them once they reach the default branch by git push', async () => {
      const d = await issue(project, 'd');
      await commit('feature', `Implements #${d.iid}`, 'feature.txt', project.default_branch);
      await f.runDue();
      assert.equal(await stateOf(project, d.iid), 'opened');

      // A clone, a new commit on top of feature, pushed to the default branch with git.
      const host = new URL(f.url).host;
      const remote = `http://${dev.username}:${dev.token}@${host}/acme/app.git`;
      await gitOk(work, ['clone', '-q', remote, 'app']);
      const dir = join(work, 'app');
      await gitOk(dir, ['checkout', '-q', 'feature']);
      const e = await issue(project, 'e');
      await writeFile(join(dir, 'more.txt'), 'more\n');
      await gitOk(dir, ['add', 'more.txt']);
      await gitOk(dir, ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', `More\n\nFixes: #${e.iid}`]);
      const pushed = await git(dir, ['push', 'origin', `HEAD:${project.default_branch}`]);
      assert.equal(pushed.code, 0, pushed.stderr);
      await f.runDue();
      // Both commits are new on the default branch: the API commit's "Implements #d" and the pushed "Fixes: #e".
      assert.equal(await stateOf(project, d.iid), 'closed');
      assert.equal(await stateOf(project, e.iid), 'closed');
      const head = (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
      assert.equal((await events(project, e.iid))[0].source_commit, head);
    });

    it('closes the issues a merged merge request names, with the merge request as the source', async () => {
      const g = await issue(project, 'g');
      const h = await issue(project, 'h');
      await commit('topic', 'Topic work', 'topic.txt', project.default_branch);
      const mr = ok(
        await f.api('POST', `/projects/${project.id}/merge_requests`, {
          token: dev.token,
          body: { source_branch: 'topic', target_branch: project.default_branch, title: `Topic (closes #${g.iid})`, description: `Closes #${h.iid}` },
        }),
        201,
      );
      await f.runDue();
      assert.equal(await stateOf(project, h.iid), 'opened', 'an open merge request closes nothing yet');
      // What it will close, through the client, in the order named (title, then description), paged.
      const client = new Forgelet({ url: f.url, token: dev.token });
      assert.deepEqual((await client.mergeRequests.closesIssues(project.id, mr.iid).toArray()).map((i) => i.iid), [g.iid, h.iid]);
      const first = await f.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/closes_issues?per_page=1`, { token: dev.token });
      assert.deepEqual(ok(first).map((i: any) => i.iid), [g.iid]);
      assert.equal(first.headers.get('x-total'), '2');
      assert.equal(first.headers.get('x-next-page'), '2');
      assert.equal(ok(first)[0].has_tasks, undefined, 'IssueBasic, as GitLab');
      // The issues' side (merge_request_closing_issues): merge_requests_count and closed_by.
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/issues/${h.iid}`)).merge_requests_count, 1);
      assert.deepEqual((await client.issues.closedBy(project.id, h.iid).toArray()).map((m) => m.iid), [mr.iid]);
      // Edited: #h no longer named, #g still (in the title).
      ok(await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { description: 'No longer closes anything here' } }));
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/issues/${h.iid}`)).merge_requests_count, 0);
      assert.deepEqual(ok(await f.api('GET', `/projects/${project.id}/issues/${h.iid}/closed_by`)), []);
      assert.equal(ok(await f.api('GET', `/projects/${project.id}/issues/${g.iid}`)).merge_requests_count, 1);
      ok(await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}`, { token: dev.token, body: { description: `Closes #${h.iid}` } }));
      assert.deepEqual(ok(await f.api('GET', `/projects/${project.id}/issues/${h.iid}/closed_by`)).map((m: any) => m.iid), [mr.iid]);
      // Bad input: 400 naming the field.
      const badMr = await f.api('GET', `/projects/${project.id}/merge_requests/abc/closes_issues`);
      assert.deepEqual([badMr.status, badMr.body], [400, { error: 'merge_request_iid is invalid' }]);
      const badIssue = await f.api('GET', `/projects/${project.id}/issues/x/closed_by?per_page=0`);
      assert.equal(badIssue.status, 400);
      assert.match(badIssue.text, /issue_iid|per_page/);
      // A merge request that names no issue: an empty page (the fuzz test found a 500 here).
      await commit('plain', 'Plain work', 'plain.txt', project.default_branch);
      const plain = ok(await f.api('POST', `/projects/${project.id}/merge_requests`, { token: dev.token, body: { source_branch: 'plain', target_branch: project.default_branch, title: 'Plain' } }), 201);
      const none = await f.api('GET', `/projects/${project.id}/merge_requests/${plain.iid}/closes_issues?page=1&per_page=1`, { token: dev.token });
      assert.deepEqual([none.status, none.body, none.headers.get('x-total')], [200, [], '0']);
      const stranger = await f.createUser(`stranger-${dialect}`);
      assert.equal((await f.api('GET', `/projects/${project.id}/merge_requests/${mr.iid}/closes_issues`, { token: stranger.token })).status, 404);
      ok(await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.iid}/merge`, { token: dev.token }));
      await f.runDue();
      for (const i of [g, h]) {
        assert.equal(await stateOf(project, i.iid), 'closed');
        const [event] = await events(project, i.iid);
        assert.equal(event.source_merge_request_id, mr.id);
        assert.equal(event.source_commit, null);
      }
    });
  });
}
