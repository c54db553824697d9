/**
 * Push and tag push events (GitLab's Gitlab::DataBuilder::Push for Git::BranchHooksService and
 * Git::TagHooksService) from every path that writes a ref: the commits and files APIs, branch
 * creation and deletion (merged branches too), merges (merge commit, squash, source branch
 * removal), tags, releases that create their tag. Project, group (Premium) and system hooks with
 * `push_events` / `tag_push_events`; the branch filter (wildcard, regex, all branches) of
 * project and group hooks; nothing queued for hooks with the switch off, nor for a write that
 * rolls back; the test triggers' samples.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import type { TestForgelet } from '../support/server.js';
import { createProject, expectStatus, uniq } from './http.js';
import { useWebhookProject, type Delivery, type HookReceiver, type WebhookProject } from './webhooks-support.js';

const NOW = '2026-03-02T10:00:00.000Z';
const BLANK = '0'.repeat(40);
const PUSH_KEYS = [
  'object_kind', 'event_name', 'before', 'after', 'ref', 'ref_protected', 'checkout_sha', 'message', 'user_id', 'user_name', 'user_username',
  'user_email', 'user_avatar', 'project_id', 'project', 'commits', 'total_commits_count', 'push_options', 'repository',
];

for (const dialect of DIALECTS) {
  describe(`${dialect}: push and tag push webhook events`, () => {
    const world = useWebhookProject(dialect, 'pushers', NOW);
    let f: TestForgelet;
    let rx: HookReceiver;
    let group: any;
    let project: any;
    let dev: WebhookProject['dev'];
    before(() => ({ f, rx, group, project, dev } = world));
    const runDue = () => f.forge.deps.queue.runDue();
    const hooks = () => `/projects/${project.id}/hooks`;
    const addHook = async (path: string, body: Record<string, unknown>, at = hooks()) => {
      const r = await f.api('POST', at, { body: { url: `${rx.url}${path}`, ...body } });
      expectStatus(r, 201);
      return r.body;
    };
    const deliveredTo = (path: string): Delivery[] => rx.deliveries.filter((d) => d.path === path);
    const head = async (branch: string) => (await f.api('GET', `/projects/${project.id}/repository/branches/${encodeURIComponent(branch)}`)).body.commit.id as string;


    it('commits and files API: Push Hook with GitLab payload (changed paths, ref_protected); push_events off has nothing queued', async () => {
      const off = await addHook('/off', { push_events: false, issues_events: true });
      const before = await head('main');
      const first = await f.api('POST', `/projects/${project.id}/repository/commits`, {
        body: { branch: 'main', commit_message: 'Quiet', actions: [{ action: 'create', file_path: 'quiet.txt', content: 'x' }] },
      });
      expectStatus(first, 201);
      assert.equal(await runDue(), 0, 'a hook without push_events has nothing queued');

      const on = await addHook('/push', { token: 'push-secret' });
      assert.equal(on.push_events, true, 'push events are on by default');
      const commit = await f.api('POST', `/projects/${project.id}/repository/commits`, {
        body: {
          branch: 'main',
          commit_message: 'Add a and b\n\nwith a body',
          actions: [
            { action: 'create', file_path: 'a.txt', content: 'a' },
            { action: 'delete', file_path: 'quiet.txt' },
            { action: 'move', file_path: 'docs/README.md', previous_path: 'README.md' },
          ],
        },
      });
      expectStatus(commit, 201);
      assert.equal(await runDue(), 1);
      const d = rx.deliveries.at(-1)!;
      assert.equal(d.path, '/push');
      assert.equal(d.headers['x-gitlab-event'], 'Push Hook');
      assert.equal(d.headers['x-gitlab-token'], 'push-secret');
      const body = d.body;
      assert.deepEqual(Object.keys(body), PUSH_KEYS);
      assert.equal(body.object_kind, 'push');
      assert.equal(body.event_name, 'push');
      assert.equal(body.before, first.body.id);
      assert.notEqual(first.body.id, before);
      assert.equal(body.after, commit.body.id);
      assert.equal(body.ref, 'refs/heads/main');
      assert.equal(body.ref_protected, true, 'the default branch is protected');
      assert.equal(body.checkout_sha, commit.body.id);
      assert.equal(body.message, null);
      assert.deepEqual(
        [body.user_id, body.user_name, body.user_username, body.user_email, body.user_avatar],
        [1, 'Administrator', 'root', null, null],
      );
      assert.equal(body.project_id, project.id);
      assert.equal(body.project.id, project.id);
      assert.equal(body.project.path_with_namespace, project.path_with_namespace);
      assert.equal(body.project.web_url, project.web_url);
      assert.equal(body.project.default_branch, 'main');
      assert.deepEqual(body.repository, {
        name: project.name,
        url: body.project.url,
        description: body.project.description,
        homepage: project.web_url,
        git_http_url: project.http_url_to_repo,
        git_ssh_url: body.project.git_ssh_url,
        visibility_level: 0,
      });
      assert.equal(body.total_commits_count, 1);
      assert.deepEqual(body.push_options, {});
      assert.deepEqual(body.commits, [
        {
          id: commit.body.id,
          message: 'Add a and b\n\nwith a body',
          title: 'Add a and b',
          timestamp: '2026-03-02T10:00:00Z',
          url: `${project.web_url}/-/commit/${commit.body.id}`,
          author: { name: 'Administrator', email: commit.body.author_email },
          // A rename is added by its new path (Commit#repo_changes).
          added: ['a.txt', 'docs/README.md'],
          modified: [],
          removed: ['quiet.txt'],
        },
      ]);
      assert.equal(deliveredTo('/off').length, 0);

      // The files API on a new branch: a creation (blank before) carrying the commit the default branch lacks.
      const created = await f.api('POST', `/projects/${project.id}/repository/files/${encodeURIComponent('b.txt')}`, {
        token: dev.token,
        body: { branch: 'files-branch', start_branch: 'main', content: 'b', commit_message: 'Add b' },
      });
      expectStatus(created, 201);
      assert.equal(await runDue(), 1);
      const fileCreate = rx.deliveries.at(-1)!.body;
      const branchHead = await head('files-branch');
      assert.deepEqual([fileCreate.before, fileCreate.after, fileCreate.ref, fileCreate.ref_protected], [BLANK, branchHead, 'refs/heads/files-branch', false]);
      assert.deepEqual([fileCreate.user_id, fileCreate.user_username], [dev.id, dev.username]);
      assert.deepEqual(fileCreate.commits.map((c: any) => [c.id, c.title, c.added, c.modified, c.removed]), [[branchHead, 'Add b', ['b.txt'], [], []]]);
      assert.equal(fileCreate.total_commits_count, 1);
      expectStatus(
        await f.api('PUT', `/projects/${project.id}/repository/files/b.txt`, { token: dev.token, body: { branch: 'files-branch', content: 'bb', commit_message: 'Change b' } }),
        200,
      );
      expectStatus(
        await f.api('DELETE', `/projects/${project.id}/repository/files/b.txt`, { token: dev.token, body: { branch: 'files-branch', commit_message: 'Drop b' } }),
        204,
      );
      assert.equal(await runDue(), 2);
      const [update, removal] = rx.deliveries.slice(-2).map((x) => x.body);
      assert.equal(update.before, branchHead);
      assert.deepEqual(update.commits.map((c: any) => [c.title, c.modified]), [['Change b', ['b.txt']]]);
      assert.equal(removal.before, update.after);
      assert.deepEqual(removal.commits.map((c: any) => [c.title, c.removed]), [['Drop b', ['b.txt']]]);
      for (const hook of [off, on]) expectStatus(await f.api('DELETE', `${hooks()}/${hook.id}`), 204);
    });

    it('branches, merges and deletions: system, group and project hooks with their branch filters', async () => {
      const sys = await addHook('/sys', { push_events: true }, '/hooks');
      await addHook('/group', { push_events: true, push_events_branch_filter: 'release/*', branch_filter_strategy: 'wildcard' }, `/groups/${group.id}/hooks`);
      const regex = await addHook('/regex', { push_events_branch_filter: '^feat', branch_filter_strategy: 'regex' });
      await addHook('/all', { push_events_branch_filter: 'nothing-matches', branch_filter_strategy: 'all_branches' });
      await addHook('/exact', { push_events_branch_filter: 'main' });
      rx.deliveries.length = 0;
      const main = await head('main');

      // A new branch at the default branch's head: no commits.
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/branches`, { token: dev.token, body: { branch: 'feat-x', ref: 'main' } }), 201);
      await runDue();
      assert.deepEqual(rx.deliveries.map((d) => d.path).sort(), ['/all', '/regex', '/sys']);
      const created = deliveredTo('/regex')[0]!.body;
      assert.deepEqual([created.before, created.after, created.checkout_sha, created.total_commits_count, created.commits], [BLANK, main, main, 0, []]);
      const sysDelivery = deliveredTo('/sys')[0]!;
      assert.equal(sysDelivery.headers['x-gitlab-event'], 'System Hook');
      assert.deepEqual(sysDelivery.body, created, 'system hooks get the same push data');
      assert.equal(sysDelivery.headers['x-gitlab-event-uuid'], deliveredTo('/regex')[0]!.headers['x-gitlab-event-uuid']);

      rx.deliveries.length = 0;
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/branches`, { token: dev.token, body: { branch: 'release/1.0', ref: 'main' } }), 201);
      await runDue();
      assert.deepEqual(rx.deliveries.map((d) => d.path).sort(), ['/all', '/group', '/sys'], 'the wildcard filter takes release/*');

      // Two commits on feat-x, merged (merge commit) with the source branch removed.
      const c1 = await commitFiles(f, project.id, 'feat-x', { 'x1.txt': '1' }, { username: dev.username, message: 'x one' });
      const c2 = await commitFiles(f, project.id, 'feat-x', { 'x2.txt': '2' }, { username: dev.username, message: 'x two' });
      await runDue();
      const mr = await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'feat-x', target_branch: 'main', title: 'X' } });
      expectStatus(mr, 201);
      rx.deliveries.length = 0;
      const merged = await f.api('PUT', `/projects/${project.id}/merge_requests/${mr.body.iid}/merge`, { body: { should_remove_source_branch: true } });
      expectStatus(merged, 200);
      await runDue();
      const toMain = deliveredTo('/exact');
      assert.equal(toMain.length, 1, 'the exact filter takes main only');
      const mergePush = toMain[0]!.body;
      assert.deepEqual([mergePush.ref, mergePush.before, mergePush.after], ['refs/heads/main', main, merged.body.merge_commit_sha]);
      assert.deepEqual(mergePush.commits.map((c: any) => c.id), [c1, c2, merged.body.merge_commit_sha]);
      assert.equal(mergePush.total_commits_count, 3);
      assert.deepEqual(mergePush.commits[2].added.sort(), ['x1.txt', 'x2.txt']);
      const removal = deliveredTo('/regex').map((d) => d.body);
      assert.equal(removal.length, 1);
      assert.deepEqual(
        [removal[0].ref, removal[0].before, removal[0].after, removal[0].checkout_sha, removal[0].commits, removal[0].total_commits_count],
        ['refs/heads/feat-x', c2, BLANK, null, [], 0],
      );

      // A squash merge: the squash commit and the merge commit.
      await commitFiles(f, project.id, 'feat-y', { 'y.txt': 'y' }, { username: dev.username, startBranch: 'main', message: 'y one' });
      await commitFiles(f, project.id, 'feat-y', { 'y.txt': 'yy' }, { username: dev.username, message: 'y two' });
      const mrY = await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'feat-y', target_branch: 'main', title: 'Y' } });
      await runDue();
      rx.deliveries.length = 0;
      const squashed = await f.api('PUT', `/projects/${project.id}/merge_requests/${mrY.body.iid}/merge`, { body: { squash: true, squash_commit_message: 'Y squashed' } });
      expectStatus(squashed, 200);
      await runDue();
      const squashPush = deliveredTo('/exact')[0]!.body;
      assert.deepEqual(squashPush.commits.map((c: any) => c.id), [squashed.body.squash_commit_sha, squashed.body.merge_commit_sha]);
      assert.equal(squashPush.commits[0].title, 'Y squashed');

      // More than 20 commits: the newest 20, oldest first, and the full count.
      for (let i = 1; i <= 21; i++) await commitFiles(f, project.id, 'feat-many', { [`m${i}.txt`]: String(i) }, { startBranch: 'main', message: `many ${i}` });
      const mrMany = await f.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'feat-many', target_branch: 'main', title: 'Many' } });
      await runDue();
      rx.deliveries.length = 0;
      expectStatus(await f.api('PUT', `/projects/${project.id}/merge_requests/${mrMany.body.iid}/merge`), 200);
      await runDue();
      const many = deliveredTo('/exact')[0]!.body;
      assert.equal(many.total_commits_count, 22);
      assert.equal(many.commits.length, 20);
      assert.deepEqual(many.commits.slice(0, 2).map((c: any) => c.title), ['many 3', 'many 4']);
      assert.match(many.commits[19].title, /^Merge branch 'feat-many' into 'main'/);

      // Merged branches and a plain deletion: one push each, with a blank `after`.
      rx.deliveries.length = 0;
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/merged_branches`, { token: dev.token }), 202);
      await runDue();
      const gone = deliveredTo('/sys').map((d) => [d.body.ref, d.body.after]).sort();
      // (feat-y's commits were squashed: its head is no ancestor of main, and it stays)
      assert.deepEqual(gone, [['refs/heads/feat-many', BLANK], ['refs/heads/release/1.0', BLANK]]);
      assert.deepEqual(deliveredTo('/group').map((d) => d.body.ref), ['refs/heads/release/1.0']);
      rx.deliveries.length = 0;
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/branches/files-branch`, { token: dev.token }), 204);
      await runDue();
      assert.deepEqual(deliveredTo('/all').map((d) => [d.body.ref, d.body.after]), [['refs/heads/files-branch', BLANK]]);

      // Editing the filter changes what the hook takes.
      expectStatus(await f.api('PUT', `${hooks()}/${regex.id}`, { body: { push_events_branch_filter: '^hot' } }), 200);
      rx.deliveries.length = 0;
      await commitFiles(f, project.id, 'hotfix', { 'h.txt': 'h' }, { startBranch: 'main' });
      await commitFiles(f, project.id, 'feat-z', { 'z.txt': 'z' }, { startBranch: 'main' });
      await runDue();
      assert.deepEqual(deliveredTo('/regex').map((d) => d.body.ref), ['refs/heads/hotfix']);
      expectStatus(await f.api('DELETE', `/hooks/${sys.id}`), 204);
      for (const h of (await f.api('GET', hooks())).body) expectStatus(await f.api('DELETE', `${hooks()}/${h.id}`), 204);
      for (const h of (await f.api('GET', `/groups/${group.id}/hooks`)).body) expectStatus(await f.api('DELETE', `/groups/${group.id}/hooks/${h.id}`), 204);
    });

    it('tag push events: lightweight, annotated, from a release, deleted; tag_push_events decides, no branch filter', async () => {
      await addHook('/tags', { tag_push_events: true, push_events: false, push_events_branch_filter: 'nothing' });
      await addHook('/pushes', { push_events: true });
      const sys = await addHook('/sys-tags', { push_events: false, tag_push_events: true }, '/hooks');
      rx.deliveries.length = 0;
      const main = await head('main');
      const commit = (await f.api('GET', `/projects/${project.id}/repository/commits/${main}`)).body;
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { token: dev.token, body: { tag_name: 'v1.0', ref: 'main' } }), 201);
      await runDue();
      assert.deepEqual(rx.deliveries.map((d) => d.path).sort(), ['/sys-tags', '/tags'], 'a hook with push events only takes no tag push');
      const d = deliveredTo('/tags')[0]!;
      assert.equal(d.headers['x-gitlab-event'], 'Tag Push Hook');
      assert.deepEqual(Object.keys(d.body), PUSH_KEYS);
      assert.deepEqual(
        [d.body.object_kind, d.body.event_name, d.body.before, d.body.after, d.body.ref, d.body.ref_protected, d.body.checkout_sha, d.body.message],
        ['tag_push', 'tag_push', BLANK, main, 'refs/tags/v1.0', false, main, null],
      );
      assert.deepEqual([d.body.user_id, d.body.user_username], [dev.id, dev.username]);
      assert.equal(d.body.total_commits_count, 1);
      assert.deepEqual(d.body.commits.map((c: any) => [c.id, c.title]), [[main, commit.title]]);
      assert.deepEqual(Object.keys(d.body.commits[0]), ['id', 'message', 'title', 'timestamp', 'url', 'author', 'added', 'modified', 'removed']);

      rx.deliveries.length = 0;
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1.1', ref: 'main', message: 'Annotated notes' } }), 201);
      expectStatus(await f.api('POST', `/projects/${project.id}/releases`, { body: { tag_name: 'v2.0', ref: 'main', name: 'Two' } }), 201);
      await runDue();
      assert.deepEqual(deliveredTo('/tags').map((x) => [x.body.ref, x.body.message]), [['refs/tags/v1.1', 'Annotated notes'], ['refs/tags/v2.0', null]]);

      rx.deliveries.length = 0;
      expectStatus(await f.api('DELETE', `/projects/${project.id}/repository/tags/v1.0`, { token: dev.token }), 204);
      await runDue();
      const deleted = deliveredTo('/tags')[0]!.body;
      assert.deepEqual(
        [deleted.before, deleted.after, deleted.checkout_sha, deleted.commits, deleted.total_commits_count, deleted.message],
        [main, BLANK, null, [], 0, null],
      );
      expectStatus(await f.api('DELETE', `/hooks/${sys.id}`), 204);
      for (const h of (await f.api('GET', hooks())).body) expectStatus(await f.api('DELETE', `${hooks()}/${h.id}`), 204);
    });

    it('a write that rolls back queues nothing; an instance without hooks queues nothing', async () => {
      const empty = await createProject(f, f.rootToken, { name: uniq('empty-') });
      await addHook('/rollback', { push_events: true }, `/projects/${empty.id}/hooks`);
      // In an empty repository the branch API first commits README.md to the default branch, then refuses the name: all rolled back.
      const bad = await f.api('POST', `/projects/${empty.id}/repository/branches`, { body: { branch: 'bad..name', ref: 'main' } });
      assert.deepEqual([bad.status, bad.body], [400, { message: 'Branch name is invalid' }]);
      assert.equal(await runDue(), 0);
      assert.equal((await f.api('GET', `/projects/${empty.id}/repository/branches`)).body.length, 0);
      for (const h of (await f.api('GET', `/projects/${empty.id}/hooks`)).body) expectStatus(await f.api('DELETE', `/projects/${empty.id}/hooks/${h.id}`), 204);

      const jobs = async () => (await f.forge.database.db.selectFrom('queue_jobs').where('kind', '=', 'webhook_delivery').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
      const before = Number(await jobs());
      await commitFiles(f, project.id, 'main', { 'quiet-again.txt': 'q' });
      expectStatus(await f.api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v9', ref: 'main' } }), 201);
      assert.equal(Number(await jobs()), before, 'no hook, no delivery job');
    });

    it('test triggers: push and tag push samples from the default branch (GitLab sample for an empty repository)', async () => {
      const hook = await addHook('/test', {});
      const push = await f.api('POST', `${hooks()}/${hook.id}/test/push_events`);
      assert.deepEqual([push.status, push.body], [201, { message: '201 Created' }]);
      const sample = rx.deliveries.at(-1)!;
      assert.equal(sample.headers['x-gitlab-event'], 'Push Hook');
      const last3 = (await f.api('GET', `/projects/${project.id}/repository/commits?ref_name=main&per_page=3`)).body.map((c: any) => c.id);
      assert.deepEqual(sample.body.commits.map((c: any) => c.id), last3, 'newest first, as GitLab builds the sample');
      assert.deepEqual([sample.body.before, sample.body.after, sample.body.ref, sample.body.total_commits_count], [last3[2], last3[0], 'refs/heads/main', 3]);
      expectStatus(await f.api('POST', `${hooks()}/${hook.id}/test/tag_push_events`), 201);
      const tagSample = rx.deliveries.at(-1)!;
      assert.equal(tagSample.headers['x-gitlab-event'], 'Tag Push Hook');
      assert.equal(tagSample.body.object_kind, 'tag_push');
      assert.equal(tagSample.body.ref, 'refs/tags/v9', 'the last tag by name');

      const empty = await createProject(f, f.rootToken, { name: uniq('no-code-') });
      const emptyHook = await addHook('/test-empty', {}, `/projects/${empty.id}/hooks`);
      expectStatus(await f.api('POST', `/projects/${empty.id}/hooks/${emptyHook.id}/test/push_events`), 201);
      const fixed = rx.deliveries.at(-1)!.body;
      assert.deepEqual([fixed.user_name, fixed.project.path_with_namespace, fixed.ref], ['John Smith', 'gitlab/gitlab', 'refs/heads/master']);
    });
  });
}
