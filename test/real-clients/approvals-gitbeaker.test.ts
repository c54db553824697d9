/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: merge request approvals.
 * A project rule needs two approvals from a group; an approval with a stale sha is refused
 * (409); two group members approve (approvals_left 0); the author is refused by default and
 * allowed once the project says so; a push resets the approvals; reset_approvals works for a
 * project access token's bot and is 401 for a human.
 *
 * gitbeaker has no method for `PUT …/reset_approvals` (REAL-CLIENTS.md §2.8), so that call
 * goes through the resource's own requester (same headers, same error handling). The push is
 * committed through the commits API (test/support/repository.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure } from './support.js';

type Client = InstanceType<typeof Gitlab>;

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 merge request approvals`, () => {
    let f: ServedForgelet;
    let root: Client;
    const users: Record<string, { id: number; client: Client }> = {};
    let groupId: number;
    let projectId: number;
    let mr: { iid: number; sha: string };
    let ruleId: number;
    let bot: Client;

    const as = (name: string) => users[name]!.client;
    const state = (client: Client = root) => client.MergeRequestApprovals.showConfiguration(projectId, { mergerequestIId: mr.iid }) as Promise<any>;
    /** gitbeaker has no resetApprovals: the resource's requester sends the PUT with the client's credentials. */
    const resetApprovals = (client: Client) =>
      (client.MergeRequestApprovals as any).requester.put(`projects/${projectId}/merge_requests/${mr.iid}/reset_approvals`, { body: {} });

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect);
      root = new Gitlab({ host: f.url, token: f.rootToken });
      for (const name of ['gbauthor', 'gbalice', 'gbbob']) {
        const u = await root.Users.create({ username: name, name, email: `${name}@example.com` });
        const pat = await root.Users.createPersonalAccessToken(u.id, 'approvals', ['api']);
        users[name] = { id: u.id, client: new Gitlab({ host: f.url, token: pat.token! }) };
      }
      // alice creates the reviewers group (its Owner) and adds bob.
      const group = await as('gbalice').Groups.create('GB Reviewers', 'gb-reviewers', { visibility: 'private' });
      groupId = group.id;
      await as('gbalice').GroupMembers.add(groupId, 30, { userId: users.gbbob!.id });
      const project = await root.Projects.create({ name: 'GB Approvals', path: 'gb-approvals', visibility: 'private' });
      projectId = project.id;
      for (const name of ['gbauthor', 'gbalice', 'gbbob']) await root.ProjectMembers.add(projectId, 30, { userId: users[name]!.id });
      await commitFiles(f, projectId, 'main', { 'README.md': 'hello' });
      await commitFiles(f, projectId, 'feature', { 'feature.txt': 'one' }, { username: 'gbauthor', startBranch: 'main' });
      const created = await as('gbauthor').MergeRequests.create(projectId, 'feature', 'main', 'Needs two reviewers');
      mr = { iid: created.iid, sha: created.sha as string };
      const expires = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
      const token = await root.ProjectAccessTokens.create(projectId, 'gb bot', ['api'], expires, { accessLevel: 30 });
      bot = new Gitlab({ host: f.url, token: (token as any).token });
      console.log(`[${dialect}] gitbeaker approvals setup: ${Math.round(performance.now() - t0)} ms`);
    });
    after(() => f?.stop());

    it('createApprovalRule: two approvals from a group (root sees the private group); showApprovalRule, allApprovalRules, editApprovalRule', async () => {
      const rule: any = await root.MergeRequestApprovals.createApprovalRule(projectId, 'Reviewers', 2, { groupIds: [groupId], ruleType: 'regular' });
      ruleId = rule.id;
      assert.deepEqual([rule.name, rule.rule_type, rule.approvals_required, rule.groups.map((g: any) => g.id)], ['Reviewers', 'regular', 2, [groupId]]);
      assert.deepEqual(rule.eligible_approvers.map((u: any) => u.username), ['gbalice', 'gbbob']);
      const shown: any = await root.MergeRequestApprovals.showApprovalRule(projectId, ruleId);
      assert.deepEqual(shown, rule);
      const all: any[] = await root.MergeRequestApprovals.allApprovalRules(projectId);
      assert.deepEqual(all.map((r) => r.id), [ruleId]);
      // editApprovalRule always sends name and approvals_required.
      const edited: any = await root.MergeRequestApprovals.editApprovalRule(projectId, ruleId, 'Reviewers', 2, { groupIds: [groupId] });
      assert.deepEqual([edited.name, edited.approvals_required, edited.groups.map((g: any) => g.id)], ['Reviewers', 2, [groupId]]);
      const s = await state();
      assert.deepEqual([s.iid, s.approvals_required, s.approvals_left, s.approved], [mr.iid, 2, 2, false]);
    });

    it('approve with a stale sha is 409 naming the head; alice and bob approve: approvals_left 0, approved', async () => {
      const stale = await gitbeakerFailure(as('gbalice').MergeRequestApprovals.approve(projectId, mr.iid, { sha: 'b'.repeat(40) }));
      assert.deepEqual(stale, { status: 409, message: `SHA does not match HEAD of source branch: ${mr.sha}` });
      const first: any = await as('gbalice').MergeRequestApprovals.approve(projectId, mr.iid, { sha: mr.sha });
      assert.deepEqual([first.iid, first.approvals_left, first.approved_by.map((a: any) => a.user.username)], [mr.iid, 1, ['gbalice']]);
      const second: any = await as('gbbob').MergeRequestApprovals.approve(projectId, mr.iid, { sha: mr.sha });
      assert.deepEqual([second.approvals_required, second.approvals_left, second.approved], [2, 0, true]);
      const st: any = await root.MergeRequestApprovals.showApprovalState(projectId, mr.iid);
      assert.deepEqual(st.rules.map((r: any) => [r.id, r.approved, r.approved_by.map((u: any) => u.username)]), [[ruleId, true, ['gbalice', 'gbbob']]]);
      // The mergeability check the creation started runs on the server's queue: poll past `checking`.
      let shown = await root.MergeRequests.show(projectId, mr.iid);
      for (let i = 0; i < 100 && shown.detailed_merge_status === 'checking'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        shown = await root.MergeRequests.show(projectId, mr.iid);
      }
      assert.equal(shown.detailed_merge_status, 'mergeable');
    });

    it('the author is refused (401) by default and allowed once editConfiguration sets merge_requests_author_approval', async () => {
      const refused = await gitbeakerFailure(as('gbauthor').MergeRequestApprovals.approve(projectId, mr.iid));
      assert.deepEqual(refused, { status: 401, message: '401 Unauthorized' });
      const cfg: any = await root.MergeRequestApprovals.editConfiguration(projectId, { mergeRequestsAuthorApproval: true });
      assert.deepEqual([cfg.merge_requests_author_approval, cfg.reset_approvals_on_push, cfg.approvers, cfg.approver_groups], [true, true, [], []]);
      assert.equal(((await root.MergeRequestApprovals.showConfiguration(projectId)) as any).merge_requests_author_approval, true);
      const ok: any = await as('gbauthor').MergeRequestApprovals.approve(projectId, mr.iid);
      assert.deepEqual(ok.approved_by.map((a: any) => a.user.username), ['gbalice', 'gbbob', 'gbauthor']);
      const unapproved: any = await as('gbauthor').MergeRequestApprovals.unapprove(projectId, mr.iid);
      assert.deepEqual(unapproved.approved_by.map((a: any) => a.user.username), ['gbalice', 'gbbob']);
    });

    it('a push to the source branch resets the approvals', async () => {
      const sha = await commitFiles(f, projectId, 'feature', { 'feature.txt': 'two' }, { username: 'gbauthor' });
      const s = await state();
      assert.deepEqual([s.approved_by, s.approvals_left, s.approved], [[], 2, false]);
      mr.sha = sha;
      const shown = await root.MergeRequests.show(projectId, mr.iid);
      assert.equal(shown.sha, sha);
      // The first read after the push starts the mergeability check.
      assert.equal(shown.detailed_merge_status, 'checking');
    });

    it('reset_approvals: 401 for a human, 202 for the project access token bot', async () => {
      await as('gbalice').MergeRequestApprovals.approve(projectId, mr.iid, { sha: mr.sha });
      const human = await gitbeakerFailure(resetApprovals(as('gbalice')));
      assert.deepEqual(human, { status: 401, message: '401 Unauthorized' });
      assert.equal((await state()).approved_by.length, 1);
      const byBot = await resetApprovals(bot);
      assert.equal(byBot.status, 202);
      assert.deepEqual(byBot.body, { message: '202 Accepted' });
      assert.deepEqual((await state()).approved_by, []);
    });
  });
}
