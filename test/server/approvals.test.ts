/**
 * Merge request approvals: approve / unapprove / reset_approvals, the approval state
 * (`/approvals`, `/approval_state`), what a push does to approvals, `detailed_merge_status`,
 * merging an unapproved merge request, re-authentication and the committers setting.
 * Rules and settings endpoints themselves: approvals-rules.test.ts.
 *
 * The queue is driven by hand (`workers: false`), so the window between a push and its
 * processing (`approvals_syncing` / `checking`) is observable.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const T0 = '2026-04-01T08:00:00.000Z';

for (const dialect of DIALECTS) {
  describe(`${dialect}: merge request approvals`, () => {
    const clock = new ControllableClock();
    let f: TestForgelet;
    let maint: User; // Maintainer of the project
    let author: User; // Developer, author of the merge requests
    let alice: User; // Developer, member of the reviewers group (has a password)
    let bob: User; // Developer, member of the reviewers group
    let carol: User; // Developer, not in the group
    let rep: User; // Reporter
    let outsider: User;
    let reviewers: any; // private group: alice, bob
    let project: any; // private project
    let bot: { id: number; token: string }; // project access token bot (Developer)
    let ruleId: number;
    let n = 0;

    const basic = (u: { id: number; username: string }) => ({
      id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}`,
    });
    const mrPath = (mr: any, suffix = '') => `/projects/${project.id}/merge_requests/${mr.iid}${suffix}`;
    const approve = (mr: any, u: { token: string } | null, body: Record<string, unknown> = {}) =>
      f.api('POST', mrPath(mr, '/approve'), { token: u ? u.token : null, body });
    const approvals = async (mr: any, u: { token: string } = maint) => {
      const r = await f.api('GET', mrPath(mr, '/approvals'), { token: u.token });
      expectStatus(r, 200);
      return r.body;
    };
    const mrOf = async (mr: any) => (await f.api('GET', mrPath(mr), { token: maint.token })).body;
    const settings = async (body: Record<string, unknown>) => expectStatus(await f.api('POST', `/projects/${project.id}/approvals`, { token: maint.token, body }), 201);

    /** A merge request from a new branch off main (authored by `author`), its head one commit past main. */
    async function openMergeRequest(title = 'Change'): Promise<any> {
      n += 1;
      const branch = `feature-${n}`;
      await commitFiles(f, project.id, branch, { [`f${n}.txt`]: 'one' }, { username: author.username, startBranch: 'main' });
      const r = await f.api('POST', `/projects/${project.id}/merge_requests`, {
        token: author.token,
        body: { source_branch: branch, target_branch: 'main', title: `${title} ${n}` },
      });
      expectStatus(r, 201);
      // GitLab's create answer: mergeability being checked, approvals syncing; the queue settles both.
      assert.deepEqual([r.body.merge_status, r.body.detailed_merge_status], ['checking', 'checking']);
      await f.forge.deps.queue.runDue();
      return r.body;
    }

    before(async () => {
      clock.set(new Date(T0), true);
      f = await startTestServer(dialect, { clock, workers: false, testMode: true });
      const mk = async (username: string, password?: string): Promise<User> => {
        const u = await f.api('POST', '/users', { body: { username, name: username, email: `${username}@example.com`, ...(password && { password }) } });
        expectStatus(u, 201);
        const t = await f.api('POST', `/users/${u.body.id}/personal_access_tokens`, { body: { name: 't', scopes: ['api'] } });
        expectStatus(t, 201);
        return { id: u.body.id, username, token: t.body.token };
      };
      maint = await mk('apmaint');
      author = await mk('apauthor');
      alice = await mk('apalice', 'alice-secret-pw');
      bob = await mk('apbob');
      carol = await mk('apcarol');
      rep = await mk('aprep');
      outsider = await mk('apoutsider');
      // alice creates the group (its Owner), so its members are exactly alice and bob.
      reviewers = await createGroup(f, alice.token, { name: 'Reviewers', path: 'ap-reviewers', visibility: 'private' });
      await addMember(f, 'groups', reviewers.id, bob.id, 30);
      project = await createProject(f, f.rootToken, { name: 'Approved', path: 'approved', visibility: 'private' });
      for (const [u, level] of [[maint, 40], [author, 30], [alice, 30], [bob, 30], [carol, 30], [rep, 20]] as const) await addMember(f, 'projects', project.id, u.id, level);
      await commitFiles(f, project.id, 'main', { 'README.md': 'hello' });
      const tok = await f.api('POST', `/projects/${project.id}/access_tokens`, { token: maint.token, body: { name: 'ci bot', scopes: ['api'], access_level: 30 } });
      expectStatus(tok, 201);
      bot = { id: tok.body.user_id, token: tok.body.token };
      // root (admin) can see the private group; a Maintainer outside it could not add it.
      const rule = await f.api('POST', `/projects/${project.id}/approval_rules`, {
        token: f.rootToken,
        body: { name: 'Reviewers', approvals_required: 2, group_ids: [reviewers.id] },
      });
      expectStatus(rule, 201);
      ruleId = rule.body.id;
    });
    after(() => f?.stop());
    beforeEach(async () => {
      // Each test starts from GitLab's defaults.
      await settings({
        reset_approvals_on_push: true, merge_requests_author_approval: false, merge_requests_disable_committers_approval: false,
        require_reauthentication_to_approve: false, disable_overriding_approvers_per_merge_request: false,
      });
      clock.advance(1000);
    });

    it('a rule needing two approvals from a group: state, not_approved, merge refused with 405', async () => {
      const mr = await openMergeRequest();
      const state = await approvals(mr);
      assert.deepEqual(
        {
          id: state.id, iid: state.iid, project_id: state.project_id, title: state.title, state: state.state, merge_status: state.merge_status,
          approved: state.approved, approvals_required: state.approvals_required, approvals_left: state.approvals_left, approved_by: state.approved_by,
          require_password_to_approve: state.require_password_to_approve, user_has_approved: state.user_has_approved, user_can_approve: state.user_can_approve,
          has_approval_rules: state.has_approval_rules, approval_rules_left: state.approval_rules_left,
        },
        {
          id: mr.id, iid: mr.iid, project_id: project.id, title: mr.title, state: 'opened', merge_status: 'can_be_merged',
          approved: false, approvals_required: 2, approvals_left: 2, approved_by: [],
          require_password_to_approve: false, user_has_approved: false, user_can_approve: true,
          has_approval_rules: true, approval_rules_left: [{ id: ruleId, name: 'Reviewers', rule_type: 'regular', report_type: null }],
        },
      );
      // Rules with groups the caller cannot see suggest nobody (GitLab's suggested_approvers).
      assert.deepEqual(state.suggested_approvers, []);
      assert.deepEqual((await approvals(mr, { token: f.rootToken })).suggested_approvers, [basic(alice), basic(bob)]);
      assert.deepEqual(state.approvers, [], 'the deprecated approvers list is the first rule\'s users');
      assert.equal((await mrOf(mr)).detailed_merge_status, 'not_approved');
      const merge = await f.api('PUT', mrPath(mr, '/merge'), { token: maint.token, body: {} });
      assert.deepEqual([merge.status, merge.body], [405, { message: '405 Method Not Allowed' }]);
      // The author may not approve by default: user_can_approve is false for them.
      assert.equal((await approvals(mr, author)).user_can_approve, false);
    });

    it('approve: stale sha 409, two group members approve (approvals_left 0), approval_state, then merge succeeds', async () => {
      const mr = await openMergeRequest();
      const stale = 'a'.repeat(40);
      const r409 = await approve(mr, alice, { sha: stale });
      assert.deepEqual([r409.status, r409.body], [409, { message: `SHA does not match HEAD of source branch: ${mr.sha}` }]);
      assert.equal((await approvals(mr)).approvals_left, 2, 'nothing approved');

      clock.advance(1000);
      const first = await approve(mr, alice, { sha: mr.sha });
      expectStatus(first, 201);
      assert.equal(first.body.iid, mr.iid);
      assert.deepEqual([first.body.approvals_required, first.body.approvals_left, first.body.approved], [2, 1, false]);
      assert.deepEqual(first.body.approved_by, [{ user: basic(alice), approved_at: clock.now().toISOString() }]);
      assert.deepEqual([first.body.user_has_approved, first.body.user_can_approve], [true, false]);

      const again = await approve(mr, alice);
      assert.deepEqual([again.status, again.body], [401, { message: '401 Unauthorized' }], 'already approved');

      const second = await approve(mr, bob);
      expectStatus(second, 201);
      assert.deepEqual([second.body.approvals_left, second.body.approved, second.body.approved_by.map((a: any) => a.user.id)], [0, true, [alice.id, bob.id]]);
      assert.equal((await mrOf(mr)).detailed_merge_status, 'mergeable');

      const st = await f.api('GET', mrPath(mr, '/approval_state'), { token: carol.token });
      expectStatus(st, 200);
      assert.equal(st.body.approval_rules_overwritten, false);
      assert.equal(st.body.rules.length, 1);
      const rule = st.body.rules[0];
      assert.deepEqual(
        { id: rule.id, name: rule.name, rule_type: rule.rule_type, approvals_required: rule.approvals_required, approved: rule.approved, approved_by: rule.approved_by, source_rule: rule.source_rule, overridden: rule.overridden, code_owner: rule.code_owner },
        { id: ruleId, name: 'Reviewers', rule_type: 'regular', approvals_required: 2, approved: true, approved_by: [basic(alice), basic(bob)], source_rule: null, overridden: false, code_owner: false },
      );
      assert.deepEqual(rule.eligible_approvers, [basic(alice), basic(bob)]);
      // carol cannot see the private group: it is hidden from her.
      assert.deepEqual([rule.groups, rule.contains_hidden_groups], [[], true]);

      const merged = await f.api('PUT', mrPath(mr, '/merge'), { token: maint.token, body: {} });
      expectStatus(merged, 200);
      assert.equal(merged.body.state, 'merged');
    });

    it('an approval from someone outside the rule does not count; Reporter 403, outsider 404, anonymous 401', async () => {
      const mr = await openMergeRequest();
      const byCarol = await approve(mr, carol);
      expectStatus(byCarol, 201);
      assert.deepEqual([byCarol.body.approvals_left, byCarol.body.approved_by.map((a: any) => a.user.id)], [2, [carol.id]]);
      assert.deepEqual(await approve(mr, rep).then((r) => [r.status, r.body]), [403, { message: '403 Forbidden' }]);
      assert.deepEqual(await approve(mr, outsider).then((r) => [r.status, r.body]), [404, { message: '404 Project Not Found' }]);
      assert.deepEqual(await approve(mr, null).then((r) => [r.status, r.body]), [401, { message: '401 Unauthorized' }]);
      const missing = await approve({ iid: 9999 }, alice);
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Merge Request Not Found' }]);
    });

    it('unapprove: 404 when not approved, 201 with the state otherwise', async () => {
      const mr = await openMergeRequest();
      expectStatus(await approve(mr, alice), 201);
      const none = await f.api('POST', mrPath(mr, '/unapprove'), { token: bob.token, body: {} });
      assert.deepEqual([none.status, none.body], [404, { message: '404 Not Found' }]);
      const r = await f.api('POST', mrPath(mr, '/unapprove'), { token: alice.token, body: {} });
      expectStatus(r, 201);
      assert.deepEqual([r.body.iid, r.body.approvals_left, r.body.approved_by, r.body.user_has_approved, r.body.user_can_approve], [mr.iid, 2, [], false, true]);
      assert.equal((await f.api('POST', mrPath(mr, '/unapprove'), { token: rep.token, body: {} })).status, 403);
    });

    it('author approval: refused (401) by default, allowed when merge_requests_author_approval', async () => {
      const mr = await openMergeRequest();
      const refused = await approve(mr, author);
      assert.deepEqual([refused.status, refused.body], [401, { message: '401 Unauthorized' }]);
      await settings({ merge_requests_author_approval: true });
      assert.equal((await approvals(mr, author)).user_can_approve, true);
      const ok = await approve(mr, author);
      expectStatus(ok, 201);
      assert.deepEqual(ok.body.approved_by.map((a: any) => a.user.id), [author.id]);
      // The author is now among the eligible approvers of the any-approver count, not of the group rule.
      assert.equal(ok.body.approvals_left, 2);
    });

    it('a push resets approvals: checking, then approvals_syncing until the sync 10 s later; with reset_approvals_on_push false they stay', async () => {
      const mr = await openMergeRequest();
      expectStatus(await approve(mr, alice), 201);
      expectStatus(await approve(mr, bob), 201);
      assert.equal((await mrOf(mr)).detailed_merge_status, 'mergeable');

      const sha = await commitFiles(f, project.id, mr.source_branch, { 'more.txt': 'two' }, { username: author.username });
      // The first read after the push starts the mergeability check (GitLab's check_mergeability(async: true)).
      let seen = await mrOf(mr);
      assert.deepEqual([seen.sha, seen.merge_status, seen.detailed_merge_status], [sha, 'checking', 'checking']);
      let state = await approvals(mr);
      assert.deepEqual([state.approved_by, state.approvals_left, state.merge_status], [[], 2, 'checking']);
      assert.ok((await f.forge.deps.queue.runDue()) >= 1);
      // Checked; the approvals reset by the push sync 10 s after it (MergeRequestResetApprovalsWorker.perform_in).
      seen = await mrOf(mr);
      assert.deepEqual([seen.merge_status, seen.detailed_merge_status], ['can_be_merged', 'approvals_syncing']);
      clock.advance(10_000);
      assert.ok((await f.forge.deps.queue.runDue()) >= 1);
      seen = await mrOf(mr);
      assert.deepEqual([seen.merge_status, seen.detailed_merge_status], ['can_be_merged', 'not_approved']);

      // The old head is now stale.
      assert.equal((await approve(mr, alice, { sha: mr.sha })).status, 409);
      await settings({ reset_approvals_on_push: false });
      expectStatus(await approve(mr, alice, { sha }), 201);
      expectStatus(await approve(mr, bob, { sha }), 201);
      const sha2 = await commitFiles(f, project.id, mr.source_branch, { 'more.txt': 'three' }, { username: author.username });
      seen = await mrOf(mr);
      assert.deepEqual([seen.sha, seen.detailed_merge_status], [sha2, 'checking']);
      state = await approvals(mr);
      assert.deepEqual([state.approved_by.map((a: any) => a.user.id), state.approvals_left], [[alice.id, bob.id], 0]);
      await f.forge.deps.queue.runDue();
      assert.equal((await mrOf(mr)).detailed_merge_status, 'mergeable');
    });

    it('reset_approvals: a project bot gets 202 and every approval goes; a human gets 401', async () => {
      const mr = await openMergeRequest();
      expectStatus(await approve(mr, alice), 201);
      expectStatus(await approve(mr, bob), 201);
      for (const human of [maint, alice, null]) {
        const r = await f.api('PUT', mrPath(mr, '/reset_approvals'), { token: human ? human.token : null, body: {} });
        assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }]);
      }
      assert.equal((await approvals(mr)).approved_by.length, 2);
      const r = await f.api('PUT', mrPath(mr, '/reset_approvals'), { token: bot.token, body: {} });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      const state = await approvals(mr);
      assert.deepEqual([state.approved_by, state.approvals_left], [[], 2]);
      // The bot may approve too (it is a Developer of the project).
      expectStatus(await approve(mr, bot), 201);
    });

    it('reset_approvals on a merged merge request is 401 even for a bot', async () => {
      const mr = await openMergeRequest();
      expectStatus(await approve(mr, alice), 201);
      expectStatus(await approve(mr, bob), 201);
      expectStatus(await f.api('PUT', mrPath(mr, '/merge'), { token: maint.token, body: {} }), 200);
      const r = await f.api('PUT', mrPath(mr, '/reset_approvals'), { token: bot.token, body: {} });
      assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }]);
    });

    it('re-authentication: approval_password must be the user\'s password (401 otherwise); require_password_to_approve is the same setting', async () => {
      const mr = await openMergeRequest();
      await settings({ require_password_to_approve: true });
      const cfg = await f.api('GET', `/projects/${project.id}/approvals`, { token: alice.token });
      assert.deepEqual([cfg.body.require_password_to_approve, cfg.body.require_reauthentication_to_approve], [true, true]);
      assert.equal((await approvals(mr)).require_password_to_approve, true);
      for (const body of [{}, { approval_password: 'wrong' }]) {
        const r = await approve(mr, alice, body);
        assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }], JSON.stringify(body));
      }
      // bob has no password at all: always refused.
      assert.equal((await approve(mr, bob, { approval_password: 'anything' })).status, 401);
      expectStatus(await approve(mr, alice, { approval_password: 'alice-secret-pw' }), 201);
    });

    it('committers: refused (401) when merge_requests_disable_committers_approval, and not counted as approvers', async () => {
      const mr = await openMergeRequest();
      // bob pushes a commit to the source branch: he becomes a committer.
      await settings({ reset_approvals_on_push: false, merge_requests_disable_committers_approval: true });
      await commitFiles(f, project.id, mr.source_branch, { 'bob.txt': 'by bob' }, { username: bob.username });
      await f.forge.deps.queue.runDue();
      const byBob = await approve(mr, bob);
      assert.deepEqual([byBob.status, byBob.body], [401, { message: '401 Unauthorized' }]);
      const state = await approvals(mr, bob);
      assert.equal(state.user_can_approve, false);
      assert.deepEqual(state.suggested_approvers, [basic(alice)]);
      expectStatus(await approve(mr, alice), 201);
      // root committed only on main (README.md): commits the target has are not the merge request's.
      expectStatus(await approve(mr, { token: f.rootToken }), 201);
      await settings({ merge_requests_disable_committers_approval: false });
      expectStatus(await approve(mr, bob), 201);
    });

    it('merge request rules override the project rules when overriding is allowed', async () => {
      const mr = await openMergeRequest();
      const created = await f.api('POST', mrPath(mr, '/approval_rules'), { token: author.token, body: { name: 'Just carol', approvals_required: 1, user_ids: [carol.id] } });
      expectStatus(created, 201);
      let st = (await f.api('GET', mrPath(mr, '/approval_state'), { token: maint.token })).body;
      assert.equal(st.approval_rules_overwritten, true);
      assert.deepEqual(st.rules.map((r: any) => [r.name, r.approvals_required, r.eligible_approvers.map((u: any) => u.id)]), [['Just carol', 1, [carol.id]]]);
      assert.deepEqual([(await approvals(mr)).approvals_required], [1]);
      expectStatus(await approve(mr, carol), 201);
      assert.equal((await mrOf(mr)).detailed_merge_status, 'mergeable');
      // When the project disables overriding, its own rules apply again and MR rules cannot be written.
      await settings({ disable_overriding_approvers_per_merge_request: true });
      st = (await f.api('GET', mrPath(mr, '/approval_state'), { token: maint.token })).body;
      assert.deepEqual([st.approval_rules_overwritten, st.rules.map((r: any) => r.id)], [false, [ruleId]]);
      const refused = await f.api('POST', mrPath(mr, '/approval_rules'), { token: author.token, body: { name: 'Other', approvals_required: 1 } });
      assert.deepEqual([refused.status, refused.body], [403, { message: '403 Forbidden' }]);
    });

    it('several space-separated values in :id or :merge_request_iid are refused with 400', async () => {
      const mr = await openMergeRequest();
      const badIid = await f.api('POST', `/projects/${project.id}/merge_requests/${mr.iid}%20${mr.iid}/approve`, { token: alice.token, body: {} });
      assert.deepEqual([badIid.status, badIid.body], [400, { error: 'merge_request_iid is invalid' }]);
      const badId = await f.api('GET', `/projects/${project.id}%20${project.id}/merge_requests/${mr.iid}/approvals`, { token: alice.token });
      assert.deepEqual([badId.status, badId.body], [400, { error: 'id is invalid' }]);
      const badCfg = await f.api('GET', `/projects/${project.id}%20${project.id}/approvals`, { token: alice.token });
      assert.deepEqual([badCfg.status, badCfg.body], [400, { error: 'id is invalid' }]);
      const badReset = await f.api('PUT', `/projects/${project.id}/merge_requests/1%202/reset_approvals`, { token: bot.token, body: {} });
      assert.deepEqual([badReset.status, badReset.body], [400, { error: 'merge_request_iid is invalid' }]);
    });

    it('below Premium no rule applies: nothing required, mergeable', async () => {
      const mr = await openMergeRequest();
      expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'free' } }), 200);
      try {
        const state = await approvals(mr);
        assert.deepEqual(
          [state.approvals_required, state.approvals_left, state.approved, state.has_approval_rules, state.merge_request_approvers_available],
          [0, 0, true, false, false],
        );
        assert.equal((await mrOf(mr)).detailed_merge_status, 'mergeable');
      } finally {
        expectStatus(await f.api('PUT', '/forgelet/tier', { body: { tier: 'ultimate' } }), 200);
      }
      assert.equal((await approvals(mr)).approvals_required, 2);
    });

    it('deleting an approved merge request deletes its approvals and its own rules', async () => {
      const mr = await openMergeRequest();
      expectStatus(await approve(mr, alice), 201);
      expectStatus(await f.api('POST', mrPath(mr, '/approval_rules'), { token: author.token, body: { name: 'Own', approvals_required: 1 } }), 201);
      expectStatus(await f.api('DELETE', mrPath(mr)), 204);
      const db = f.forge.database.db;
      assert.equal((await db.selectFrom('merge_request_approvals').selectAll().where('merge_request_id', '=', mr.id).execute()).length, 0);
      assert.equal((await db.selectFrom('approval_rules').selectAll().where('merge_request_id', '=', mr.id).execute()).length, 0);
    });

    it('every approvals route needs authentication (401 for anonymous callers)', async () => {
      const mr = await openMergeRequest();
      const routes: [string, string][] = [
        ['GET', `/projects/${project.id}/approvals`], ['POST', `/projects/${project.id}/approvals`],
        ['GET', `/projects/${project.id}/approval_rules`], ['POST', `/projects/${project.id}/approval_rules`],
        ['GET', `/projects/${project.id}/approval_rules/${ruleId}`], ['PUT', `/projects/${project.id}/approval_rules/${ruleId}`],
        ['DELETE', `/projects/${project.id}/approval_rules/${ruleId}`],
        ['GET', mrPath(mr, '/approvals')], ['GET', mrPath(mr, '/approval_state')], ['POST', mrPath(mr, '/approve')],
        ['POST', mrPath(mr, '/unapprove')], ['PUT', mrPath(mr, '/reset_approvals')], ['GET', mrPath(mr, '/approval_rules')],
        ['POST', mrPath(mr, '/approval_rules')],
      ];
      for (const [method, path] of routes) {
        const r = await f.api(method, path, { token: null, ...(method !== 'GET' && { body: {} }) });
        assert.deepEqual([r.status, r.body], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
      }
    });
  });
}
