/**
 * Project approval configuration (`/projects/:id/approvals`), project approval rules
 * (`/projects/:id/approval_rules`) and merge request rules (`…/merge_requests/:iid/approval_rules`):
 * shapes, defaults, validation messages, permissions, pagination, hidden groups, branch scoping.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };

const DEFAULTS = {
  approvers: [],
  approver_groups: [],
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  selective_code_owner_removals: false,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
  require_reauthentication_to_approve: false,
};

for (const dialect of DIALECTS) {
  describe(`${dialect}: approval settings and rules`, () => {
    let f: TestForgelet;
    let maint: User;
    let dev: User;
    let dev2: User;
    let rep: User;
    let outsider: User;
    let gowner: User; // owner of the private group
    let secret: any; // private group (gowner, dev)
    let open: any; // public group (gowner)
    let project: any;
    let other: any; // another project (its protected branch must not be attachable)

    const base = () => `/projects/${project.id}`;
    const basic = (u: { id: number; username: string }) => ({
      id: u.id, username: u.username, name: u.username, state: 'active', locked: false, avatar_url: null, web_url: `${f.url}/${u.username}`,
    });
    const post = (body: Record<string, unknown>, u: { token: string } = maint) => f.api('POST', `${base()}/approval_rules`, { token: u.token, body });
    const put = (id: number, body: Record<string, unknown>, u: { token: string } = maint) =>
      f.api('PUT', `${base()}/approval_rules/${id}`, { token: u.token, body });

    before(async () => {
      f = await startTestServer(dialect);
      [maint, dev, dev2, rep, outsider, gowner] = await createUsers(f, ['rlmaint', 'rldev', 'rldev2', 'rlrep', 'rloutsider', 'rlgowner']);
      secret = await createGroup(f, gowner.token, { name: 'Secret', path: 'rl-secret', visibility: 'private' });
      await addMember(f, 'groups', secret.id, dev.id, 30);
      open = await createGroup(f, gowner.token, { name: 'Open', path: 'rl-open', visibility: 'public' });
      project = await createProject(f, f.rootToken, { name: 'Rules', path: 'rules', visibility: 'private' });
      other = await createProject(f, f.rootToken, { name: 'Other', path: 'rules-other', visibility: 'private' });
      for (const [u, level] of [[maint, 40], [dev, 30], [dev2, 30], [rep, 20]] as const) await addMember(f, 'projects', project.id, u.id, level);
      await commitFiles(f, project.id, 'main', { 'README.md': 'x' });
      await commitFiles(f, other.id, 'main', { 'README.md': 'x' });
    });
    after(() => f?.stop());

    it('GET /approvals: GitLab defaults (deprecated lists empty); Developer reads, Reporter 403, outsider 404', async () => {
      const r = await f.api('GET', `${base()}/approvals`, { token: dev.token });
      expectStatus(r, 200);
      assert.deepEqual(r.body, DEFAULTS);
      assert.equal(r.headers.get('content-type'), 'application/json');
      assert.deepEqual(await f.api('GET', `${base()}/approvals`, { token: rep.token }).then((x) => [x.status, x.body]), [403, { message: '403 Forbidden' }]);
      assert.deepEqual(await f.api('GET', `${base()}/approvals`, { token: outsider.token }).then((x) => [x.status, x.body]), [404, { message: '404 Project Not Found' }]);
      const byPath = await f.api('GET', `/projects/${encodeURIComponent(project.path_with_namespace)}/approvals`, { token: maint.token });
      assert.deepEqual(byPath.body, DEFAULTS);
    });

    it('POST /approvals changes only what is given (201), both re-authentication names are one setting; Developer 403', async () => {
      const r = await f.api('POST', `${base()}/approvals`, {
        token: maint.token,
        body: {
          approvals_before_merge: 2, reset_approvals_on_push: false, selective_code_owner_removals: true,
          disable_overriding_approvers_per_merge_request: true, merge_requests_author_approval: true,
          merge_requests_disable_committers_approval: true, require_password_to_approve: true,
        },
      });
      expectStatus(r, 201);
      const changed = {
        ...DEFAULTS, approvals_before_merge: 2, reset_approvals_on_push: false, selective_code_owner_removals: true,
        disable_overriding_approvers_per_merge_request: true, merge_requests_author_approval: true,
        merge_requests_disable_committers_approval: true, require_password_to_approve: true, require_reauthentication_to_approve: true,
      };
      assert.deepEqual(r.body, changed);
      assert.deepEqual((await f.api('GET', `${base()}/approvals`, { token: maint.token })).body, changed);
      const off = await f.api('POST', `${base()}/approvals`, { token: maint.token, body: { require_reauthentication_to_approve: 'false' } });
      assert.deepEqual([off.body.require_password_to_approve, off.body.require_reauthentication_to_approve, off.body.approvals_before_merge], [false, false, 2]);
      assert.deepEqual(await f.api('POST', `${base()}/approvals`, { token: dev.token, body: { reset_approvals_on_push: true } }).then((x) => [x.status, x.body]), [
        403, { message: '403 Forbidden' },
      ]);
      // back to the defaults for the other tests
      const reset = await f.api('POST', `${base()}/approvals`, {
        token: maint.token,
        body: {
          approvals_before_merge: 0, selective_code_owner_removals: false, reset_approvals_on_push: true, disable_overriding_approvers_per_merge_request: false,
          merge_requests_author_approval: false, merge_requests_disable_committers_approval: false,
        },
      });
      assert.deepEqual(reset.body, DEFAULTS);
    });

    it('POST /approvals: selective_code_owner_removals only without reset_approvals_on_push (400); bad or missing params 400', async () => {
      const refused = await f.api('POST', `${base()}/approvals`, { token: maint.token, body: { selective_code_owner_removals: true } });
      assert.deepEqual([refused.status, refused.body], [400, { message: { selective_code_owner_removals: ['can only be enabled when reset_approvals_on_push is disabled'] } }]);
      const both = await f.api('POST', `${base()}/approvals`, { token: maint.token, body: { selective_code_owner_removals: true, reset_approvals_on_push: true } });
      assert.equal(both.status, 400);
      assert.deepEqual((await f.api('GET', `${base()}/approvals`, { token: maint.token })).body, DEFAULTS, 'nothing changed');
      const none = await f.api('POST', `${base()}/approvals`, { token: maint.token, body: {} });
      assert.deepEqual([none.status, none.body], [400, {
        error:
          'approvals_before_merge, reset_approvals_on_push, selective_code_owner_removals, disable_overriding_approvers_per_merge_request, merge_requests_author_approval, merge_requests_disable_committers_approval, require_password_to_approve, require_reauthentication_to_approve are missing, at least one parameter must be provided',
      }]);
      const bad = await f.api('POST', `${base()}/approvals`, { token: maint.token, body: { reset_approvals_on_push: 'maybe' } });
      assert.deepEqual([bad.status, bad.body], [400, { error: 'reset_approvals_on_push is invalid' }]);
    });

    it('create: without approvers it is the any-approver rule; a second one is refused', async () => {
      const r = await post({ name: 'All Members', approvals_required: 1 });
      expectStatus(r, 201);
      assert.deepEqual(r.body, {
        id: r.body.id, name: 'All Members', rule_type: 'any_approver', report_type: null, eligible_approvers: [], approvals_required: 1,
        users: [], groups: [], contains_hidden_groups: false, applies_to_all_protected_branches: false, protected_branches: [],
      });
      const again = await post({ name: 'Anyone', approvals_required: 2, rule_type: 'any_approver' });
      assert.deepEqual([again.status, again.body], [400, { message: { rule_type: ['any-approver for the project already exists'] } }]);
      expectStatus(await f.api('DELETE', `${base()}/approval_rules/${r.body.id}`, { token: maint.token }), 204);
    });

    it('create: user_ids and usernames combined, kept only when project members; groups as the caller sees them', async () => {
      const r = await post({ name: 'People', approvals_required: 2, user_ids: [dev2.id, outsider.id], usernames: ['RLREP', 'rloutsider'], group_ids: [open.id] });
      expectStatus(r, 201);
      assert.equal(r.body.rule_type, 'regular');
      assert.deepEqual(r.body.users, [basic(dev2), basic(rep)]);
      assert.deepEqual(r.body.groups.map((g: any) => [g.id, g.name, g.path, g.full_path, g.visibility, g.parent_id]), [[open.id, 'Open', 'rl-open', 'rl-open', 'public', null]]);
      // the public group's only member (its owner) is an approver too
      assert.deepEqual(r.body.eligible_approvers, [basic(dev2), basic(rep), basic(gowner)]);
      // maint cannot see the private group: it is silently left out
      const hidden = await post({ name: 'Hidden try', approvals_required: 1, group_ids: [secret.id] });
      expectStatus(hidden, 201);
      assert.deepEqual([hidden.body.groups, hidden.body.contains_hidden_groups, hidden.body.rule_type], [[], false, 'regular']);
    });

    it('create: validation messages (name length 1024, approvals_required 0..100, report types, duplicates)', async () => {
      const long = await post({ name: 'n'.repeat(1025), approvals_required: 1, user_ids: [dev.id] });
      assert.deepEqual([long.status, long.body], [400, { message: { name: ['is too long (maximum is 1024 characters)'] } }]);
      const max = await post({ name: 'n'.repeat(1024), approvals_required: 1, user_ids: [dev.id] });
      expectStatus(max, 201);
      assert.equal(max.body.name.length, 1024);
      const blank = await post({ name: '  ', approvals_required: -1 });
      assert.deepEqual([blank.status, blank.body], [400, { message: { name: ["can't be blank"], approvals_required: ['must be greater than or equal to 0'] } }]);
      const many = await post({ name: 'Many', approvals_required: 101, user_ids: [dev.id] });
      assert.deepEqual([many.status, many.body], [400, { message: { approvals_required: ['must be less than or equal to 100'] } }]);
      const dup = await post({ name: 'n'.repeat(1024), approvals_required: 1, user_ids: [dev2.id] });
      assert.deepEqual([dup.status, dup.body], [400, { message: { name: ['has already been taken'] } }]);
      const report = await post({ name: 'Coverage', approvals_required: 1, rule_type: 'report_approver' });
      assert.deepEqual([report.status, report.body], [400, { message: { report_type: ["can't be blank"] } }]);
      const policy = await post({ name: 'Coverage', approvals_required: 1, rule_type: 'report_approver', report_type: 'code_coverage' });
      assert.deepEqual([policy.status, policy.body], [400, {
        message: { rule_type: ['report_approver rules are created from approval policies and cannot be created with this endpoint'] },
      }]);
      const badType = await post({ name: 'X', approvals_required: 1, rule_type: 'code_owner' });
      assert.deepEqual([badType.status, badType.body], [400, { error: 'rule_type does not have a valid value' }]);
      const badReport = await post({ name: 'X', approvals_required: 1, report_type: 'dast' });
      assert.deepEqual([badReport.status, badReport.body], [400, { error: 'report_type does not have a valid value' }]);
      const missing = await post({});
      assert.deepEqual([missing.status, missing.body], [400, { error: 'name is missing, approvals_required is missing' }]);
      assert.deepEqual(await post({ name: 'Dev', approvals_required: 1 }, dev).then((x) => [x.status, x.body]), [403, { message: '403 Forbidden' }]);
      expectStatus(await f.api('DELETE', `${base()}/approval_rules/${max.body.id}`, { token: maint.token }), 204);
    });

    it('protected branches: ids of other projects are dropped; applies_to_all_protected_branches ignores the ids and lists every protected branch', async () => {
      const release = await f.api('POST', `${base()}/protected_branches`, { token: maint.token, body: { name: 'release/*' } });
      expectStatus(release, 201);
      const foreign = await f.api('POST', `/projects/${other.id}/protected_branches`, { body: { name: 'stable' } });
      expectStatus(foreign, 201);
      const mainPb = (await f.api('GET', `${base()}/protected_branches/main`, { token: maint.token })).body;
      const scoped = await post({ name: 'Release', approvals_required: 1, user_ids: [dev.id], protected_branch_ids: [release.body.id, foreign.body.id] });
      expectStatus(scoped, 201);
      assert.deepEqual(scoped.body.protected_branches, [{
        id: release.body.id, name: 'release/*',
        push_access_levels: [{ id: release.body.push_access_levels[0].id, access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }],
        merge_access_levels: [{ id: release.body.merge_access_levels[0].id, access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }],
        unprotect_access_levels: [{ id: release.body.unprotect_access_levels[0].id, access_level: 40, access_level_description: 'Maintainers', user_id: null, group_id: null }],
        code_owner_approval_required: 'false',
      }]);
      const all = await post({ name: 'All protected', approvals_required: 1, user_ids: [dev.id], applies_to_all_protected_branches: true, protected_branch_ids: [release.body.id] });
      expectStatus(all, 201);
      assert.equal(all.body.applies_to_all_protected_branches, true);
      assert.deepEqual(all.body.protected_branches.map((b: any) => b.name).sort(), [mainPb.name, 'release/*'].sort());

      // A merge request into main: the release-only rule does not apply, the all-protected one does.
      await commitFiles(f, project.id, 'scoped', { 'a.txt': 'a' }, { startBranch: 'main' });
      const mr = await f.api('POST', `${base()}/merge_requests`, { token: dev2.token, body: { source_branch: 'scoped', target_branch: 'main', title: 'Scoped' } });
      expectStatus(mr, 201);
      const state = await f.api('GET', `${base()}/merge_requests/${mr.body.iid}/approval_state`, { token: maint.token });
      const names = state.body.rules.map((r: any) => r.name);
      assert.ok(names.includes('All protected'), JSON.stringify(names));
      assert.ok(!names.includes('Release'), JSON.stringify(names));
      for (const id of [scoped.body.id, all.body.id]) expectStatus(await f.api('DELETE', `${base()}/approval_rules/${id}`, { token: maint.token }), 204);
    });

    it('update: users and groups not listed are removed, hidden groups stay unless remove_hidden_groups; name/count validated', async () => {
      // root (admin) sees every group: it creates a rule with the private group.
      const created = await post({ name: 'Mixed', approvals_required: 1, user_ids: [dev2.id], group_ids: [secret.id, open.id] }, { token: f.rootToken });
      expectStatus(created, 201);
      const id = created.body.id;
      assert.deepEqual(created.body.groups.map((g: any) => g.id), [secret.id, open.id]);
      // maint cannot see `secret`: hidden from them.
      const seen = await f.api('GET', `${base()}/approval_rules/${id}`, { token: maint.token });
      assert.deepEqual([seen.body.groups.map((g: any) => g.id), seen.body.contains_hidden_groups], [[open.id], true]);
      // gitbeaker's editApprovalRule always sends name and approvals_required.
      const r = await put(id, { name: 'Mixed', approvals_required: 2, user_ids: [dev.id], group_ids: [] });
      expectStatus(r, 200);
      assert.deepEqual([r.body.approvals_required, r.body.users, r.body.groups, r.body.contains_hidden_groups], [2, [basic(dev)], [], true]);
      const asRoot = await f.api('GET', `${base()}/approval_rules/${id}`);
      assert.deepEqual(asRoot.body.groups.map((g: any) => g.id), [secret.id], 'the hidden group stayed');
      // python-gitlab's update sends only what changes.
      const renamed = await put(id, { name: 'Renamed' });
      assert.deepEqual([renamed.body.name, renamed.body.approvals_required, renamed.body.users], ['Renamed', 2, [basic(dev)]]);
      const removed = await put(id, { group_ids: [], remove_hidden_groups: true, usernames: ['rldev2'] });
      assert.deepEqual([removed.body.users, removed.body.contains_hidden_groups], [[basic(dev2)], false]);
      assert.deepEqual((await f.api('GET', `${base()}/approval_rules/${id}`)).body.groups, []);
      const bad = await put(id, { approvals_required: 500 });
      assert.deepEqual([bad.status, bad.body], [400, { message: { approvals_required: ['must be less than or equal to 100'] } }]);
      const other2 = await post({ name: 'Taken', approvals_required: 1, user_ids: [dev.id] });
      const clash = await put(id, { name: 'Taken' });
      assert.deepEqual([clash.status, clash.body], [400, { message: { name: ['has already been taken'] } }]);
      assert.deepEqual(await put(id, { name: 'x' }, dev).then((x) => [x.status, x.body]), [403, { message: '403 Forbidden' }]);
      const missing = await put(999999, { name: 'x' });
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Not found' }]);
      for (const rid of [id, other2.body.id]) expectStatus(await f.api('DELETE', `${base()}/approval_rules/${rid}`, { token: maint.token }), 204);
    });

    it('list is paginated (any-approver first, then by id); get and delete; Developer reads, Reporter 403', async () => {
      const before = await f.api('GET', `${base()}/approval_rules?per_page=100`, { token: maint.token });
      for (const r of before.body) expectStatus(await f.api('DELETE', `${base()}/approval_rules/${r.id}`, { token: maint.token }), 204);
      const a = (await post({ name: 'A', approvals_required: 1, user_ids: [dev.id] })).body;
      const b = (await post({ name: 'B', approvals_required: 1, user_ids: [dev2.id] })).body;
      const any = (await post({ name: 'Any', approvals_required: 1 })).body;
      const page1 = await f.api('GET', `${base()}/approval_rules?per_page=2`, { token: dev.token });
      expectStatus(page1, 200);
      assert.deepEqual(page1.body.map((r: any) => r.id), [any.id, a.id]);
      assert.deepEqual([page1.headers.get('x-total'), page1.headers.get('x-total-pages'), page1.headers.get('x-next-page')], ['3', '2', '2']);
      const page2 = await f.api('GET', `${base()}/approval_rules?per_page=2&page=2`, { token: dev.token });
      assert.deepEqual(page2.body.map((r: any) => r.id), [b.id]);
      const one = await f.api('GET', `${base()}/approval_rules/${a.id}`, { token: dev.token });
      assert.deepEqual(one.body, a);
      assert.deepEqual(await f.api('GET', `${base()}/approval_rules`, { token: rep.token }).then((x) => [x.status, x.body]), [403, { message: '403 Forbidden' }]);
      assert.equal((await f.api('GET', `/projects/${other.id}/approval_rules/${a.id}`)).status, 404, 'a rule of another project');
      assert.deepEqual(await f.api('DELETE', `${base()}/approval_rules/${a.id}`, { token: dev.token }).then((x) => x.status), 403);
      expectStatus(await f.api('DELETE', `${base()}/approval_rules/${a.id}`, { token: maint.token }), 204);
      const gone = await f.api('GET', `${base()}/approval_rules/${a.id}`, { token: maint.token });
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Not found' }]);
      assert.equal((await f.api('DELETE', `${base()}/approval_rules/${a.id}`, { token: maint.token })).status, 404);
      for (const r of [b, any]) expectStatus(await f.api('DELETE', `${base()}/approval_rules/${r.id}`, { token: maint.token }), 204);
    });

    it('merge request rules: create (also from a project rule), list, get, update, delete; 403 without update rights', async () => {
      await commitFiles(f, project.id, 'mrrules', { 'b.txt': 'b' }, { startBranch: 'main' });
      const mr = (await f.api('POST', `${base()}/merge_requests`, { token: dev.token, body: { source_branch: 'mrrules', target_branch: 'main', title: 'MR rules' } })).body;
      const p = `${base()}/merge_requests/${mr.iid}/approval_rules`;
      const projectRule = (await post({ name: 'Project rule', approvals_required: 3, user_ids: [dev2.id, rep.id] })).body;
      const own = await f.api('POST', p, { token: dev.token, body: { name: 'Own', approvals_required: 1, usernames: ['rldev2'] } });
      expectStatus(own, 201);
      assert.deepEqual(own.body, {
        id: own.body.id, name: 'Own', rule_type: 'regular', report_type: null, eligible_approvers: [basic(dev2)], approvals_required: 1,
        users: [basic(dev2)], groups: [], contains_hidden_groups: false, source_rule: null, overridden: false, section: null,
      });
      const copied = await f.api('POST', p, { token: dev.token, body: { name: 'ignored', approvals_required: 1, approval_project_rule_id: projectRule.id, user_ids: [dev.id] } });
      expectStatus(copied, 201);
      assert.deepEqual([copied.body.name, copied.body.users.map((u: any) => u.id), copied.body.source_rule, copied.body.overridden], ['Project rule', [dev2.id, rep.id], { approvals_required: 3 }, true]);
      const list = await f.api('GET', `${p}?per_page=1`, { token: rep.token });
      assert.deepEqual([list.body.map((r: any) => r.id), list.headers.get('x-total')], [[own.body.id], '2']);
      const one = await f.api('GET', `${p}/${copied.body.id}`, { token: rep.token });
      assert.deepEqual(one.body, copied.body);
      const upd = await f.api('PUT', `${p}/${own.body.id}`, { token: dev.token, body: { approvals_required: 2, user_ids: [dev2.id, rep.id] } });
      expectStatus(upd, 200);
      assert.deepEqual([upd.body.approvals_required, upd.body.users.map((u: any) => u.id)], [2, [dev2.id, rep.id]]);
      const dupName = await f.api('PUT', `${p}/${own.body.id}`, { token: dev.token, body: { name: 'Project rule' } });
      assert.deepEqual([dupName.status, dupName.body], [400, { message: { name: ['has already been taken'] } }]);
      assert.equal((await f.api('POST', p, { token: rep.token, body: { name: 'R', approvals_required: 1 } })).status, 403);
      assert.equal((await f.api('GET', `${p}/${projectRule.id}`, { token: dev.token })).status, 404, 'a project rule is not a merge request rule');
      expectStatus(await f.api('DELETE', `${p}/${own.body.id}`, { token: dev.token }), 204);
      assert.deepEqual(await f.api('GET', `${p}/${own.body.id}`, { token: dev.token }).then((x) => [x.status, x.body]), [404, { message: '404 Not found' }]);
      expectStatus(await f.api('DELETE', `${base()}/approval_rules/${projectRule.id}`, { token: maint.token }), 204);
      // the copy keeps its users; its source is gone
      const after = await f.api('GET', `${p}/${copied.body.id}`, { token: dev.token });
      assert.deepEqual([after.body.source_rule, after.body.overridden], [null, false]);
    });
  });
}
