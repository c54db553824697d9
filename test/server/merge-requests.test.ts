import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type ApiResponse, type TestForgelet } from '../support/server.js';
import { addMember, allowDevelopersToMerge, createGroup, createProject, createUsers, expectStatus, uniq } from './http.js';

type User = { id: number; username: string; token: string };
const FORBIDDEN = { message: '403 Forbidden' };
const SHA = /^[0-9a-f]{40}$/;
const T0 = '2026-03-02T09:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge requests`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let owner: User; // Owner of the team group
    let dev: User;
    let dev2: User;
    let reporter: User;
    let guest: User;
    let outsider: User;
    let team: any; // private group
    let app: any; // private project team/app
    let site: any; // public project open/site

    const db = () => f.forge.database.db;
    const basic = (u: User) => ({ id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}` });
    /** Creates a merge request in `project` as `user`; 201 expected. */
    async function open(project: any, user: User, body: Record<string, unknown> = {}): Promise<any> {
      const r = await f.api('POST', `/projects/${project.id}/merge_requests`, {
        token: user.token,
        body: { source_branch: uniq('feature-'), target_branch: 'main', title: uniq('Change '), ...body },
      });
      expectStatus(r, 201);
      return r.body;
    }
    /** The merge request once the queue ran its mergeability check (GitLab's answer right after a write is `checking`). */
    const settled = async (mr: any) => {
      for (let i = 0; ; i++) {
        await f.forge.deps.queue.runDue();
        const body = (await f.api('GET', `/projects/${mr.project_id}/merge_requests/${mr.iid}`, { token: owner.token })).body;
        if (body.merge_status !== 'checking' || i === 50) return body;
        await new Promise((r) => setTimeout(r, 50)); // the server's own worker may be running the check
      }
    };
    const put = (mr: any, user: User | null, body: Record<string, unknown>) =>
      f.api('PUT', `/projects/${mr.project_id}/merge_requests/${mr.iid}`, { token: user ? user.token : null, body });
    const merge = (mr: any, user: User, body: Record<string, unknown> = {}) =>
      f.api('PUT', `/projects/${mr.project_id}/merge_requests/${mr.iid}/merge`, { token: user.token, body });
    const stateEvents = async (mrId: number) =>
      (await db().selectFrom('resource_state_events').selectAll().where('merge_request_id', '=', mrId).orderBy('id').execute()).map((e) => ({
        state: e.state, user_id: e.user_id, issue_id: e.issue_id, source_commit: e.source_commit, source_merge_request_id: e.source_merge_request_id, created_at: e.created_at,
      }));
    const mrCount = async () => Number((await db().selectFrom('merge_requests').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock });
      [owner, dev, dev2, reporter, guest, outsider] = await createUsers(f, ['mrowner', 'mrdev', 'mrdev2', 'mrreporter', 'mrguest', 'mroutsider']);
      team = await createGroup(f, owner.token, { name: 'Team', path: 'team' });
      app = await createProject(f, owner.token, { name: 'App', namespace_id: team.id });
      await addMember(f, 'projects', app.id, dev.id, 30);
      await addMember(f, 'projects', app.id, dev2.id, 30);
      await addMember(f, 'projects', app.id, reporter.id, 20);
      await addMember(f, 'projects', app.id, guest.id, 10);
      const openGroup = await createGroup(f, owner.token, { name: 'Open', path: 'open', visibility: 'public' });
      site = await createProject(f, owner.token, { name: 'Site', namespace_id: openGroup.id, visibility: 'public' });
      await addMember(f, 'projects', site.id, dev.id, 30);
      await commitFiles(f, app.id, 'main', { 'README.md': '# App\n' });
      await allowDevelopersToMerge(f, app.id);
    });
    after(() => f.stop());

    it('POST creates an opened merge request in GitLab\'s shape, with its source head and new labels', async () => {
      const mainHead = (await db().selectFrom('repository_refs').select('commit_sha').where('project_id', '=', app.id).where('name', '=', 'main').executeTakeFirstOrThrow()).commit_sha;
      const head = await commitFiles(f, app.id, 'feature/login', { 'login.txt': 'form\n' }, { startBranch: 'main' });
      clock.advance(1000);
      const r = await f.api('POST', `/projects/${encodeURIComponent('team/app')}/merge_requests`, {
        token: dev.token,
        body: {
          source_branch: 'feature/login', target_branch: 'main', title: '  Add login  ', description: 'Adds a login form',
          labels: 'ui, Backend', assignee_ids: [dev2.id], reviewer_ids: [reporter.id], squash: true, remove_source_branch: true,
        },
      });
      expectStatus(r, 201);
      const mr = r.body;
      assert.equal(mr.sha, head);
      const now = clock.now().toISOString();
      assert.deepEqual(mr, {
        id: mr.id, iid: mr.iid, project_id: app.id, title: 'Add login', description: 'Adds a login form', state: 'opened',
        imported: false, imported_from: 'none', created_at: now, updated_at: now,
        merged_by: null, merge_user: null, merged_at: null, merge_after: null, prepared_at: now, closed_by: null, closed_at: null,
        target_branch: 'main', source_branch: 'feature/login', user_notes_count: 0, upvotes: 0, downvotes: 0,
        author: basic(dev), assignees: [basic(dev2)], assignee: basic(dev2), reviewers: [basic(reporter)],
        source_project_id: app.id, target_project_id: app.id, labels: ['Backend', 'ui'], draft: false, work_in_progress: false,
        milestone: null, merge_when_pipeline_succeeds: false, merge_status: 'checking', detailed_merge_status: 'checking',
        sha: mr.sha, merge_commit_sha: null, squash_commit_sha: null, discussion_locked: false,
        should_remove_source_branch: true, force_remove_source_branch: true,
        reference: `!${mr.iid}`, references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `team/app!${mr.iid}` },
        web_url: `${f.url}/team/app/-/merge_requests/${mr.iid}`,
        time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
        squash: true, squash_on_merge: true, task_completion_status: { count: 0, completed_count: 0 }, has_conflicts: false,
        blocking_discussions_resolved: true, approvals_before_merge: null,
        subscribed: true, changes_count: '1', latest_build_started_at: null, latest_build_finished_at: null,
        first_deployed_to_production_at: null, pipeline: null, head_pipeline: null,
        diff_refs: { base_sha: mainHead, head_sha: mr.sha, start_sha: mainHead }, merge_error: null,
        user: { can_merge: true },
      });
      const labels = await db().selectFrom('labels').select(['title', 'color', 'project_id']).where('project_id', '=', app.id).orderBy('title').execute();
      assert.deepEqual(labels, [{ title: 'Backend', color: '#428BCA', project_id: app.id }, { title: 'ui', color: '#428BCA', project_id: app.id }]);
      const links = await db().selectFrom('label_links').select(['target_type', 'target_id']).where('target_id', '=', mr.id).where('target_type', '=', 'MergeRequest').execute();
      assert.equal(links.length, 2);

      // A second merge request from the same branch shares its head; existing labels are reused.
      const other = await open(app, dev, { source_branch: 'feature/login', target_branch: 'release', labels: ['UI'] });
      assert.equal(other.sha, mr.sha);
      assert.equal(other.iid, mr.iid + 1);
      assert.deepEqual(other.labels, ['ui']);
      // GitLab accepts a source branch that does not exist yet: no head until it does.
      const fresh = await open(app, dev);
      assert.deepEqual([fresh.sha, fresh.diff_refs.head_sha], [null, null]);
      const later = await commitFiles(f, app.id, fresh.source_branch, { 'later.txt': 'x\n' }, { startBranch: 'main' });
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${fresh.iid}`)).body.sha, later);
      const moved = await commitFiles(f, app.id, 'feature/login', { 'login.txt': 'form v2\n' });
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body.sha, moved);
    });

    it('GET one by id or encoded path; user.can_merge follows the caller', async () => {
      const mr = await open(app, dev);
      for (const ref of [String(app.id), 'team%2Fapp', 'TEAM%2FApp']) {
        const r = await f.api('GET', `/projects/${ref}/merge_requests/${mr.iid}`, { token: reporter.token });
        expectStatus(r, 200);
        const checked = { merge_status: 0, detailed_merge_status: 0, has_conflicts: 0 }; // settled by the queue meanwhile
        assert.deepEqual({ ...r.body, user: null, ...checked }, { ...mr, user: null, first_contribution: true, subscribed: false, ...checked }, 'GET adds first_contribution; the reporter takes no part');
        assert.deepEqual(r.body.user, { can_merge: false });
      }
      assert.deepEqual((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`, { token: dev2.token })).body.user, { can_merge: true });
      const missing = await f.api('GET', `/projects/${app.id}/merge_requests/99999`, { token: dev.token });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Merge Request Not Found' }]);
      const bad = await f.api('GET', `/projects/${app.id}/merge_requests/abc`, { token: dev.token });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'merge_request_iid is invalid' }]);
    });

    it('draft titles: Draft:, [Draft], (Draft), WIP: in any case; editing the title toggles it', async () => {
      for (const title of ['Draft: one', '[Draft] two', '(draft) three', 'WIP: four', 'draft:five']) {
        const mr = await settled(await open(app, dev, { title }));
        assert.deepEqual([mr.draft, mr.work_in_progress, mr.detailed_merge_status], [true, true, 'draft_status'], title);
      }
      const branch = uniq('plan-');
      await commitFiles(f, app.id, branch, { [`${branch}.txt`]: 'plan\n' }, { startBranch: 'main' });
      const plain = await settled(await open(app, dev, { title: 'Drafting the plan', source_branch: branch }));
      assert.equal(plain.draft, false);
      const r = await put(plain, dev, { title: 'Draft: Drafting the plan' });
      assert.deepEqual([r.body.draft, r.body.detailed_merge_status], [true, 'draft_status']);
      const ready = await put(plain, dev, { title: 'Drafting the plan' });
      assert.deepEqual([ready.body.draft, ready.body.detailed_merge_status], [false, 'mergeable']);
    });

    it('same source and target is 422; a second open merge request for the branches is 409; nothing is written', async () => {
      const first = await open(app, dev, { source_branch: 'dup-src', target_branch: 'main' });
      const before = await mrCount();
      const same = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: dev.token, body: { source_branch: 'main', target_branch: 'main', title: 'x' } });
      assert.deepEqual([same.status, same.body], [422, { message: ["You can't use same project/branch for source and target"] }]);
      const dup = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: dev2.token, body: { source_branch: 'dup-src', target_branch: 'main', title: 'again', labels: 'never-created' } });
      assert.deepEqual([dup.status, dup.body], [409, { message: [`Another open merge request already exists for this source branch: !${first.iid}`] }]);
      assert.equal(await mrCount(), before);
      assert.equal(await db().selectFrom('labels').select('id').where('title', '=', 'never-created').executeTakeFirst(), undefined);
      // the refused creations consumed no iid
      const next = await open(app, dev);
      assert.equal(next.iid, first.iid + 1);
      // once the first one is closed, the branches are free again
      expectStatus(await put(first, dev, { state_event: 'close' }), 200);
      const again = await open(app, dev, { source_branch: 'dup-src', target_branch: 'main' });
      assert.equal(again.state, 'opened');
      // reopening the first now would make two: GitLab leaves it closed and records nothing
      const reopen = await put(first, dev, { state_event: 'reopen' });
      expectStatus(reopen, 200);
      assert.equal(reopen.body.state, 'closed');
      assert.deepEqual((await stateEvents(first.id)).map((e) => e.state), ['closed']);
      // moving another merge request onto that pair is a 409
      const mover = await open(app, dev, { source_branch: 'dup-src', target_branch: 'stable' });
      const moved = await put(mover, dev, { target_branch: 'main' });
      assert.deepEqual([moved.status, moved.body], [409, { message: [`Another open merge request already exists for this source branch: !${again.iid}`] }]);
      const sameOnEdit = await put(mover, dev, { target_branch: 'dup-src' });
      assert.deepEqual([sameOnEdit.status, sameOnEdit.body], [422, { message: ["You can't use same project/branch for source and target"] }]);
    });

    it('bad input is 400 and writes nothing', async () => {
      const before = await mrCount();
      const cases: [Record<string, unknown>, unknown][] = [
        [{ target_branch: 'main', title: 't' }, { error: 'source_branch is missing' }],
        [{}, { error: 'title is missing, source_branch is missing, target_branch is missing' }],
        [{ source_branch: 'a', target_branch: 'main', title: 't', squash: 'maybe' }, { error: 'squash is invalid' }],
        [{ source_branch: 'a', target_branch: 'main', title: 't', assignee_ids: 'x' }, { error: 'assignee_ids is invalid' }],
        [{ source_branch: 'a', target_branch: 'main', title: '   ' }, { message: { title: ["can't be blank"] } }],
        [{ source_branch: 'bad branch', target_branch: 'ma..in', title: 't' }, { message: { source_branch: ['is invalid'], target_branch: ['is invalid'] } }],
        [{ source_branch: 'a', target_branch: 'main', title: 'x'.repeat(256) }, { message: { title: ['is too long (maximum is 255 characters)'] } }],
      ];
      for (const [body, expected] of cases) {
        const r = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: dev.token, body });
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.equal(await mrCount(), before);
      const mr = await open(app, dev);
      const empty = await put(mr, dev, {});
      assert.equal(empty.status, 400);
      assert.match(empty.body.error, /^assignee_id, assignee_ids, reviewer_ids, .* are missing, at least one parameter must be provided$/);
      const blank = await put(mr, dev, { title: '' });
      assert.deepEqual([blank.status, blank.body], [400, { error: 'title is empty' }]);
      const badState = await put(mr, dev, { state_event: 'merge' });
      assert.deepEqual([badState.status, badState.body], [400, { error: 'state_event does not have a valid value' }]);
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body.updated_at, mr.updated_at);
    });

    it('another target project: a visible one is 422 (not a fork); an unknown id falls back to the project', async () => {
      const r = await f.api('POST', `/projects/${app.id}/merge_requests`, { token: dev.token, body: { source_branch: 'x1', target_branch: 'main', title: 't', target_project_id: site.id } });
      assert.deepEqual([r.status, r.body], [422, { message: ['Source project is not a fork of the target project'] }]);
      const fallback = await open(app, dev, { target_project_id: 999999 });
      assert.equal(fallback.target_project_id, app.id);
    });

    it('PUT edits fields, labels, assignees and reviewers; updated_at moves only on a change', async () => {
      const mr = await open(app, dev, { labels: 'keep,drop' });
      clock.advance(60_000);
      const r = await put(mr, dev2, {
        title: 'Renamed', description: 'New text', target_branch: 'develop', discussion_locked: true, squash: true, remove_source_branch: true,
        add_labels: 'added', remove_labels: 'drop', assignee_ids: `${dev.id},${dev2.id}`, reviewer_ids: [outsider.id, reporter.id],
      });
      expectStatus(r, 200);
      assert.deepEqual(
        [r.body.title, r.body.description, r.body.target_branch, r.body.discussion_locked, r.body.squash, r.body.force_remove_source_branch, r.body.labels],
        ['Renamed', 'New text', 'develop', true, true, true, ['added', 'keep']],
      );
      assert.deepEqual(r.body.assignees.map((u: any) => u.id), [dev.id, dev2.id], 'ultimate tier keeps several assignees');
      assert.deepEqual(r.body.reviewers.map((u: any) => u.id), [reporter.id], 'users who cannot read private merge requests are dropped');
      assert.equal(r.body.updated_at, clock.now().toISOString());
      assert.equal(r.body.created_at, mr.created_at);
      clock.advance(60_000);
      const replaced = await put(mr, dev, { labels: 'fresh', assignee_id: 0 });
      assert.deepEqual([replaced.body.labels, replaced.body.assignees, replaced.body.assignee], [['fresh'], [], null]);
      const cleared = await put(mr, dev, { labels: '', reviewer_ids: '' });
      assert.deepEqual([cleared.body.labels, cleared.body.reviewers], [[], []]);
      clock.advance(60_000);
      const same = await put(mr, dev, { title: 'Renamed', labels: '' });
      assert.equal(same.body.updated_at, cleared.body.updated_at, 'nothing changed');
    });

    it('who may read, create, update, merge and delete', async () => {
      const mr = await open(app, dev);
      const list = `/projects/${app.id}/merge_requests`;
      const one = `${list}/${mr.iid}`;
      // a Guest sees the private project but not its merge requests: 403, as the policy answers for a visible project
      for (const path of [list, one]) assert.deepEqual(await statusBody(f.api('GET', path, { token: guest.token })), [403, FORBIDDEN], path);
      // outsiders and anonymous callers don't see the project at all
      for (const token of [outsider.token, null]) assert.deepEqual(await statusBody(f.api('GET', one, { token })), [404, { message: '404 Project Not Found' }]);
      expectStatus(await f.api('GET', one, { token: reporter.token }), 200);
      // creating needs Developer
      const create = (u: User | null) => f.api('POST', list, { token: u ? u.token : null, body: { source_branch: uniq('p-'), target_branch: 'main', title: 'p' } });
      assert.deepEqual(await statusBody(create(reporter)), [403, FORBIDDEN]);
      assert.deepEqual(await statusBody(create(guest)), [403, FORBIDDEN]);
      assert.deepEqual(await statusBody(create(null)), [401, { message: '401 Unauthorized' }]);
      assert.deepEqual(await statusBody(create(outsider)), [404, { message: '404 Project Not Found' }]);
      expectStatus(await create(dev2), 201);
      // updating: Developers, not Reporters
      assert.deepEqual(await statusBody(put(mr, reporter, { title: 'reporter edit' })), [403, FORBIDDEN]);
      expectStatus(await put(mr, dev2, { title: 'developer edit' }), 200);
      // merging: GitLab answers 401 to a caller who may read but not merge
      assert.deepEqual(await statusBody(merge(mr, reporter)), [401, { message: '401 Unauthorized' }]);
      // deleting: Owners (204), not Developers
      assert.deepEqual(await statusBody(f.api('DELETE', one, { token: dev.token })), [403, FORBIDDEN]);
      const del = await f.api('DELETE', one, { token: owner.token });
      assert.deepEqual([del.status, del.text], [204, '']);
      assert.deepEqual(await statusBody(f.api('GET', one, { token: owner.token })), [404, { message: '404 Merge Request Not Found' }]);
    });

    it('the author may edit their merge request without Developer access', async () => {
      const author = await f.createUser(uniq('author'));
      await addMember(f, 'projects', site.id, author.id, 30);
      const mr = await open(site, author);
      await f.api('PUT', `/projects/${site.id}/members/${author.id}`, { body: { access_level: 10 } });
      expectStatus(await put(mr, author, { description: 'still mine' }), 200);
      assert.deepEqual(await statusBody(put(mr, outsider, { description: 'not mine' })), [403, FORBIDDEN]);
    });

    it('public projects: anyone reads, anonymous included', async () => {
      const mr = await open(site, dev, { labels: 'public-label' });
      const anon = await f.api('GET', `/projects/${site.id}/merge_requests/${mr.iid}`, { token: null });
      expectStatus(anon, 200);
      assert.deepEqual(anon.body.user, { can_merge: false });
      const list = await f.api('GET', `/projects/${site.id}/merge_requests?labels=public-label`, { token: null });
      assert.deepEqual(list.body.map((m: any) => m.iid), [mr.iid]);
      const global = await f.api('GET', '/merge_requests?scope=all&labels=public-label', { token: null });
      assert.deepEqual(global.body.map((m: any) => m.id), [mr.id]);
      assert.equal(global.body[0].references.relative, `open/site!${mr.iid}`);
      const mine = await f.api('GET', '/merge_requests', { token: null });
      assert.deepEqual([mine.status, mine.body], [401, { message: '401 Unauthorized' }]);
    });

    it('close and reopen record state events; no-ops record nothing', async () => {
      const mr = await open(app, dev);
      await settled(mr);
      clock.advance(1000);
      const closeAt = clock.now().toISOString();
      const closed = await put(mr, dev2, { state_event: 'close' });
      expectStatus(closed, 200);
      assert.deepEqual([closed.body.state, closed.body.closed_at, closed.body.closed_by, closed.body.detailed_merge_status], ['closed', closeAt, basic(dev2), 'not_open']);
      expectStatus(await put(mr, dev2, { state_event: 'close' }), 200);
      clock.advance(1000);
      const reopenAt = clock.now().toISOString();
      const reopened = await put(mr, dev, { state_event: 'reopen' });
      assert.deepEqual([reopened.body.state, reopened.body.closed_at, reopened.body.closed_by], ['opened', null, null]);
      expectStatus(await put(mr, dev, { state_event: 'reopen' }), 200);
      const common = { issue_id: null, source_commit: null, source_merge_request_id: null };
      assert.deepEqual(await stateEvents(mr.id), [
        { state: 'closed', user_id: dev2.id, created_at: closeAt, ...common },
        { state: 'reopened', user_id: dev.id, created_at: reopenAt, ...common },
      ]);
    });

    it('merge: sha must be the head (409), drafts and closed ones are 405, success records a merged event', async () => {
      const draft = await open(app, dev, { title: 'Draft: not yet' });
      assert.deepEqual(await statusBody(merge(draft, dev)), [405, { message: '405 Method Not Allowed' }]);
      const noBranch = await open(app, dev, { title: 'No branch' });
      assert.deepEqual(await statusBody(merge(noBranch, dev)), [422, { message: 'Branch cannot be merged' }]);
      const source = uniq('ready-');
      await commitFiles(f, app.id, source, { [`${source}.txt`]: 'ready\n', 'README.md': '# App, ready\n' }, { startBranch: 'main' });
      const mr = await open(app, dev, { title: 'Ready', source_branch: source });
      await settled(mr);
      const wrong = 'f'.repeat(40);
      assert.deepEqual(await statusBody(merge(mr, dev, { sha: wrong })), [409, { message: `SHA does not match HEAD of source branch: ${mr.sha}` }]);
      assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/${mr.iid}`)).body.state, 'opened');
      clock.advance(5000);
      const at = clock.now().toISOString();
      const r = await merge(mr, dev2, { sha: mr.sha, squash: true, should_remove_source_branch: true });
      expectStatus(r, 200);
      const m = r.body;
      assert.deepEqual(
        [m.state, m.merged_at, m.merged_by, m.merge_user, m.updated_at, m.detailed_merge_status, m.squash, m.should_remove_source_branch, m.sha],
        ['merged', at, basic(dev2), basic(dev2), at, 'not_open', true, true, mr.sha],
      );
      assert.match(m.merge_commit_sha, SHA);
      assert.match(m.squash_commit_sha, SHA);
      // The merge commit is main's head: parents main's old head and the squash commit; the source branch is gone.
      const main = (await f.api('GET', `/projects/${app.id}/repository/branches/main`)).body.commit;
      assert.equal(main.id, m.merge_commit_sha);
      assert.equal(main.parent_ids[1], m.squash_commit_sha);
      assert.equal(main.title, `Merge branch '${source}' into 'main'`);
      assert.equal((await f.api('GET', `/projects/${app.id}/repository/branches/${source}`)).status, 404);
      const readme = await f.api('GET', `/projects/${app.id}/repository/files/README.md/raw`);
      assert.equal(readme.text, '# App, ready\n');
      assert.deepEqual(await stateEvents(mr.id), [{ state: 'merged', user_id: dev2.id, issue_id: null, source_commit: null, source_merge_request_id: null, created_at: at }]);
      assert.deepEqual(await statusBody(merge(mr, dev)), [405, { message: '405 Method Not Allowed' }]);
      // a merged merge request is not reopened or closed
      const reopen = await put(mr, dev, { state_event: 'reopen' });
      assert.deepEqual([reopen.status, reopen.body.state], [200, 'merged']);
      assert.equal((await put(mr, dev, { state_event: 'close' })).body.state, 'merged');
      assert.equal((await stateEvents(mr.id)).length, 1);
      // without squash there is no squash commit
      const plainBranch = uniq('plain-');
      await commitFiles(f, app.id, plainBranch, { 'plain.txt': 'p\n' }, { startBranch: 'main' });
      const plain = await open(app, dev, { source_branch: plainBranch });
      const merged = await merge(plain, dev);
      assert.deepEqual([merged.body.state, merged.body.squash_commit_sha], ['merged', null]);
      const closed = await open(app, dev);
      await put(closed, dev, { state_event: 'close' });
      assert.deepEqual(await statusBody(merge(closed, dev)), [405, { message: '405 Method Not Allowed' }]);
    });

    it('user_notes_count, upvotes and downvotes are counted per merge request', async () => {
      const a = await open(app, dev);
      const b = await open(app, dev);
      const now = clock.now().toISOString();
      const note = (mrId: number, system: number) => ({ project_id: app.id, noteable_type: 'MergeRequest', noteable_id: mrId, body: 'n', author_id: dev.id, system, internal: 0, created_at: now, updated_at: now });
      await db().insertInto('notes').values([note(a.id, 0), note(a.id, 0), note(a.id, 1), note(b.id, 0)]).execute();
      const award = (mrId: number, name: string, userId: number) => ({ name, user_id: userId, awardable_type: 'MergeRequest', awardable_id: mrId, created_at: now, updated_at: now });
      await db().insertInto('award_emoji').values([award(a.id, 'thumbsup', dev.id), award(a.id, 'thumbsup', dev2.id), award(a.id, 'thumbsdown', reporter.id), award(a.id, 'tada', dev.id), award(b.id, 'thumbsdown', dev.id)]).execute();
      const list = await f.api('GET', `/projects/${app.id}/merge_requests?iids[]=${a.iid}&iids[]=${b.iid}`, { token: dev.token });
      assert.deepEqual(
        list.body.map((m: any) => [m.iid, m.user_notes_count, m.upvotes, m.downvotes]),
        [[b.iid, 1, 0, 1], [a.iid, 2, 2, 1]],
      );
      const one = await f.api('GET', `/projects/${app.id}/merge_requests/${a.iid}`, { token: dev.token });
      assert.deepEqual([one.body.user_notes_count, one.body.upvotes, one.body.downvotes], [2, 2, 1]);
    });

    describe('lists', () => {
      let lab: any;
      let sub: any;
      let inSub: any;
      const mrs: Record<string, any> = {};
      const iids = async (path: string, token: string | null = dev.token) => {
        const r = await f.api('GET', path, { token });
        expectStatus(r, 200);
        return r.body.map((m: any) => m.iid);
      };

      before(async () => {
        lab = await createProject(f, owner.token, { name: 'Lab', namespace_id: team.id });
        await commitFiles(f, lab.id, 'main', { 'README.md': '# Lab\n' });
        await commitFiles(f, lab.id, 'delta', { 'delta.txt': 'd\n' }, { startBranch: 'main' });
        await allowDevelopersToMerge(f, lab.id);
        await addMember(f, 'projects', lab.id, dev.id, 30);
        await addMember(f, 'projects', lab.id, dev2.id, 30);
        await addMember(f, 'projects', lab.id, reporter.id, 20);
        clock.advance(3_600_000);
        mrs.alpha = await open(lab, dev, { title: 'Alpha feature', source_branch: 'alpha', labels: 'bug,ui', assignee_ids: [dev2.id], description: 'needle in text' });
        clock.advance(3_600_000);
        mrs.beta = await open(lab, dev2, { title: 'Draft: Beta', source_branch: 'beta', target_branch: 'stable', labels: 'bug', reviewer_ids: [dev.id] });
        clock.advance(3_600_000);
        mrs.gamma = await open(lab, dev, { title: 'Gamma', source_branch: 'gamma' });
        clock.advance(3_600_000);
        mrs.delta = await open(lab, dev2, { title: 'Delta fix', source_branch: 'delta' });
        await put(mrs.gamma, dev, { state_event: 'close' });
        await merge(mrs.delta, dev);
        sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: team.id });
        inSub = await createProject(f, owner.token, { name: 'Deep', namespace_id: sub.id });
        await addMember(f, 'projects', inSub.id, dev.id, 30);
        mrs.deep = await open(inSub, dev, { title: 'Deep change', source_branch: 'deep', labels: 'bug' });
      });

      it('project list: state, labels, people, branches, search, draft, dates, iids and order', async () => {
        const base = `/projects/${lab.id}/merge_requests`;
        const { alpha, beta, gamma, delta } = mrs;
        assert.deepEqual(await iids(base), [delta.iid, gamma.iid, beta.iid, alpha.iid], 'created_at desc by default, all states');
        assert.deepEqual(await iids(`${base}?state=opened`), [beta.iid, alpha.iid]);
        assert.deepEqual(await iids(`${base}?state=closed`), [gamma.iid]);
        assert.deepEqual(await iids(`${base}?state=merged`), [delta.iid]);
        assert.deepEqual(await iids(`${base}?state=locked`), []);
        assert.deepEqual(await iids(`${base}?labels=bug`), [beta.iid, alpha.iid]);
        assert.deepEqual(await iids(`${base}?labels=bug,ui`), [alpha.iid]);
        assert.deepEqual(await iids(`${base}?labels=None`), [delta.iid, gamma.iid]);
        assert.deepEqual(await iids(`${base}?labels=Any`), [beta.iid, alpha.iid]);
        assert.deepEqual(await iids(`${base}?author_id=${dev2.id}`), [delta.iid, beta.iid]);
        assert.deepEqual(await iids(`${base}?author_username=MRDEV`), [gamma.iid, alpha.iid]);
        assert.deepEqual(await iids(`${base}?assignee_id=${dev2.id}`), [alpha.iid]);
        assert.deepEqual(await iids(`${base}?assignee_id=None`), [delta.iid, gamma.iid, beta.iid]);
        assert.deepEqual(await iids(`${base}?assignee_id=Any`), [alpha.iid]);
        assert.deepEqual(await iids(`${base}?reviewer_id=${dev.id}`), [beta.iid]);
        assert.deepEqual(await iids(`${base}?reviewer_username=mrdev`), [beta.iid]);
        assert.deepEqual(await iids(`${base}?source_branch=gamma`), [gamma.iid]);
        assert.deepEqual(await iids(`${base}?target_branch=stable`), [beta.iid]);
        assert.deepEqual(await iids(`${base}?search=NEEDLE`), [alpha.iid]);
        assert.deepEqual(await iids(`${base}?search=needle&in=title`), []);
        assert.deepEqual(await iids(`${base}?search=fix&in=title`), [delta.iid]);
        assert.deepEqual(await iids(`${base}?wip=yes`), [beta.iid]);
        assert.deepEqual(await iids(`${base}?wip=no&state=opened`), [alpha.iid]);
        assert.deepEqual(await iids(`${base}?draft=true`), [beta.iid]);
        assert.deepEqual(await iids(`${base}?created_after=${encodeURIComponent(beta.created_at)}&created_before=${encodeURIComponent(gamma.created_at)}`), [gamma.iid, beta.iid]);
        assert.deepEqual(await iids(`${base}?updated_after=${encodeURIComponent(delta.created_at)}`), [delta.iid, gamma.iid]);
        assert.deepEqual(await iids(`${base}?iids[]=${alpha.iid}&iids[]=${gamma.iid}`), [gamma.iid, alpha.iid]);
        assert.deepEqual(await iids(`${base}?iids=${alpha.iid},${beta.iid}&sort=asc`), [alpha.iid, beta.iid]);
        assert.deepEqual(await iids(`${base}?order_by=title&sort=asc`), [alpha.iid, delta.iid, beta.iid, gamma.iid]);
        assert.deepEqual(await iids(`${base}?order_by=updated_at`), [delta.iid, gamma.iid, beta.iid, alpha.iid]);
        const bad = await f.api('GET', `${base}?state=weird&order_by=size`, { token: dev.token });
        assert.deepEqual([bad.status, bad.body], [400, { error: 'state does not have a valid value, order_by does not have a valid value' }]);
        const both = await f.api('GET', `${base}?author_id=1&author_username=x`, { token: dev.token });
        assert.deepEqual([both.status, both.body], [400, { error: 'author_id, author_username are mutually exclusive' }]);
      });

      it('pages in SQL with GitLab headers', async () => {
        const r = await f.api('GET', `/projects/${lab.id}/merge_requests?per_page=3&state=all`, { token: dev.token });
        expectStatus(r, 200);
        assert.equal(r.body.length, 3);
        assert.deepEqual(
          ['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page'].map((h) => r.headers.get(h)),
          ['4', '2', '1', '3', '2', ''],
        );
        assert.match(r.headers.get('link') ?? '', /per_page=3&state=all>; rel="next"/);
        const second = await f.api('GET', `/projects/${lab.id}/merge_requests?per_page=3&page=2`, { token: dev.token });
        assert.deepEqual(second.body.map((m: any) => m.iid), [mrs.alpha.iid]);
      });

      it('group list: subgroups included, references relative to the group, private projects need Reporter', async () => {
        const r = await f.api('GET', `/groups/${team.id}/merge_requests?labels=bug&order_by=title&sort=asc`, { token: dev.token });
        expectStatus(r, 200);
        assert.deepEqual(r.body.map((m: any) => [m.title, m.references.relative]), [
          ['Alpha feature', `lab!${mrs.alpha.iid}`],
          ['Deep change', `team/sub/deep!${mrs.deep.iid}`],
          ['Draft: Beta', `lab!${mrs.beta.iid}`],
        ]);
        const byReporter = await f.api('GET', `/groups/${team.id}/merge_requests?labels=bug`, { token: reporter.token });
        assert.deepEqual(byReporter.body.map((m: any) => m.id).sort(), [mrs.alpha.id, mrs.beta.id].sort(), 'not a member of team/sub/deep');
        const byGuest = await f.api('GET', `/groups/${team.id}/merge_requests`, { token: guest.token });
        assert.ok(byGuest.body.every((m: any) => m.project_id !== app.id), 'a Guest of team/app sees none of its merge requests');
        const hidden = await f.api('GET', `/groups/${team.id}/merge_requests`, { token: outsider.token });
        assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }]);
      });

      it('global list: created_by_me by default; assigned_to_me, reviews_for_me, all', async () => {
        const titles = async (query: string, u: User) => (await f.api('GET', `/merge_requests?${query}`, { token: u.token })).body.map((m: any) => m.title);
        const minePaths = await f.api('GET', '/merge_requests?per_page=100', { token: dev2.token });
        assert.ok(minePaths.body.every((m: any) => m.author.id === dev2.id));
        assert.equal(minePaths.body[0].references.relative, minePaths.body[0].references.full);
        assert.deepEqual(await titles('scope=assigned_to_me', dev2), ['Alpha feature', 'Add login'], 'also assigned in the first test');
        assert.deepEqual(await titles('scope=reviews_for_me', dev), ['Draft: Beta']);
        assert.deepEqual(await titles('scope=assigned-to-me&source_branch=alpha', dev2), ['Alpha feature']);
        const all = await f.api('GET', '/merge_requests?scope=all&per_page=100', { token: outsider.token });
        assert.ok(all.body.length > 0 && all.body.every((m: any) => m.project_id === site.id), 'outsiders see public merge requests only');
        const guestAll = await f.api('GET', '/merge_requests?scope=all&per_page=100', { token: guest.token });
        assert.ok(guestAll.body.every((m: any) => m.project_id !== app.id));
      });
    });
  });
}

async function statusBody(r: Promise<ApiResponse>): Promise<[number, unknown]> {
  const res = await r;
  return [res.status, res.body];
}
