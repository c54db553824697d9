/**
 * python-gitlab 3.12 (Debian python3-gitlab, run with /usr/bin/python3) against the served
 * Forgelet (`bin/forgelet.js serve`, as users start it): merge request approvals. The flow lives
 * in python_gitlab_approvals.py; the set-up (users, group, project, branches, merge request, a
 * project access token) and the push happen here. A rule needs two approvals from a group; a stale
 * sha is refused (409); two members approve (approvals_left 0); the author is refused by default
 * and allowed once configured; a push resets the approvals; reset_approvals is 401 for a human and
 * works for the project bot.
 *
 * Without python-gitlab the file is skipped with the reason, except under CI, where it fails.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startServed, until, type ServedForgelet } from '../support/served.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from '../server/http.js';
import { probePythonGitlab, pythonStep, runPythonStepsWithPauses, type PythonStep } from './support.js';
import { toolSkip } from '../support/tools.js';

const SCRIPT = fileURLToPath(new URL('./python_gitlab_approvals.py', import.meta.url));

const skip = toolSkip('python-gitlab', probePythonGitlab());

for (const dialect of DIALECTS) {
  describe(`${dialect}: python-gitlab 3.12 merge request approvals`, { skip }, () => {
    let f: ServedForgelet;
    let results: Record<string, PythonStep>;
    let pushed = '';
    let groupId: number;
    let projectId: number;
    let mrIid: number;
    const stepOf = (name: string): PythonStep => {
      const s = pythonStep(results, name);
      assert.deepEqual(s.warnings, [], `python step ${name} warned`);
      return s;
    };

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect);
      const [author, alice, bob] = await createUsers(f, ['pyauthor', 'pyalice', 'pybob']);
      const group = await createGroup(f, alice!.token, { name: 'Py Reviewers', path: 'py-reviewers', visibility: 'private' });
      groupId = group.id;
      await addMember(f, 'groups', groupId, bob!.id, 30);
      const project = await createProject(f, f.rootToken, { name: 'Py Approvals', path: 'py-approvals', visibility: 'private' });
      projectId = project.id;
      for (const u of [author!, alice!, bob!]) await addMember(f, 'projects', projectId, u.id, 30);
      await commitFiles(f, projectId, 'main', { 'README.md': 'hello' });
      await commitFiles(f, projectId, 'feature', { 'feature.txt': 'one' }, { username: 'pyauthor', startBranch: 'main' });
      const mr = await f.api('POST', `/projects/${projectId}/merge_requests`, { token: author!.token, body: { source_branch: 'feature', target_branch: 'main', title: 'Two reviewers' } });
      expectStatus(mr, 201);
      mrIid = mr.body.iid;
      // The creation's mergeability check runs on the server's queue (`checking` until then).
      await until('the mergeability check', async () => (await f.api('GET', `/projects/${projectId}/merge_requests/${mrIid}`)).body.merge_status !== 'checking');
      const tok = await f.api('POST', `/projects/${projectId}/access_tokens`, { body: { name: 'py bot', scopes: ['api'], access_level: 30 } });
      expectStatus(tok, 201);
      const setupMs = Math.round(performance.now() - t0);
      const run = await runPythonStepsWithPauses(
        SCRIPT,
        {
          FORGELET_URL: f.url, ROOT_TOKEN: f.rootToken, AUTHOR_TOKEN: author!.token, ALICE_TOKEN: alice!.token, BOB_TOKEN: bob!.token,
          BOT_TOKEN: tok.body.token, PROJECT_ID: String(projectId), MR_IID: String(mrIid), GROUP_ID: String(groupId),
        },
        {
          push: async () => {
            pushed = await commitFiles(f, projectId, 'feature', { 'feature.txt': 'two' }, { username: 'pyauthor' });
            return pushed;
          },
        },
      );
      results = run.results;
      const steps = Object.entries(results).filter(([, v]) => typeof v === 'object').map(([k, v]) => `${k}=${v.ms}ms`).join(' ');
      console.log(`[${dialect}] python-gitlab approvals: setup ${setupMs} ms; script ${run.ms} ms (${steps})`);
    });
    after(() => f?.stop());

    it('approvalrules.create: two approvals from the group; list, update; approvals.get shows the defaults', () => {
      assert.match(String(results.version), /^3\./);
      const s = stepOf('rule');
      assert.deepEqual(s.rule, {
        id: s.rule.id, name: 'Reviewers', rule_type: 'regular', approvals_required: 2, groups: [groupId], eligible_approvers: ['pyalice', 'pybob'],
      });
      assert.deepEqual(s.listed, [s.rule.id]);
      assert.deepEqual(s.updated_groups, [groupId]);
      // python-gitlab adds the parent's id (`project_id`, a string) to the object's attributes.
      assert.deepEqual(s.settings, {
        project_id: String(projectId), approvers: [], approver_groups: [], approvals_before_merge: 0, reset_approvals_on_push: true, selective_code_owner_removals: false,
        disable_overriding_approvers_per_merge_request: false, merge_requests_author_approval: false, merge_requests_disable_committers_approval: false,
        require_password_to_approve: false, require_reauthentication_to_approve: false,
      });
      assert.deepEqual(s.state, { approvals_required: 2, approvals_left: 2, approved: false, approved_by: [] });
      const create = s.exchanges.find(([m, p]: [string, string]) => m === 'POST' && p.endsWith('/approval_rules'));
      assert.deepEqual(create, ['POST', `/projects/${projectId}/approval_rules`, 201, { name: 'Reviewers', approvals_required: 2, group_ids: [groupId], rule_type: 'regular' }]);
    });

    it('mr.approve(sha=stale) raises GitlabMRApprovalError 409; alice and bob approve: approvals_left 0, mergeable', () => {
      const s = stepOf('approve');
      assert.deepEqual(s.stale, { type: 'GitlabMRApprovalError', response_code: 409, message: `SHA does not match HEAD of source branch: ${s.head}` });
      assert.deepEqual(s.after_first, { iid: mrIid, approvals_left: 1 });
      assert.deepEqual(s.after_second, { iid: mrIid, approvals_left: 0, approved: true });
      assert.deepEqual(s.state, { approvals_required: 2, approvals_left: 0, approved: true, approved_by: ['pyalice', 'pybob'] });
      assert.deepEqual(s.rules, [['Reviewers', true, ['pyalice', 'pybob']]]);
      assert.equal(s.detailed_merge_status, 'mergeable');
      const approves = s.exchanges.filter(([m, p]: [string, string]) => m === 'POST' && p.endsWith('/approve'));
      assert.deepEqual(approves.map(([, , status, body]: [string, string, number, unknown]) => [status, body]), [
        [409, { sha: 'c'.repeat(40) }], [201, { sha: s.head }], [201, { sha: s.head }],
      ]);
    });

    it('the author is refused (GitlabAuthenticationError 401) by default; approvals.save() with merge_requests_author_approval allows it', () => {
      const s = stepOf('author');
      assert.deepEqual(s.refused, { type: 'GitlabAuthenticationError', response_code: 401, message: '401 Unauthorized' });
      assert.equal(s.after_save, true);
      assert.deepEqual(s.allowed.approved_by, ['pyalice', 'pybob', 'pyauthor']);
      assert.deepEqual(s.after_unapprove.approved_by, ['pyalice', 'pybob']);
      const save = s.exchanges.find(([m, p]: [string, string]) => m === 'POST' && p === `/projects/${projectId}/approvals`);
      assert.deepEqual(save, ['POST', `/projects/${projectId}/approvals`, 201, { merge_requests_author_approval: true }]);
    });

    it('a push to the source branch resets the approvals', () => {
      const s = stepOf('push');
      assert.deepEqual(s.before.approved_by, ['pyalice', 'pybob']);
      assert.equal(s.new_sha, pushed);
      assert.equal(s.sha, pushed);
      assert.equal(s.status, 'checking', 'the first read after the push starts the check');
      assert.deepEqual(s.after, { approvals_required: 2, approvals_left: 2, approved: false, approved_by: [] });
    });

    it('the spec\'s guidance: poll until neither checking nor approvals_syncing and a patch_id_sha on the newest version, then approve', () => {
      const s = stepOf('guidance');
      // The push step's read started the check (and saw `checking`): it may be done by the first
      // read here. Approvals reset by the push sync 10 s after it.
      assert.ok(['checking', 'approvals_syncing'].includes(s.seen[0]), s.seen.join(' → '));
      assert.ok(s.seen.includes('approvals_syncing'), s.seen.join(' → '));
      assert.equal(s.seen.at(-1), 'not_approved');
      assert.deepEqual([s.head, s.versions, s.approved_by], [pushed, 2, ['pyalice']]);
      assert.match(s.patch_id_sha, /^[0-9a-f]{40}$/);
    });

    it('mr.reset_approvals(): GitlabAuthenticationError 401 for a human, 202 for the project bot', () => {
      const s = stepOf('reset');
      assert.deepEqual(s.before.approved_by, ['pyalice']);
      assert.deepEqual(s.human, { type: 'GitlabAuthenticationError', response_code: 401, message: '401 Unauthorized' });
      assert.deepEqual(s.after_human.approved_by, ['pyalice']);
      assert.deepEqual(s.by_bot, { message: '202 Accepted' });
      assert.deepEqual(s.after_bot.approved_by, []);
      const puts = s.exchanges.filter(([m]: [string]) => m === 'PUT');
      assert.deepEqual(puts.map(([, p, status, body]: [string, string, number, unknown]) => [p, status, body]), [
        [`/projects/${projectId}/merge_requests/${mrIid}/reset_approvals`, 401, {}],
        [`/projects/${projectId}/merge_requests/${mrIid}/reset_approvals`, 202, {}],
      ]);
    });
  });
}
