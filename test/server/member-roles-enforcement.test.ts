/**
 * Custom member roles at work: `member_role_id` on the members API (checks and the member
 * entity), and each permission flag that has a Forgelet route granting its abilities on top
 * of the base level, through group inheritance, below Ultimate not at all.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { commitFiles } from '../support/repository.js';
import { can, CUSTOM_ROLE_ABILITIES, type Ability } from '../../packages/core/src/access/policy.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, insertIssueAndMergeRequest } from './http.js';
import { commitCi, createRunner } from './ci-support.js';
import { buildZip, bytesOf, runPipeline } from './artifacts-support.js';

type User = { id: number; username: string; token: string };
const FORBIDDEN = { message: '403 Forbidden' };

const CI = `build:
  script: echo build
  artifacts:
    paths: [dist/]
`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: member roles enforced`, () => {
    let f: TestForgelet;
    let boss: User; // Owner of acme
    let cicd: User; // Guest of acme/team/app with the group role "Guest + admin_cicd_variables + read_code"
    let plain: User; // Guest of acme/team/app
    let acme: any;
    let team: any;
    let app: any;
    let cicdRole: any;
    let jobId: number;
    let zip: Buffer;
    let scheduleId: number;
    let n = 0;

    /** An instance role with the flags at `base` (default Guest). */
    async function instanceRole(flags: Record<string, boolean>, base = 10): Promise<any> {
      n += 1;
      const r = await f.api('POST', '/member_roles', { body: { name: `Role ${n} ${Object.keys(flags).join(' ')}`, base_access_level: base, ...flags } });
      expectStatus(r, 201);
      return r.body;
    }

    /** A new user holding `role` as a member of the project or group. */
    async function memberWith(kind: 'projects' | 'groups', id: number, role: any, name: string): Promise<User> {
      const [u] = await createUsers(f, [name]);
      const r = await f.api('POST', `/${kind}/${id}/members`, { body: { user_id: u!.id, access_level: role.base_access_level, member_role_id: role.id } });
      expectStatus(r, 201);
      return u!;
    }

    async function projectRow(id: number) {
      return f.forge.database.db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }
    async function groupRow(id: number) {
      return f.forge.database.db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }
    /** `can` through core, as the user (a fresh request context). */
    async function userCan(username: string, ability: Ability, subject: { project: number } | { group: number }): Promise<boolean> {
      const ctx = await f.forge.contextFor(username);
      return 'project' in subject
        ? can(ctx, ability, { kind: 'project', project: await projectRow(subject.project) })
        : can(ctx, ability, { kind: 'group', group: await groupRow(subject.group) });
    }

    before(async () => {
      f = await startTestServer(dialect, { workers: false });
      [boss, cicd, plain] = await createUsers(f, ['enfboss', 'enfcicd', 'enfplain']);
      acme = await createGroup(f, boss.token, { name: 'Acme', path: 'acme', visibility: 'private' });
      team = await createGroup(f, boss.token, { name: 'Team', path: 'team', parent_id: acme.id, visibility: 'private' });
      app = await createProject(f, boss.token, { name: 'app', namespace_id: team.id, visibility: 'private' });
      await commitFiles(f, app.id, 'main', { 'README.md': 'hello\n' });
      await commitCi(f, app.id, CI);
      const runner = await createRunner(f, boss.token, { runner_type: 'project_type', project_id: app.id });
      zip = await buildZip([{ path: 'dist/app.js', content: 'built\n' }]);
      ({ jobId } = await runPipeline(f, boss.token, runner.token, app.id, 'main', zip));
      const schedule = await f.api('POST', `/projects/${app.id}/pipeline_schedules`, { token: boss.token, body: { description: 'Nightly', ref: 'main', cron: '0 1 * * *' } });
      expectStatus(schedule, 201);
      scheduleId = schedule.body.id;
      const role = await f.api('POST', `/groups/${acme.id}/member_roles`, {
        token: boss.token,
        body: { name: 'Guest + admin_cicd_variables + read_code', base_access_level: 10, admin_cicd_variables: true, read_code: true },
      });
      expectStatus(role, 201);
      cicdRole = role.body;
      await addMember(f, 'projects', app.id, plain.id, 10);
    });
    after(() => f.stop());

    describe('assignment through the members API', () => {
      it('adds a member with a role of its top-level group: the entity shows the whole role', async () => {
        const r = await f.api('POST', `/projects/${app.id}/members`, { token: boss.token, body: { user_id: cicd.id, access_level: 10, member_role_id: cicdRole.id } });
        expectStatus(r, 201);
        assert.deepEqual(r.body.member_role, cicdRole);
        assert.deepEqual(Object.keys(r.body).sort(), [
          'access_level', 'avatar_url', 'created_at', 'created_by', 'expires_at', 'id', 'locked', 'member_role', 'membership_state', 'name', 'state', 'username', 'web_url',
        ]);
        const one = await f.api('GET', `/projects/${app.id}/members/${cicd.id}`, { token: boss.token });
        assert.deepEqual(one.body.member_role, cicdRole);
        const all = await f.api('GET', `/projects/${app.id}/members/all?per_page=100`, { token: boss.token });
        const byName = Object.fromEntries(all.body.map((m: any) => [m.username, m]));
        assert.deepEqual(byName.enfcicd.member_role, cicdRole);
        assert.equal('member_role' in byName.enfplain, false, 'absent without a role, as GitLab');
        assert.equal('member_role' in byName.enfboss, false);
      });

      it('refuses a level other than the role base, an unknown role, a role of another hierarchy', async () => {
        const [u] = await createUsers(f, ['enfassign']);
        const add = (body: Record<string, unknown>, path = `/projects/${app.id}/members`) => f.api('POST', path, { token: boss.token, body: { user_id: u!.id, ...body } });
        const level = await add({ access_level: 20, member_role_id: cicdRole.id });
        assert.deepEqual([level.status, level.body], [400, { message: { member_role_id: ["the custom role's base access level does not match the current access level"] } }]);
        const unknown = await add({ access_level: 10, member_role_id: 999999 });
        assert.deepEqual([unknown.status, unknown.body], [400, { message: { member_role: ['not found'] } }]);
        const word = await add({ access_level: 10, member_role_id: 'reader' });
        assert.deepEqual([word.status, word.body], [400, { error: 'member_role_id is invalid' }]);
        const elsewhere = await createGroup(f, boss.token, { name: 'Elsewhere', path: 'elsewhere', visibility: 'private' });
        const foreign = await f.api('POST', `/groups/${elsewhere.id}/member_roles`, { token: boss.token, body: { name: 'Foreign', base_access_level: 10 } });
        const onProject = await add({ access_level: 10, member_role_id: foreign.body.id });
        assert.deepEqual([onProject.status, onProject.body], [400, { message: { project: ["must be in same hierarchy as custom role's namespace"] } }]);
        const onGroup = await add({ access_level: 20, member_role_id: foreign.body.id }, `/groups/${team.id}/members`);
        assert.deepEqual([onGroup.status, onGroup.body], [400, {
          message: { member_role_id: ["the custom role's base access level does not match the current access level"], group: ["must be in same hierarchy as custom role's namespace"] },
        }]);
        // a group role is good in its subgroups; an instance role anywhere, personal projects too
        expectStatus(await add({ access_level: 10, member_role_id: cicdRole.id }, `/groups/${team.id}/members`), 201);
        const instance = await instanceRole({ read_code: true }, 20);
        const personal = await createProject(f, boss.token, { name: 'personal', visibility: 'private' });
        const p = await add({ access_level: 20, member_role_id: instance.id }, `/projects/${personal.id}/members`);
        expectStatus(p, 201);
        assert.equal(p.body.member_role.id, instance.id);
        expectStatus(await f.api('DELETE', `/groups/${team.id}/members/${u!.id}`, { token: boss.token }), 204);
        expectStatus(await f.api('DELETE', `/projects/${personal.id}/members/${u!.id}`, { token: boss.token }), 204);
      });

      it('edit: a role locks the level; a new role goes with its level; null removes the role', async () => {
        const [u] = await createUsers(f, ['enfedit']);
        await addMember(f, 'projects', app.id, u!.id, 10);
        const edit = (body: Record<string, unknown>) => f.api('PUT', `/projects/${app.id}/members/${u!.id}`, { token: boss.token, body });
        const assigned = await edit({ access_level: 10, member_role_id: cicdRole.id });
        expectStatus(assigned, 200);
        assert.deepEqual(assigned.body.member_role, cicdRole);
        const locked = await edit({ access_level: 20 });
        assert.deepEqual([locked.status, locked.body], [400, {
          message: {
            member_role_id: ["the custom role's base access level does not match the current access level"],
            access_level: ['cannot be changed because of an existing association with a custom role'],
          },
        }]);
        const reporterRole = await instanceRole({ read_code: true }, 20);
        const mismatch = await edit({ access_level: 10, member_role_id: reporterRole.id });
        assert.equal(mismatch.status, 400);
        const switched = await edit({ access_level: 20, member_role_id: reporterRole.id });
        expectStatus(switched, 200);
        assert.deepEqual([switched.body.access_level, switched.body.member_role.id], [20, reporterRole.id]);
        const kept = await edit({ access_level: 20, expires_at: '2099-01-01' });
        assert.equal(kept.body.member_role.id, reporterRole.id, 'omitting member_role_id keeps the role');
        const removed = await edit({ access_level: 30, member_role_id: null });
        expectStatus(removed, 200);
        assert.deepEqual([removed.body.access_level, 'member_role' in removed.body], [30, false]);
        expectStatus(await f.api('DELETE', `/projects/${app.id}/members/${u!.id}`, { token: boss.token }), 204);
      });

      it('below Ultimate member_role_id is ignored', async () => {
        const [u] = await createUsers(f, ['enfpremium']);
        f.forge.deps.config.tier = 'premium';
        try {
          const r = await f.api('POST', `/projects/${app.id}/members`, { token: boss.token, body: { user_id: u!.id, access_level: 20, member_role_id: cicdRole.id } });
          expectStatus(r, 201);
          assert.deepEqual([r.body.access_level, 'member_role' in r.body], [20, false]);
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
        expectStatus(await f.api('DELETE', `/projects/${app.id}/members/${u!.id}`, { token: boss.token }), 204);
      });
    });

    describe('flags grant abilities', () => {
      it('the table covers every spec flag', () => {
        assert.deepEqual(Object.keys(CUSTOM_ROLE_ABILITIES).sort(), [
          'admin_cicd_variables', 'admin_compliance_framework', 'admin_group_member', 'admin_merge_request', 'admin_push_rules',
          'admin_terraform_state', 'admin_vulnerability', 'admin_web_hook', 'archive_project', 'manage_deploy_tokens',
          'manage_group_access_tokens', 'manage_merge_request_settings', 'manage_project_access_tokens', 'manage_security_policy_link',
          'read_code', 'read_dependency', 'read_runners', 'read_vulnerability', 'remove_group', 'remove_project',
        ]);
        // recorded for areas Forgelet does not have
        assert.ok((CUSTOM_ROLE_ABILITIES.read_vulnerability.project as readonly string[]).includes('read_vulnerability'));
        assert.ok((CUSTOM_ROLE_ABILITIES.admin_vulnerability.group as readonly string[]).includes('admin_vulnerability'));
        assert.ok((CUSTOM_ROLE_ABILITIES.read_dependency.project as readonly string[]).includes('read_dependency'));
      });

      it('read_code: repository files, jobs, logs and job artifacts (a plain Guest: 403)', async () => {
        const file = `/projects/${app.id}/repository/files/README.md/raw?ref=main`;
        const custom = await f.api('GET', file, { token: cicd.token });
        assert.deepEqual([custom.status, custom.text], [200, 'hello\n']);
        assert.equal((await f.api('GET', file, { token: plain.token })).status, 403);
        const jobs = await f.api('GET', `/projects/${app.id}/jobs`, { token: cicd.token });
        expectStatus(jobs, 200);
        assert.deepEqual(jobs.body.map((j: any) => j.id), [jobId]);
        assert.equal((await f.api('GET', `/projects/${app.id}/jobs`, { token: plain.token })).status, 403);
        assert.equal((await f.api('GET', `/projects/${app.id}/pipelines`, { token: cicd.token })).status, 200);
        const artifacts = await bytesOf(f, `/projects/${app.id}/jobs/${jobId}/artifacts`, { 'PRIVATE-TOKEN': cicd.token });
        assert.equal(artifacts.status, 200);
        assert.ok(artifacts.bytes.equals(zip), 'the archive as uploaded');
        const refused = await f.api('GET', `/projects/${app.id}/jobs/${jobId}/artifacts`, { token: plain.token });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
        // merge requests stay Reporter's (GitLab: read_code does not show private merge requests)
        assert.equal(await userCan('enfcicd', 'read_merge_request', { project: app.id }), false);
      });

      it('admin_cicd_variables: manages every schedule variable, nothing else of the schedule (a plain Guest: 403)', async () => {
        const vars = `/projects/${app.id}/pipeline_schedules/${scheduleId}/variables`;
        const created = await f.api('POST', vars, { token: cicd.token, body: { key: 'DEPLOY_TOKEN', value: 's3cret' } });
        expectStatus(created, 201);
        assert.deepEqual(created.body, { key: 'DEPLOY_TOKEN', value: 's3cret', variable_type: 'env_var', raw: false });
        const plainCreate = await f.api('POST', vars, { token: plain.token, body: { key: 'NOPE', value: 'x' } });
        assert.deepEqual([plainCreate.status, plainCreate.body], [403, FORBIDDEN]);
        const read = await f.api('GET', `${vars}/DEPLOY_TOKEN`, { token: cicd.token });
        assert.deepEqual([read.status, read.body.value], [200, 's3cret']);
        assert.equal((await f.api('GET', `${vars}/DEPLOY_TOKEN`, { token: plain.token })).status, 404);
        const updated = await f.api('PUT', `${vars}/DEPLOY_TOKEN`, { token: cicd.token, body: { value: 'rotated' } });
        assert.deepEqual([updated.status, updated.body.value], [200, 'rotated']);
        const schedule = await f.api('GET', `/projects/${app.id}/pipeline_schedules/${scheduleId}`, { token: cicd.token });
        assert.deepEqual(schedule.body.variables.map((v: any) => [v.key, v.value]), [['DEPLOY_TOKEN', 'rotated']]);
        // the schedule itself stays its owner's and Maintainers'
        const one = `/projects/${app.id}/pipeline_schedules/${scheduleId}`;
        assert.deepEqual((await f.api('PUT', one, { token: cicd.token, body: { description: 'Mine' } })).status, 403);
        assert.deepEqual((await f.api('POST', `${one}/take_ownership`, { token: cicd.token })).status, 403);
        assert.deepEqual((await f.api('POST', `${one}/play`, { token: cicd.token })).status, 403);
        assert.deepEqual((await f.api('DELETE', one, { token: cicd.token })).status, 403);
        assert.equal(await userCan('enfcicd', 'admin_cicd_variables', { project: app.id }), true);
        assert.equal(await userCan('enfplain', 'admin_cicd_variables', { project: app.id }), false);
        const deleted = await f.api('DELETE', `${vars}/DEPLOY_TOKEN`, { token: cicd.token });
        assert.deepEqual([deleted.status, deleted.body.key], [202, 'DEPLOY_TOKEN']);
      });

      it('a role on a group membership applies to its subgroups and projects', async () => {
        const reader = await memberWith('groups', acme.id, cicdRole, 'enfinherit');
        const file = `/projects/${app.id}/repository/files/README.md/raw?ref=main`;
        assert.equal((await f.api('GET', file, { token: reader.token })).status, 200);
        const vars = `/projects/${app.id}/pipeline_schedules/${scheduleId}/variables`;
        expectStatus(await f.api('POST', vars, { token: reader.token, body: { key: 'FROM_GROUP', value: 'x' } }), 201);
        expectStatus(await f.api('DELETE', `${vars}/FROM_GROUP`, { token: reader.token }), 202);
        // below Ultimate the flags give nothing
        f.forge.deps.config.tier = 'premium';
        try {
          assert.equal((await f.api('GET', file, { token: reader.token })).status, 403);
          assert.equal((await f.api('POST', vars, { token: reader.token, body: { key: 'PREMIUM', value: 'x' } })).status, 403);
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
        // once the role is gone from the membership, so are the abilities
        expectStatus(await f.api('PUT', `/groups/${acme.id}/members/${reader.id}`, { token: boss.token, body: { access_level: 10, member_role_id: null } }), 200);
        assert.equal((await f.api('GET', file, { token: reader.token })).status, 403);
      });

      it('admin_merge_request: sees and may approve merge requests', async () => {
        const approver = await memberWith('projects', app.id, await instanceRole({ admin_merge_request: true }), 'enfapprover');
        const { mr } = await insertIssueAndMergeRequest(f, app.id, boss.id, 1);
        assert.ok(mr);
        expectStatus(await f.api('GET', `/projects/${app.id}/merge_requests/1`, { token: approver.token }), 200);
        assert.equal((await f.api('GET', `/projects/${app.id}/merge_requests/1`, { token: plain.token })).status, 403);
        assert.equal(await userCan('enfapprover', 'approve_merge_request', { project: app.id }), true);
        assert.equal(await userCan('enfplain', 'approve_merge_request', { project: app.id }), false);
        assert.equal(await userCan('enfapprover', 'update_merge_request', { project: app.id }), false, 'nothing more');
        // and over HTTP: the role holder's approval counts, a plain member of the same level is refused
        const approved = await f.api('POST', `/projects/${app.id}/merge_requests/1/approve`, { token: approver.token });
        expectStatus(approved, 201);
        assert.deepEqual(approved.body.approved_by.map((a: any) => a.user.username), ['enfapprover']);
        assert.equal((await f.api('POST', `/projects/${app.id}/merge_requests/1/approve`, { token: plain.token })).status, 403, 'cannot even read the MR');
      });

      it('manage_merge_request_settings and read_runners: the abilities Forgelet declares', async () => {
        await memberWith('projects', app.id, await instanceRole({ manage_merge_request_settings: true, read_code: true, read_runners: true }), 'enfsettings');
        for (const ability of ['admin_merge_request_approval_settings', 'modify_approvers_rules', 'read_runners'] as const) {
          assert.equal(await userCan('enfsettings', ability, { project: app.id }), true, ability);
          assert.equal(await userCan('enfplain', ability, { project: app.id }), false, ability);
        }
        assert.equal(await userCan('enfsettings', 'admin_project', { project: app.id }), false);
      });

      it('archive_project: archives and unarchives (a plain Guest: 403)', async () => {
        const archiver = await memberWith('projects', app.id, await instanceRole({ archive_project: true }), 'enfarchiver');
        const refused = await f.api('POST', `/projects/${app.id}/archive`, { token: plain.token });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
        const archived = await f.api('POST', `/projects/${app.id}/archive`, { token: archiver.token });
        assert.deepEqual([archived.status, archived.body.id, archived.body.archived], [201, app.id, true]);
        const unarchived = await f.api('POST', `/projects/${app.id}/unarchive`, { token: archiver.token });
        assert.deepEqual([unarchived.status, unarchived.body.archived], [201, false]);
        // archiving is no licence to edit
        assert.equal((await f.api('PUT', `/projects/${app.id}`, { token: archiver.token, body: { description: 'x' } })).status, 403);
      });

      it('remove_project: deletes the project (a plain Guest: 403)', async () => {
        const doomed = await createProject(f, boss.token, { name: 'doomed', namespace_id: team.id, visibility: 'private' });
        await addMember(f, 'projects', doomed.id, plain.id, 10);
        const remover = await memberWith('projects', doomed.id, await instanceRole({ remove_project: true }), 'enfremover');
        const refused = await f.api('DELETE', `/projects/${doomed.id}`, { token: plain.token });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
        const gone = await f.api('DELETE', `/projects/${doomed.id}`, { token: remover.token });
        assert.equal(gone.status, 202);
        assert.equal((await f.api('GET', `/projects/${doomed.id}`)).status, 404);
      });

      it('remove_group: deletes subgroups, never the top-level group', async () => {
        const gone = await createGroup(f, boss.token, { name: 'Gone', path: 'gone', parent_id: acme.id, visibility: 'private' });
        const remover = await memberWith('groups', acme.id, await instanceRole({ remove_group: true }), 'enfgroupremover');
        const top = await f.api('DELETE', `/groups/${acme.id}`, { token: remover.token });
        assert.deepEqual([top.status, top.body], [403, FORBIDDEN]);
        const refused = await f.api('DELETE', `/groups/${gone.id}`, { token: plain.token });
        assert.equal(refused.status, 404, 'a project Guest does not see the subgroup');
        expectStatus(await f.api('DELETE', `/groups/${gone.id}`, { token: remover.token }), 202);
        assert.equal((await f.api('GET', `/groups/${gone.id}`)).status, 404);
      });

      it('admin_group_member: manages group members up to its own level (a plain Guest: 403)', async () => {
        const [manager, guestOfTeam, newcomer] = await createUsers(f, ['enfmanager', 'enfteamguest', 'enfnewcomer']);
        await addMember(f, 'groups', team.id, guestOfTeam!.id, 10);
        const role = await f.api('POST', `/groups/${acme.id}/member_roles`, { token: boss.token, body: { name: 'Member manager', base_access_level: 10, admin_group_member: true } });
        expectStatus(await f.api('POST', `/groups/${team.id}/members`, { token: boss.token, body: { user_id: manager!.id, access_level: 10, member_role_id: role.body.id } }), 201);
        const members = `/groups/${team.id}/members`;
        const plainAdd = await f.api('POST', members, { token: guestOfTeam!.token, body: { user_id: newcomer!.id, access_level: 10 } });
        assert.deepEqual([plainAdd.status, plainAdd.body], [403, FORBIDDEN]);
        const tooHigh = await f.api('POST', members, { token: manager!.token, body: { user_id: newcomer!.id, access_level: 20 } });
        assert.deepEqual([tooHigh.status, tooHigh.body], [400, { message: "the member access level can't be higher than the current user's one" }]);
        const added = await f.api('POST', members, { token: manager!.token, body: { user_id: newcomer!.id, access_level: 10 } });
        expectStatus(added, 201);
        const promote = await f.api('PUT', `${members}/${newcomer!.id}`, { token: manager!.token, body: { access_level: 30 } });
        assert.deepEqual([promote.status, promote.body], [403, FORBIDDEN]);
        expectStatus(await f.api('PUT', `${members}/${newcomer!.id}`, { token: manager!.token, body: { access_level: 10, expires_at: '2099-12-31' } }), 200);
        // nor touch a member above its own level
        const [dev] = await createUsers(f, ['enfteamdev']);
        await addMember(f, 'groups', team.id, dev!.id, 30);
        const demote = await f.api('PUT', `${members}/${dev!.id}`, { token: manager!.token, body: { access_level: 10 } });
        assert.deepEqual([demote.status, demote.body], [403, FORBIDDEN]);
        expectStatus(await f.api('DELETE', `${members}/${newcomer!.id}`, { token: manager!.token }), 204);
        // not a project member manager
        const onProject = await f.api('POST', `/projects/${app.id}/members`, { token: manager!.token, body: { user_id: newcomer!.id, access_level: 10 } });
        assert.deepEqual([onProject.status, onProject.body], [403, FORBIDDEN]);
        expectStatus(await f.api('DELETE', `${members}/${manager!.id}`, { token: boss.token }), 204);
        expectStatus(await f.api('DELETE', `/groups/${acme.id}/member_roles/${role.body.id}`, { token: boss.token }), 204);
      });

      it('manage_project_access_tokens / manage_group_access_tokens: tokens up to the base level', async () => {
        const expires_at = '2099-01-01';
        const projectTokens = await memberWith('projects', app.id, await instanceRole({ manage_project_access_tokens: true }), 'enfptokens');
        const pt = `/projects/${app.id}/access_tokens`;
        const refused = await f.api('POST', pt, { token: plain.token, body: { name: 'bot', scopes: ['read_api'], access_level: 10, expires_at } });
        assert.deepEqual([refused.status, refused.body], [403, FORBIDDEN]);
        const made = await f.api('POST', pt, { token: projectTokens.token, body: { name: 'bot', scopes: ['read_api'], access_level: 10, expires_at } });
        expectStatus(made, 201);
        assert.equal(made.body.access_level, 10);
        const higher = await f.api('POST', pt, { token: projectTokens.token, body: { name: 'bot', scopes: ['read_api'], access_level: 30, expires_at } });
        assert.equal(higher.status, 400);
        expectStatus(await f.api('GET', pt, { token: projectTokens.token }), 200);

        const groupTokens = await memberWith('groups', team.id, await instanceRole({ manage_group_access_tokens: true }), 'enfgtokens');
        const gt = `/groups/${team.id}/access_tokens`;
        const g = await f.api('POST', gt, { token: groupTokens.token, body: { name: 'gbot', scopes: ['read_api'], access_level: 10, expires_at } });
        expectStatus(g, 201);
        // the group flag is not a project flag, and the other way round
        assert.equal((await f.api('POST', pt, { token: groupTokens.token, body: { name: 'x', scopes: ['read_api'], access_level: 10, expires_at } })).status, 403);
      });

      it('hot path: the flags come with the membership levels, cached per request', async () => {
        const ctx = await f.forge.contextFor('enfcicd');
        const project = await projectRow(app.id);
        const subject = { kind: 'project' as const, project };
        // A second and third `can` reuse the cached levels and flags.
        assert.equal(await can(ctx, 'read_job_artifacts', subject), true);
        const cached = ctx.cache.get(`lvl:p:${app.id}`) as { permissions: Set<string>; customAbilities: Set<string> };
        assert.deepEqual([...cached.permissions].sort(), ['admin_cicd_variables', 'read_code']);
        assert.ok(cached.customAbilities.has('read_build'));
        const before = ctx.cache.size;
        assert.equal(await can(ctx, 'read_build', subject), true);
        assert.equal(await can(ctx, 'admin_pipeline_schedule_variables', subject), true);
        assert.equal(await can(ctx, 'push_code', subject), false);
        assert.equal(ctx.cache.size, before, 'no new lookups');
        assert.equal(ctx.cache.get(`lvl:p:${app.id}`), cached, 'the same cached levels answer every call');
      });
    });
  });
}
