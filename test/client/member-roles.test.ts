import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client member roles`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
    });
    after(() => f.stop());

    it('instance roles: create, list, edit, remove', async () => {
      const role = await api.memberRoles.create({ name: 'Auditor', base_access_level: 20, description: 'Reads vulnerabilities', read_vulnerability: true });
      assert.deepEqual([role.name, role.group_id, role.base_access_level, role.read_vulnerability, role.read_code], ['Auditor', null, 20, true, false]);
      assert.deepEqual((await api.memberRoles.all()).map((r) => r.name), ['Auditor']);
      const edited = await api.memberRoles.edit(role.id, { name: 'Security auditor', admin_vulnerability: true });
      assert.deepEqual([edited.name, edited.description, edited.admin_vulnerability], ['Security auditor', 'Reads vulnerabilities', true]);
      const refused = await apiError(api.memberRoles.edit(role.id, { base_access_level: 30 }));
      assert.deepEqual([refused.status, refused.body], [400, { message: 'Base access level cannot be changed. Please create a new Member Role instead.' }]);
      await api.memberRoles.remove(role.id);
      assert.deepEqual(await api.memberRoles.all(), []);
      const missing = await apiError(api.memberRoles.remove(role.id));
      assert.deepEqual([missing.status, missing.body], [404, { message: '404 Member Role Not Found' }]);
    });

    it('group roles assigned through the members API; delete refused while assigned', async () => {
      const group = await api.groups.create({ name: 'Client roles', path: 'client-roles' });
      const sub = await api.groups.create({ name: 'Sub', path: 'sub', parent_id: group.id });
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const role = await recorded.groupMemberRoles.create(group.full_path, { name: 'Guest + read_code', base_access_level: 10, read_code: true });
      assert.equal(sent[0]!.url, `${f.url}/api/v4/groups/client-roles/member_roles`);
      assert.deepEqual(JSON.parse(String(sent[0]!.body)), { name: 'Guest + read_code', base_access_level: 10, read_code: true });
      assert.equal(role.group_id, group.id);
      const nested = await apiError(api.groupMemberRoles.create(sub.id, { name: 'Nested', base_access_level: 10 }));
      assert.deepEqual([nested.status, nested.body], [400, { message: 'Namespace must be top-level namespace' }]);
      assert.deepEqual((await api.groupMemberRoles.all(sub.id)).map((r) => r.id), [role.id]);
      assert.equal((await api.groupMemberRoles.edit(group.id, role.id, { description: 'Reads code' })).description, 'Reads code');

      const user = await api.users.create({ username: 'clientguest', name: 'Client Guest', email: 'clientguest@example.com' });
      const member = await api.groupMembers.add(sub.id, { user_id: user.id, access_level: 10, member_role_id: role.id });
      assert.equal(member.member_role?.id, role.id);
      assert.equal(member.member_role?.read_code, true);
      const held = await apiError(api.groupMemberRoles.remove(group.id, role.id));
      assert.deepEqual([held.status, held.body], [400, {
        message: ['Role is assigned to one or more group members. Remove role from all group members, then delete role.'],
      }]);
      const unassigned = await api.groupMembers.edit(sub.id, user.id, { access_level: 10, member_role_id: null });
      assert.equal(unassigned.member_role, undefined);
      await api.groupMemberRoles.remove(group.id, role.id);
      assert.deepEqual(await api.groupMemberRoles.all(group.id), []);
    });
  });
}
