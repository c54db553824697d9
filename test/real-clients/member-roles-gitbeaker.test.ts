/**
 * @gitbeaker/rest 43.8.0 against a real Forgelet: custom member roles (the "Must show").
 * An Owner creates the group role "Guest + admin_cicd_variables + read_code" and gives it to a
 * Guest of a subgroup's project; that Guest then adds a pipeline schedule variable and downloads
 * a job's artifacts archive, which a plain Guest may not (403). Deleting the role while it is
 * assigned is refused; once unassigned it deletes, and the abilities are gone.
 *
 * gitbeaker's `GroupMemberRoles.add` posts to `/groups/:id/members` (REAL-CLIENTS.md §2.2), so
 * the create goes through the resource's own requester (same headers, same error handling);
 * `all` and `remove` are gitbeaker's. The pipeline runs through the runner API (no gitbeaker client).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { commitFiles } from '../support/repository.js';
import { commitCi, createRunner } from '../server/ci-support.js';
import { buildZip, runPipeline } from '../server/artifacts-support.js';
import { gitbeakerFailure } from './support.js';

type Client = InstanceType<typeof Gitlab>;
const CI = 'build:\n  script: make\n  artifacts:\n    paths: [dist/]\n';
const ROLE_NAME = 'Guest + admin_cicd_variables + read_code';

for (const dialect of DIALECTS) {
  describe(`${dialect}: @gitbeaker/rest 43.8.0 member roles`, () => {
    let f: ServedForgelet;
    let owner: Client;
    let custom: Client;
    let plain: Client;
    let customId: number;
    let groupId: number;
    let projectId: number;
    let scheduleId: number;
    let jobId: number;
    let zip: Buffer;
    let roleId: number;

    before(async () => {
      const t0 = performance.now();
      f = await startServed(dialect);
      const root = new Gitlab({ host: f.url, token: f.rootToken });
      const clients: Record<string, { id: number; client: Client }> = {};
      for (const name of ['gbroleowner', 'gbroleguest', 'gbplainguest']) {
        const u = await root.Users.create({ username: name, name, email: `${name}@example.com` });
        const pat = await root.Users.createPersonalAccessToken(u.id, 'roles', ['api']);
        clients[name] = { id: u.id, client: new Gitlab({ host: f.url, token: pat.token! }) };
      }
      owner = clients.gbroleowner!.client;
      custom = clients.gbroleguest!.client;
      plain = clients.gbplainguest!.client;
      customId = clients.gbroleguest!.id;
      const group = await owner.Groups.create('GB Roles', 'gb-roles', { visibility: 'private' });
      groupId = group.id;
      const sub = await owner.Groups.create('Platform', 'platform', { parentId: groupId, visibility: 'private' });
      const project = await owner.Projects.create({ name: 'service', namespaceId: sub.id, visibility: 'private' });
      projectId = project.id;
      await owner.ProjectMembers.add(projectId, 10, { userId: clients.gbplainguest!.id });
      await commitFiles(f, projectId, 'main', { 'README.md': 'service\n' });
      await commitCi(f, projectId, CI);
      const runner = await createRunner(f, f.rootToken, { runner_type: 'project_type', project_id: projectId });
      zip = await buildZip([{ path: 'dist/service.js', content: 'built\n' }]);
      ({ jobId } = await runPipeline(f, f.rootToken, runner.token, projectId, 'main', zip));
      const schedule = await owner.PipelineSchedules.create(projectId, 'Nightly deploy', 'main', '0 2 * * *');
      scheduleId = schedule.id;
      console.log(`[${dialect}] gitbeaker member roles setup: ${Math.round(performance.now() - t0)} ms`);
    });
    after(() => f?.stop());

    it('an Owner creates the group role; GroupMemberRoles.all lists it with every flag', async () => {
      const created: any = await (owner.GroupMemberRoles as any).requester.post(`groups/${groupId}/member_roles`, {
        body: { name: ROLE_NAME, base_access_level: 10, admin_cicd_variables: true, read_code: true },
      });
      const role = created.body ?? created;
      roleId = role.id;
      assert.deepEqual([role.name, role.group_id, role.base_access_level, role.description], [ROLE_NAME, groupId, 10, null]);
      assert.deepEqual([role.admin_cicd_variables, role.read_code, role.remove_project, role.archive_project], [true, true, false, false]);
      const all: any[] = await owner.GroupMemberRoles.all(groupId, {});
      assert.deepEqual(all.map((r) => [r.id, r.name]), [[roleId, ROLE_NAME]]);
      assert.equal(Object.keys(all[0]).length, 5 + 20, 'id, group_id, name, description, base_access_level and the 20 flags');
    });

    it('ProjectMembers.add with memberRoleId gives the subgroup project Guest the role', async () => {
      const member: any = await owner.ProjectMembers.add(projectId, 10, { userId: customId, memberRoleId: roleId } as any);
      assert.deepEqual([member.access_level, member.member_role?.id, member.member_role?.name], [10, roleId, ROLE_NAME]);
      const wrong = await gitbeakerFailure(owner.ProjectMembers.edit(projectId, customId, 20));
      assert.equal(wrong.status, 400, 'the role locks the access level');
    });

    it('the custom Guest adds a schedule variable and downloads job artifacts; a plain Guest gets 403', async () => {
      const variable = await custom.PipelineScheduleVariables.create(projectId, scheduleId, 'DEPLOY_KEY', 'k3y');
      assert.deepEqual([variable.key, variable.value], ['DEPLOY_KEY', 'k3y']);
      const edited = await custom.PipelineScheduleVariables.edit(projectId, scheduleId, 'DEPLOY_KEY', 'rotated');
      assert.equal(edited.value, 'rotated');
      const refused = await gitbeakerFailure(plain.PipelineScheduleVariables.create(projectId, scheduleId, 'NOPE', 'x'));
      assert.equal(refused.status, 403);

      const archive = (await custom.JobArtifacts.downloadArchive(projectId, { jobId })) as unknown as Blob;
      assert.ok(Buffer.from(await archive.arrayBuffer()).equals(zip), 'the archive as uploaded');
      const denied = await gitbeakerFailure(plain.JobArtifacts.downloadArchive(projectId, { jobId }));
      assert.equal(denied.status, 403);
      // the schedule itself stays its owner's
      const notOwner = await gitbeakerFailure(custom.PipelineSchedules.edit(projectId, scheduleId, { description: 'mine' }));
      assert.equal(notOwner.status, 403);
    });

    it('deleting the assigned role is refused; after unassigning it deletes and the abilities are gone', async () => {
      const held = await gitbeakerFailure(owner.GroupMemberRoles.remove(groupId, roleId));
      assert.equal(held.status, 400);
      assert.match(held.message, /Role is assigned to one or more group members/);

      const unassigned: any = await owner.ProjectMembers.edit(projectId, customId, 10, { memberRoleId: null } as any);
      assert.equal(unassigned.member_role, undefined);
      await owner.GroupMemberRoles.remove(groupId, roleId);
      assert.deepEqual(await owner.GroupMemberRoles.all(groupId, {}), []);

      const variable = await gitbeakerFailure(custom.PipelineScheduleVariables.create(projectId, scheduleId, 'AFTER', 'x'));
      assert.equal(variable.status, 403);
      const artifacts = await gitbeakerFailure(custom.JobArtifacts.downloadArchive(projectId, { jobId }));
      assert.equal(artifacts.status, 403);
    });
  });
}
