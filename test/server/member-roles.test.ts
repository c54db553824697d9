/**
 * Custom member roles, the routes: instance roles (administrators) and top-level group roles
 * (Owners), every flag in every answer, GitLab's validation messages, the tier gate, update,
 * and delete refused while a membership holds the role.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };

/** The spec's permission flags, in the order every answer lists them. */
const FLAGS = [
  'admin_cicd_variables', 'admin_compliance_framework', 'admin_group_member', 'admin_merge_request', 'admin_push_rules',
  'admin_terraform_state', 'admin_vulnerability', 'admin_web_hook', 'archive_project', 'manage_deploy_tokens',
  'manage_group_access_tokens', 'manage_merge_request_settings', 'manage_project_access_tokens', 'manage_security_policy_link',
  'read_code', 'read_dependency', 'read_runners', 'read_vulnerability', 'remove_group', 'remove_project',
];
const ALL_OFF = Object.fromEntries(FLAGS.map((f) => [f, false]));
const NOT_FOUND = { message: '404 Member Role Not Found' };
const FORBIDDEN = { message: '403 Forbidden' };
const ASSIGNED = { message: ['Role is assigned to one or more group members. Remove role from all group members, then delete role.'] };

for (const dialect of DIALECTS) {
  describe(`${dialect}: member roles`, () => {
    let f: TestForgelet;
    let owner: User;
    let maint: User;
    let outsider: User;
    let member: User;
    let group: any; // private top-level group `roles`, Owner: owner
    let sub: any; // roles/sub
    let other: any; // another top-level group of owner

    const role = (id: number, body: Record<string, unknown>) => ({ ...body, id });

    before(async () => {
      f = await startTestServer(dialect);
      [owner, maint, outsider, member] = await createUsers(f, ['mrowner', 'mrmaint', 'mrout', 'mrmember']);
      group = await createGroup(f, owner.token, { name: 'Roles', path: 'roles', visibility: 'private' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: group.id, visibility: 'private' });
      other = await createGroup(f, owner.token, { name: 'Other', path: 'other-roles', visibility: 'private' });
      await addMember(f, 'groups', group.id, maint.id, 40);
    });
    after(() => f.stop());

    describe('instance roles', () => {
      it('POST /member_roles: 201, every flag present (false unless set), description null when omitted', async () => {
        const r = await f.api('POST', '/member_roles', { body: { name: 'Guest + read_code', base_access_level: 10, read_code: true } });
        expectStatus(r, 201);
        assert.deepEqual(Object.keys(r.body), ['id', 'group_id', 'name', 'description', 'base_access_level', ...FLAGS]);
        assert.deepEqual(r.body, role(r.body.id, { group_id: null, name: 'Guest + read_code', description: null, base_access_level: 10, ...ALL_OFF, read_code: true }));
        // form bodies and Grape's boolean words
        const form = await f.api('POST', '/member_roles', {
          raw: 'name=Form+role&description=From+a+form&base_access_level=30&remove_project=yes&archive_project=f',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        expectStatus(form, 201);
        assert.deepEqual(form.body, role(form.body.id, { group_id: null, name: 'Form role', description: 'From a form', base_access_level: 30, ...ALL_OFF, remove_project: true }));
        const all = Object.fromEntries(FLAGS.map((flag) => [flag, true]));
        const everything = await f.api('POST', '/member_roles', { body: { name: 'Everything', base_access_level: 50, ...all } });
        expectStatus(everything, 201);
        assert.deepEqual(everything.body, role(everything.body.id, { group_id: null, name: 'Everything', description: null, base_access_level: 50, ...all }));
      });

      it('GET /member_roles lists instance roles by name, never group roles', async () => {
        const g = await f.api('POST', `/groups/${group.id}/member_roles`, { token: owner.token, body: { name: 'Aardvark', base_access_level: 10 } });
        expectStatus(g, 201);
        const r = await f.api('GET', '/member_roles');
        expectStatus(r, 200);
        assert.deepEqual(r.body.map((x: any) => x.name), ['Everything', 'Form role', 'Guest + read_code']);
        assert.ok(r.body.every((x: any) => x.group_id === null && FLAGS.every((flag) => typeof x[flag] === 'boolean')));
        assert.equal(r.headers.get('x-total'), null, 'not paginated, as GitLab');
        expectStatus(await f.api('DELETE', `/groups/${group.id}/member_roles/${g.body.id}`, { token: owner.token }), 204);
      });

      it('parameter errors name the field (400 error)', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ base_access_level: 10 }, 'name is missing'],
          [{ name: 'x' }, 'base_access_level is missing'],
          [{}, 'name is missing, base_access_level is missing'],
          [{ name: 'x', base_access_level: 11 }, 'base_access_level does not have a valid value'],
          [{ name: 'x', base_access_level: 5 }, 'base_access_level does not have a valid value'],
          [{ name: 'x', base_access_level: 60 }, 'base_access_level does not have a valid value'],
          [{ name: 'x', base_access_level: 'guest' }, 'base_access_level does not have a valid value'],
          [{ name: 'x', base_access_level: 10, read_code: 'maybe' }, 'read_code is invalid'],
          [{ name: 'x', base_access_level: 10, remove_project: [] }, 'remove_project is invalid'],
        ];
        for (const [body, error] of cases) {
          const r = await f.api('POST', '/member_roles', { body });
          assert.deepEqual([r.status, r.body], [400, { error }], JSON.stringify(body));
        }
      });

      it('every accepted base level; a blank name gets GitLab default "<Base> - custom"', async () => {
        const names: Record<number, string> = { 10: 'Guest', 15: 'Planner', 20: 'Reporter', 25: 'Security Manager', 30: 'Developer', 40: 'Maintainer', 50: 'Owner' };
        for (const [level, base] of Object.entries(names)) {
          const r = await f.api('POST', '/member_roles', { body: { name: '', base_access_level: Number(level) } });
          expectStatus(r, 201);
          assert.deepEqual([r.body.name, r.body.base_access_level], [`${base} - custom`, Number(level)]);
          expectStatus(await f.api('DELETE', `/member_roles/${r.body.id}`), 204);
        }
        const blank = await f.api('POST', '/member_roles', { body: { name: '   ', base_access_level: 20 } });
        assert.equal(blank.body.name, 'Reporter - custom');
        expectStatus(await f.api('DELETE', `/member_roles/${blank.body.id}`), 204);
      });

      it('model errors: 400 message, joined in GitLab order', async () => {
        const taken = await f.api('POST', '/member_roles', { body: { name: 'Everything', base_access_level: 10 } });
        assert.deepEqual([taken.status, taken.body], [400, { message: 'Name has already been taken' }]);
        const vuln = await f.api('POST', '/member_roles', { body: { name: 'Vuln', base_access_level: 10, admin_vulnerability: true } });
        assert.deepEqual([vuln.status, vuln.body], [400, { message: 'Read vulnerability has to be enabled in order to enable Admin vulnerability' }]);
        const mrs = await f.api('POST', '/member_roles', { body: { name: 'MRs', base_access_level: 10, manage_merge_request_settings: true, read_code: false } });
        assert.deepEqual([mrs.status, mrs.body], [400, { message: 'Read code has to be enabled in order to enable Manage merge request settings' }]);
        const several = await f.api('POST', '/member_roles', {
          body: { name: 'Everything', base_access_level: 15, description: 'd'.repeat(256), admin_vulnerability: true, manage_merge_request_settings: true },
        });
        assert.deepEqual([several.status, several.body], [400, {
          message: 'Name has already been taken, Description is too long (maximum is 255 characters), Read vulnerability has to be enabled in order to enable Admin vulnerability',
        }]);
        const long = await f.api('POST', '/member_roles', { body: { name: 'n'.repeat(256), base_access_level: 10 } });
        assert.deepEqual([long.status, long.body], [400, { message: 'Name is too long (maximum is 255 characters)' }]);
        // a requirement is met by the flag, or by a base level that includes it
        for (const body of [
          { name: 'V1', base_access_level: 10, admin_vulnerability: true, read_vulnerability: true },
          { name: 'V2', base_access_level: 25, admin_vulnerability: true },
          { name: 'V3', base_access_level: 30, admin_vulnerability: true },
          { name: 'M1', base_access_level: 10, manage_merge_request_settings: true, read_code: true },
          { name: 'M2', base_access_level: 15, manage_merge_request_settings: true },
        ]) {
          const r = await f.api('POST', '/member_roles', { body });
          expectStatus(r, 201);
          assert.equal(r.body.read_vulnerability, Boolean((body as any).read_vulnerability), 'the requirement is not switched on');
          expectStatus(await f.api('DELETE', `/member_roles/${r.body.id}`), 204);
        }
        const vuln20 = await f.api('POST', '/member_roles', { body: { name: 'V20', base_access_level: 20, admin_vulnerability: true } });
        assert.equal(vuln20.status, 400, 'Reporter does not include read_vulnerability');
      });

      it('administrators only (401 anonymous, 403 others), Ultimate only (403)', async () => {
        for (const [method, path, body] of [
          ['GET', '/member_roles', undefined],
          ['POST', '/member_roles', { name: 'No', base_access_level: 10 }],
          ['PUT', '/member_roles/1', { name: 'No' }],
          ['DELETE', '/member_roles/1', undefined],
        ] as const) {
          const anon = await f.api(method, path, { token: null, body });
          assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
          const plain = await f.api(method, path, { token: owner.token, body });
          assert.deepEqual([plain.status, plain.body], [403, FORBIDDEN], `${method} ${path}`);
        }
        f.forge.deps.config.tier = 'premium';
        try {
          for (const [method, path, body] of [
            ['GET', '/member_roles', undefined],
            ['POST', '/member_roles', { name: 'No', base_access_level: 10 }],
            ['DELETE', '/member_roles/1', undefined],
          ] as const) {
            const r = await f.api(method, path, { body });
            assert.deepEqual([r.status, r.body], [403, FORBIDDEN], `${method} ${path} on premium`);
          }
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
      });

      it('PUT /member_roles/:id changes name, description and flags; the base level never', async () => {
        const created = await f.api('POST', '/member_roles', { body: { name: 'Editable', description: 'first', base_access_level: 20, read_code: true } });
        const id = created.body.id;
        const r = await f.api('PUT', `/member_roles/${id}`, { body: { name: 'Edited', description: 'second', read_code: false, remove_project: true } });
        expectStatus(r, 200);
        assert.deepEqual(r.body, role(id, { group_id: null, name: 'Edited', description: 'second', base_access_level: 20, ...ALL_OFF, remove_project: true }));
        // omitted fields keep their values; null clears the description; the same base level is accepted
        const kept = await f.api('PUT', `/member_roles/${id}`, { body: { description: null, base_access_level: 20 } });
        assert.deepEqual([kept.body.name, kept.body.description, kept.body.remove_project], ['Edited', null, true]);
        const base = await f.api('PUT', `/member_roles/${id}`, { body: { base_access_level: 30 } });
        assert.deepEqual([base.status, base.body], [400, { message: 'Base access level cannot be changed. Please create a new Member Role instead.' }]);
        const blank = await f.api('PUT', `/member_roles/${id}`, { body: { name: '' } });
        assert.deepEqual([blank.status, blank.body], [400, { message: "Name can't be blank" }]);
        const taken = await f.api('PUT', `/member_roles/${id}`, { body: { name: 'Everything' } });
        assert.deepEqual([taken.status, taken.body], [400, { message: 'Name has already been taken' }]);
        const req = await f.api('PUT', `/member_roles/${id}`, { body: { admin_vulnerability: true } });
        assert.deepEqual([req.status, req.body], [400, { message: 'Read vulnerability has to be enabled in order to enable Admin vulnerability' }]);
        const same = await f.api('PUT', `/member_roles/${id}`, { body: { name: 'Edited' } });
        expectStatus(same, 200);
        const bad = await f.api('PUT', `/member_roles/${id}`, { body: { read_code: 'sometimes' } });
        assert.deepEqual([bad.status, bad.body], [400, { error: 'read_code is invalid' }]);
        const missing = await f.api('PUT', '/member_roles/999999', { body: { name: 'x' } });
        assert.deepEqual([missing.status, missing.body], [404, NOT_FOUND]);
        const word = await f.api('PUT', '/member_roles/abc', { body: { name: 'x' } });
        assert.deepEqual([word.status, word.body], [400, { error: 'member_role_id is invalid' }]);
        expectStatus(await f.api('DELETE', `/member_roles/${id}`), 204);
      });

      it('DELETE /member_roles/:id: 204 without body; unknown 404; a group role is not an instance role', async () => {
        const created = await f.api('POST', '/member_roles', { body: { name: 'Short-lived', base_access_level: 10 } });
        const del = await f.api('DELETE', `/member_roles/${created.body.id}`);
        assert.deepEqual([del.status, del.text, del.headers.get('content-type')], [204, '', null]);
        const again = await f.api('DELETE', `/member_roles/${created.body.id}`);
        assert.deepEqual([again.status, again.body], [404, NOT_FOUND]);
        const g = await f.api('POST', `/groups/${group.id}/member_roles`, { token: owner.token, body: { name: 'Group only', base_access_level: 10 } });
        const wrongScope = await f.api('DELETE', `/member_roles/${g.body.id}`);
        assert.deepEqual([wrongScope.status, wrongScope.body], [404, NOT_FOUND]);
        expectStatus(await f.api('DELETE', `/groups/${group.id}/member_roles/${g.body.id}`, { token: owner.token }), 204);
        const word = await f.api('DELETE', '/member_roles/abc');
        assert.deepEqual([word.status, word.body], [400, { error: 'member_role_id is invalid' }]);
      });
    });

    describe('group roles', () => {
      const base = (g: any = group) => `/groups/${g.id}/member_roles`;

      it('an Owner creates roles in the top-level group (by id or path); group_id set', async () => {
        const r = await f.api('POST', base(), { token: owner.token, body: { name: 'Guest + read_code', description: 'Reads code', base_access_level: 10, read_code: true } });
        expectStatus(r, 201);
        assert.deepEqual(r.body, role(r.body.id, { group_id: group.id, name: 'Guest + read_code', description: 'Reads code', base_access_level: 10, ...ALL_OFF, read_code: true }));
        // the same name is fine in another scope (the instance has one), not twice in one group
        const byPath = await f.api('POST', `/groups/${encodeURIComponent('roles')}/member_roles`, { token: owner.token, body: { name: 'Planner', base_access_level: 15 } });
        expectStatus(byPath, 201);
        const twice = await f.api('POST', base(), { token: owner.token, body: { name: 'Guest + read_code', base_access_level: 20 } });
        assert.deepEqual([twice.status, twice.body], [400, { message: 'Name has already been taken' }]);
        const elsewhere = await f.api('POST', base(other), { token: owner.token, body: { name: 'Guest + read_code', base_access_level: 10 } });
        expectStatus(elsewhere, 201);
        const list = await f.api('GET', base(), { token: owner.token });
        expectStatus(list, 200);
        assert.deepEqual(list.body.map((x: any) => [x.name, x.group_id]), [['Guest + read_code', group.id], ['Planner', group.id]]);
        assert.deepEqual(list.body[0], r.body);
        expectStatus(await f.api('DELETE', `${base(other)}/${elsewhere.body.id}`, { token: owner.token }), 204);
        expectStatus(await f.api('DELETE', `${base()}/${byPath.body.id}`, { token: owner.token }), 204);
      });

      it('a subgroup is refused with the model message; it lists its top-level group roles', async () => {
        const r = await f.api('POST', base(sub), { token: owner.token, body: { name: 'Nested', base_access_level: 10 } });
        assert.deepEqual([r.status, r.body], [400, { message: 'Namespace must be top-level namespace' }]);
        const list = await f.api('GET', base(sub), { token: owner.token });
        expectStatus(list, 200);
        assert.deepEqual(list.body.map((x: any) => x.name), ['Guest + read_code']);
        const del = await f.api('DELETE', `${base(sub)}/${list.body[0].id}`, { token: owner.token });
        assert.deepEqual([del.status, del.body], [404, NOT_FOUND]);
      });

      it('Owners only: 401 anonymous, 404 who cannot see the group, 403 Maintainers; Ultimate only', async () => {
        const routes = [
          ['GET', base(), undefined],
          ['POST', base(), { name: 'No', base_access_level: 10 }],
          ['PUT', `${base()}/1`, { name: 'No' }],
          ['DELETE', `${base()}/1`, undefined],
        ] as const;
        for (const [method, path, body] of routes) {
          const anon = await f.api(method, path, { token: null, body });
          assert.deepEqual([anon.status, anon.body], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
          const hidden = await f.api(method, path, { token: outsider.token, body });
          assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Group Not Found' }], `${method} ${path}`);
          const maintainer = await f.api(method, path, { token: maint.token, body });
          assert.deepEqual([maintainer.status, maintainer.body], [403, FORBIDDEN], `${method} ${path}`);
        }
        const missing = await f.api('GET', '/groups/999999/member_roles', { token: owner.token });
        assert.deepEqual([missing.status, missing.body], [404, { message: '404 Group Not Found' }]);
        // administrators manage every group's roles
        expectStatus(await f.api('GET', base()), 200);
        f.forge.deps.config.tier = 'premium';
        try {
          for (const [method, path, body] of routes) {
            const r = await f.api(method, path, { token: owner.token, body });
            assert.deepEqual([r.status, r.body], [403, FORBIDDEN], `${method} ${path} on premium`);
          }
          const hidden = await f.api('GET', base(), { token: outsider.token });
          assert.equal(hidden.status, 404, 'the group stays hidden first');
        } finally {
          f.forge.deps.config.tier = 'ultimate';
        }
      });

      it('PUT changes a group role; another scope answers 404', async () => {
        const list = await f.api('GET', base(), { token: owner.token });
        const id = list.body[0].id;
        const r = await f.api('PUT', `${base()}/${id}`, { token: owner.token, body: { description: 'Reads code and CI', admin_cicd_variables: true } });
        expectStatus(r, 200);
        assert.deepEqual(
          r.body,
          role(id, { group_id: group.id, name: 'Guest + read_code', description: 'Reads code and CI', base_access_level: 10, ...ALL_OFF, read_code: true, admin_cicd_variables: true }),
        );
        const viaOther = await f.api('PUT', `${base(other)}/${id}`, { token: owner.token, body: { name: 'x' } });
        assert.deepEqual([viaOther.status, viaOther.body], [404, NOT_FOUND]);
        const viaInstance = await f.api('PUT', `/member_roles/${id}`, { body: { name: 'x' } });
        assert.deepEqual([viaInstance.status, viaInstance.body], [404, NOT_FOUND]);
      });

      it('at most ten roles per top-level group', async () => {
        const made: number[] = [];
        const existing = (await f.api('GET', base(other), { token: owner.token })).body.length;
        for (let i = existing; i < 10; i += 1) {
          const r = await f.api('POST', base(other), { token: owner.token, body: { name: `Role ${i}`, base_access_level: 10 } });
          expectStatus(r, 201);
          made.push(r.body.id);
        }
        const eleventh = await f.api('POST', base(other), { token: owner.token, body: { name: 'Role 11', base_access_level: 10 } });
        assert.deepEqual([eleventh.status, eleventh.body], [400, {
          message: 'Namespace maximum number of Member Roles are already in use by the group hierarchy. Please delete an existing Member Role.',
        }]);
        for (const id of made.slice(1)) expectStatus(await f.api('DELETE', `${base(other)}/${id}`, { token: owner.token }), 204);
        // a deleted group takes its roles along
        expectStatus(await f.api('DELETE', `/groups/${other.id}`, { token: owner.token }), 202);
        const left = await f.forge.database.db.selectFrom('member_roles').select('id').where('id', '=', made[0]!).execute();
        assert.deepEqual(left, []);
      });

      it('deleting an assigned role is refused until no membership holds it', async () => {
        const id = (await f.api('GET', base(), { token: owner.token })).body[0].id;
        const added = await f.api('POST', `/groups/${sub.id}/members`, { token: owner.token, body: { user_id: member.id, access_level: 10, member_role_id: id } });
        expectStatus(added, 201);
        const refused = await f.api('DELETE', `${base()}/${id}`, { token: owner.token });
        assert.deepEqual([refused.status, refused.body], [400, ASSIGNED]);
        // an instance role likewise
        const instance = await f.api('POST', '/member_roles', { body: { name: 'Assigned instance role', base_access_level: 20 } });
        const other = (await createUsers(f, ['mrother']))[0]!;
        expectStatus(await f.api('POST', `/groups/${group.id}/members`, { body: { user_id: other.id, access_level: 20, member_role_id: instance.body.id } }), 201);
        const instanceRefused = await f.api('DELETE', `/member_roles/${instance.body.id}`);
        assert.deepEqual([instanceRefused.status, instanceRefused.body], [400, ASSIGNED]);
        // unassigning (PUT member_role_id null), or removing the member, frees the role
        const unassigned = await f.api('PUT', `/groups/${sub.id}/members/${member.id}`, { token: owner.token, body: { access_level: 10, member_role_id: null } });
        expectStatus(unassigned, 200);
        assert.equal('member_role' in unassigned.body, false);
        expectStatus(await f.api('DELETE', `/groups/${group.id}/members/${other.id}`), 204);
        expectStatus(await f.api('DELETE', `/member_roles/${instance.body.id}`), 204);
        const del = await f.api('DELETE', `${base()}/${id}`, { token: owner.token });
        assert.deepEqual([del.status, del.text], [204, '']);
        assert.deepEqual((await f.api('GET', base(), { token: owner.token })).body, []);
      });
    });
  });
}
