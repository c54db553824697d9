import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client merge request approvals and project approval rules`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let project: { id: number; path_with_namespace: string };
    let author: { id: number; username: string; token: string };
    let reviewer: { id: number; username: string; token: string };
    let mr: { iid: number; sha: string };

    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      author = await f.createUser('clauthor');
      reviewer = await f.createUser('clreviewer');
      project = await api.projects.create({ name: 'Client Approvals', path: 'client-approvals' });
      for (const u of [author, reviewer]) await api.projectMembers.add(project.id, { user_id: u.id, access_level: 30 });
      await commitFiles(f, project.id, 'main', { 'README.md': 'x' });
      await commitFiles(f, project.id, 'topic', { 'a.txt': 'a' }, { startBranch: 'main', username: author.username });
      const created = await clientFor(f, { token: author.token }).mergeRequests.create(project.id, { source_branch: 'topic', target_branch: 'main', title: 'Topic' });
      mr = { iid: created.iid, sha: created.sha! };
    });
    after(() => f.stop());

    it('configuration and editConfiguration (POST, only what is given)', async () => {
      const cfg = await api.mergeRequestApprovals.configuration(project.path_with_namespace);
      assert.deepEqual([cfg.reset_approvals_on_push, cfg.merge_requests_author_approval, cfg.approvers], [true, false, []]);
      const { fetch, sent } = recordingFetch();
      const edited = await clientFor(f, { fetch }).mergeRequestApprovals.editConfiguration(project.id, { merge_requests_disable_committers_approval: true });
      assert.equal(edited.merge_requests_disable_committers_approval, true);
      assert.deepEqual([sent[0]!.method, new URL(sent[0]!.url).pathname, JSON.parse(String(sent[0]!.body))], [
        'POST', `/api/v4/projects/${project.id}/approvals`, { merge_requests_disable_committers_approval: true },
      ]);
      const refused = await apiError(api.mergeRequestApprovals.editConfiguration(project.id, { selective_code_owner_removals: true }));
      assert.equal(refused.status, 400);
      await api.mergeRequestApprovals.editConfiguration(project.id, { merge_requests_disable_committers_approval: false });
    });

    it('project rules: create, show, all, edit, remove', async () => {
      const rule = await api.projectApprovalRules.create(project.id, 'Reviewer', 1, { usernames: [reviewer.username] });
      assert.deepEqual([rule.rule_type, rule.users.map((u) => u.id), rule.eligible_approvers.map((u) => u.id)], ['regular', [reviewer.id], [reviewer.id]]);
      assert.deepEqual(await api.projectApprovalRules.show(project.id, rule.id), rule);
      assert.deepEqual((await api.projectApprovalRules.all(project.id).toArray()).map((r) => r.id), [rule.id]);
      const edited = await api.projectApprovalRules.edit(project.id, rule.id, { approvals_required: 1, user_ids: [reviewer.id, author.id] });
      assert.deepEqual(edited.users.map((u) => u.id).sort((a, b) => a - b), [author.id, reviewer.id].sort((a, b) => a - b));
      const extra = await api.projectApprovalRules.create(project.id, 'Extra', 1, { user_ids: [author.id] });
      await api.projectApprovalRules.remove(project.id, extra.id);
      assert.equal((await apiError(api.projectApprovalRules.show(project.id, extra.id))).status, 404);
      await api.projectApprovalRules.edit(project.id, rule.id, { user_ids: [reviewer.id] });
    });

    it('state, approve (stale sha 409), approvalState, unapprove, resetApprovals (401 for a human)', async () => {
      const asReviewer = clientFor(f, { token: reviewer.token }).mergeRequestApprovals;
      const before = await api.mergeRequestApprovals.state(project.id, mr.iid);
      assert.deepEqual([before.approvals_required, before.approvals_left, before.approved], [1, 1, false]);
      const stale = await apiError(asReviewer.approve(project.id, mr.iid, { sha: '0'.repeat(40) }));
      assert.deepEqual([stale.status, stale.body], [409, { message: `SHA does not match HEAD of source branch: ${mr.sha}` }]);
      const approved = await asReviewer.approve(project.id, mr.iid, { sha: mr.sha });
      assert.deepEqual([approved.iid, approved.approvals_left, approved.approved, approved.approved_by.map((a) => a.user.id)], [mr.iid, 0, true, [reviewer.id]]);
      const st = await api.mergeRequestApprovals.approvalState(project.id, mr.iid);
      assert.deepEqual(st.rules.map((r) => [r.name, r.approved]), [['Reviewer', true]]);
      const author401 = await apiError(clientFor(f, { token: author.token }).mergeRequestApprovals.approve(project.id, mr.iid));
      assert.equal(author401.status, 401);
      const human = await apiError(asReviewer.resetApprovals(project.id, mr.iid));
      assert.equal(human.status, 401);
      const un = await asReviewer.unapprove(project.id, mr.iid);
      assert.deepEqual([un.approvals_left, un.approved_by], [1, []]);
    });

    it('merge request rules: createRule, allRules, showRule, editRule, removeRule', async () => {
      const rules = clientFor(f, { token: author.token }).mergeRequestApprovals;
      const rule = await rules.createRule(project.id, mr.iid, 'Just the author', 1, { user_ids: [author.id] });
      assert.deepEqual([rule.name, rule.source_rule, rule.overridden], ['Just the author', null, false]);
      assert.deepEqual((await rules.allRules(project.id, mr.iid).toArray()).map((r) => r.id), [rule.id]);
      assert.deepEqual(await rules.showRule(project.id, mr.iid, rule.id), rule);
      const edited = await rules.editRule(project.id, mr.iid, rule.id, { approvals_required: 0 });
      assert.equal(edited.approvals_required, 0);
      assert.equal((await api.mergeRequestApprovals.approvalState(project.id, mr.iid)).approval_rules_overwritten, true);
      await rules.removeRule(project.id, mr.iid, rule.id);
      assert.deepEqual(await rules.allRules(project.id, mr.iid).toArray(), []);
    });
  });
}
