import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fixedClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { commitFiles } from '../support/repository.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };
const NOW = '2024-06-15T12:00:00.000Z';
const FORBIDDEN = { message: '403 Forbidden' };
const NOT_FOUND = { message: '404 Not found' };

/** An access entry as the API shows a role. */
const role = (level: number, description: string) => ({ id: 0, access_level: level, access_level_description: description, user_id: null, group_id: null });
/** Entries without their ids (which depend on insertion order). */
const noIds = (entries: any[]) => entries.map((e) => ({ ...e, id: 0 }));

for (const dialect of DIALECTS) {
  describe(`${dialect}: protected branches`, () => {
    let f: TestForgelet;
    let owner: User;
    let maint: User;
    let maint2: User;
    let dev: User;
    let guest: User;
    let outsider: User;
    let group: any;
    let app: any; // private, in the group
    let pub: any; // public, in the group
    let other: any; // another group, unrelated

    const enc = encodeURIComponent;
    const pb = (project: any, name = '') => `/projects/${project.id}/protected_branches${name ? `/${enc(name)}` : ''}`;

    before(async () => {
      f = await startTestServer(dialect, { clock: fixedClock(NOW) });
      [owner, maint, maint2, dev, guest, outsider] = await createUsers(f, ['pbowner', 'pbmaint', 'pbmaint2', 'pbdev', 'pbguest', 'pboutsider']);
      group = await createGroup(f, owner.token, { name: 'Protect', path: 'protect', visibility: 'public' });
      other = await createGroup(f, outsider.token, { name: 'Elsewhere', path: 'elsewhere' });
      app = await createProject(f, owner.token, { name: 'app', namespace_id: group.id, visibility: 'private' });
      pub = await createProject(f, owner.token, { name: 'pub', namespace_id: group.id, visibility: 'public' });
      await addMember(f, 'groups', group.id, maint.id, 40);
      await addMember(f, 'groups', group.id, maint2.id, 40);
      await addMember(f, 'groups', group.id, dev.id, 30);
      await addMember(f, 'groups', group.id, guest.id, 10);
      await commitFiles(f, app.id, 'main', { 'README.md': 'app' });
      await commitFiles(f, pub.id, 'main', { 'README.md': 'pub' });
    });
    after(() => f.stop());

    it('the default branch is protected on its first commit: the whole entity', async () => {
      const r = await f.api('GET', pb(app), { token: maint.token });
      expectStatus(r, 200);
      assert.equal(r.headers.get('x-total'), '1');
      assert.equal(r.body.length, 1);
      const main = r.body[0];
      assert.deepEqual(Object.keys(main), [
        'id', 'name', 'push_access_levels', 'merge_access_levels', 'allow_force_push', 'unprotect_access_levels', 'code_owner_approval_required', 'inherited',
      ]);
      assert.deepEqual({ ...main, push_access_levels: noIds(main.push_access_levels), merge_access_levels: noIds(main.merge_access_levels), unprotect_access_levels: noIds(main.unprotect_access_levels) }, {
        id: main.id,
        name: 'main',
        push_access_levels: [role(40, 'Maintainers')],
        merge_access_levels: [role(40, 'Maintainers')],
        allow_force_push: false,
        unprotect_access_levels: [role(40, 'Maintainers')],
        code_owner_approval_required: false,
        inherited: false,
      });
      assert.ok(main.push_access_levels[0].id > 0);
      const one = await f.api('GET', pb(app, 'main'), { token: dev.token });
      expectStatus(one, 200);
      assert.deepEqual(one.body, main);
    });

    it('protect a wildcard: levels, defaults, GET by the URL-encoded name, 409 when it exists', async () => {
      const r = await f.api('POST', pb(app), { token: maint.token, body: { name: 'release/*', push_access_level: 30, merge_access_level: 0, allow_force_push: true } });
      expectStatus(r, 201);
      assert.equal(r.body.name, 'release/*');
      assert.equal(r.body.allow_force_push, true);
      assert.deepEqual(noIds(r.body.push_access_levels), [role(30, 'Developers + Maintainers')]);
      assert.deepEqual(noIds(r.body.merge_access_levels), [role(0, 'No one')]);
      assert.deepEqual(noIds(r.body.unprotect_access_levels), [role(40, 'Maintainers')], 'unprotect defaults to Maintainers');
      const got = await f.api('GET', `/projects/${enc('protect/app')}/protected_branches/release%2F*`, { token: maint.token });
      expectStatus(got, 200);
      assert.deepEqual(got.body, r.body);
      const again = await f.api('POST', pb(app), { token: maint.token, body: { name: 'release/*' } });
      assert.deepEqual([again.status, again.body], [409, { message: "Protected branch 'release/*' already exists" }]);
      const admins = await f.api('POST', pb(app), { body: { name: 'admins-only', push_access_level: '60', unprotect_access_level: 60 } });
      expectStatus(admins, 201);
      assert.deepEqual(noIds(admins.body.push_access_levels), [role(60, 'Instance admins')]);
      assert.deepEqual(noIds(admins.body.unprotect_access_levels), [role(60, 'Instance admins')]);
    });

    it('users, groups and roles in allowed_to_*; every validation error (422 with full messages, 400 for bad params)', async () => {
      const r = await f.api('POST', pb(app), {
        token: maint.token,
        body: { name: 'hotfix', allowed_to_push: [{ user_id: dev.id }, { group_id: group.id }, { access_level: 40 }], allowed_to_merge: [{ access_level: 30 }] },
      });
      expectStatus(r, 201);
      assert.deepEqual(noIds(r.body.push_access_levels), [
        { id: 0, access_level: null, access_level_description: 'pbdev', user_id: dev.id, group_id: null },
        { id: 0, access_level: null, access_level_description: 'Protect', user_id: null, group_id: group.id },
        role(40, 'Maintainers'),
      ]);
      assert.deepEqual(noIds(r.body.merge_access_levels), [role(30, 'Developers + Maintainers')], 'no default next to allowed_to_merge');
      assert.deepEqual(noIds(r.body.unprotect_access_levels), [role(40, 'Maintainers')]);

      const cases: Array<[Record<string, unknown>, number, unknown]> = [
        [{ name: '' }, 422, { message: ["Name can't be blank"] }],
        [{ name: 'x', allowed_to_push: [{ user_id: outsider.id }] }, 422, { message: ['Push access levels user is not a member of the project'] }],
        [{ name: 'x', allowed_to_push: [{ group_id: other.id }] }, 422, { message: ['Push access levels group does not have access to the project'] }],
        [{ name: 'x', push_access_level: 40, allowed_to_push: [{ access_level: 40 }] }, 422, { message: ['Push access levels access level has already been taken'] }],
        [{ name: 'x', allowed_to_merge: [{}], allowed_to_unprotect: [{ user_id: dev.id }, { user_id: dev.id }] }, 422, {
          message: ["Merge access levels access level can't be blank", 'Unprotect access levels user has already been taken'],
        }],
        [{}, 400, { error: 'name is missing' }],
        [{ name: 'x', push_access_level: 20 }, 400, { error: 'push_access_level does not have a valid value' }],
        [{ name: 'x', unprotect_access_level: 0 }, 400, { error: 'unprotect_access_level does not have a valid value' }],
        [{ name: 'x', allowed_to_push: [{ access_level: 50 }] }, 400, { error: 'allowed_to_push[0][access_level] does not have a valid value' }],
        [{ name: 'x', allow_force_push: 'maybe' }, 400, { error: 'allow_force_push is invalid' }],
      ];
      for (const [body, status, expected] of cases) {
        const res = await f.api('POST', pb(app), { token: maint.token, body });
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body));
      }
      const names = (await f.api('GET', `${pb(app)}?per_page=100`)).body.map((b: any) => b.name);
      assert.deepEqual(names, ['main', 'release/*', 'admins-only', 'hotfix'], 'nothing written by the failures');
    });

    it('search (case-insensitive part of the name) and pagination', async () => {
      let r = await f.api('GET', `${pb(app)}?search=RELEASE`);
      assert.deepEqual(r.body.map((b: any) => b.name), ['release/*']);
      r = await f.api('GET', `${pb(app)}?search=${enc('%')}`);
      assert.deepEqual(r.body, []);
      r = await f.api('GET', `${pb(app)}?per_page=2&page=2`);
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((b: any) => b.name), ['admins-only', 'hotfix']);
      assert.equal(r.headers.get('x-total'), '4');
      assert.equal(r.headers.get('x-page'), '2');
    });

    it('PATCH: allow_force_push, code_owner_approval_required, entries added, changed and removed', async () => {
      const before = (await f.api('GET', pb(app, 'hotfix'))).body;
      const [userEntry, groupEntry, roleEntry] = before.push_access_levels;
      const r = await f.api('PATCH', pb(app, 'hotfix'), {
        token: maint.token,
        body: {
          allow_force_push: true,
          code_owner_approval_required: true,
          allowed_to_push: [{ id: groupEntry.id, _destroy: true }, { id: roleEntry.id, access_level: 30 }, { access_level: 0 }],
          allowed_to_merge: [{ user_id: maint.id }],
        },
      });
      expectStatus(r, 200);
      assert.equal(r.body.allow_force_push, true);
      assert.equal(r.body.code_owner_approval_required, true);
      assert.deepEqual(r.body.push_access_levels.slice(0, 2), [userEntry, { ...roleEntry, access_level: 30, access_level_description: 'Developers + Maintainers' }]);
      assert.deepEqual(noIds(r.body.push_access_levels), [
        { id: 0, access_level: null, access_level_description: 'pbdev', user_id: dev.id, group_id: null },
        role(30, 'Developers + Maintainers'),
        role(0, 'No one'),
      ]);
      assert.deepEqual(noIds(r.body.merge_access_levels), [role(30, 'Developers + Maintainers'), { id: 0, access_level: null, access_level_description: 'pbmaint', user_id: maint.id, group_id: null }]);
      assert.deepEqual(r.body.unprotect_access_levels, before.unprotect_access_levels, 'untouched');

      const cases: Array<[string, Record<string, unknown>, number, unknown]> = [
        ['hotfix', { allowed_to_push: [{ id: 999999, _destroy: true }] }, 404, NOT_FOUND],
        ['hotfix', { allowed_to_push: [{ access_level: 30 }] }, 422, { message: ['Push access levels access level has already been taken'] }],
        ['hotfix', { allowed_to_merge: [{ user_id: outsider.id }] }, 422, { message: ['Merge access levels user is not a member of the project'] }],
        ['hotfix', { unprotect_access_level: 40 }, 422, { message: ['Unprotect access levels access level has already been taken'] }],
        ['hotfix', { allow_force_push: '' }, 400, { error: 'allow_force_push is empty' }],
        ['nope', { allow_force_push: false }, 404, NOT_FOUND],
      ];
      for (const [name, body, status, expected] of cases) {
        const res = await f.api('PATCH', pb(app, name), { token: maint.token, body });
        assert.deepEqual([res.status, res.body], [status, expected], JSON.stringify(body));
      }
      const after = await f.api('PATCH', pb(app, 'hotfix'), { token: maint.token, body: { allow_force_push: false } });
      assert.equal(after.body.allow_force_push, false);
      assert.deepEqual(after.body.push_access_levels, r.body.push_access_levels, 'failed PATCHes changed nothing');
    });

    it('permissions: reads need the code (Reporter on private, anyone on public); writes need a Maintainer', async () => {
      let r = await f.api('GET', pb(app), { token: dev.token });
      expectStatus(r, 200);
      r = await f.api('GET', pb(app), { token: guest.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      for (const token of [outsider.token, null]) {
        r = await f.api('GET', pb(app), { token });
        assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
      }
      r = await f.api('GET', pb(pub), { token: null });
      expectStatus(r, 200);
      assert.deepEqual(r.body.map((b: any) => b.name), ['main']);
      r = await f.api('GET', pb(pub, 'main'), { token: outsider.token });
      expectStatus(r, 200);

      r = await f.api('POST', pb(app), { token: dev.token, body: { name: 'devs' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('POST', pb(pub), { token: outsider.token, body: { name: 'devs' } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('POST', pb(app), { token: outsider.token, body: { name: 'devs' } });
      assert.deepEqual([r.status, r.body], [404, { message: '404 Project Not Found' }]);
      r = await f.api('POST', pb(pub), { token: null, body: { name: 'devs' } });
      assert.equal(r.status, 401);
      r = await f.api('PATCH', pb(app, 'main'), { token: dev.token, body: { allow_force_push: true } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('DELETE', pb(app, 'main'), { token: dev.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
    });

    it('unprotect entries restrict who may change or delete the rule', async () => {
      let r = await f.api('POST', pb(app), { token: maint.token, body: { name: 'locked', allowed_to_unprotect: [{ user_id: maint2.id }] } });
      expectStatus(r, 201);
      r = await f.api('PATCH', pb(app, 'locked'), { token: maint.token, body: { allow_force_push: true } });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('DELETE', pb(app, 'locked'), { token: maint.token });
      assert.deepEqual([r.status, r.body], [403, FORBIDDEN]);
      r = await f.api('DELETE', pb(app, 'locked'), { token: maint2.token });
      assert.equal(r.status, 204);
      assert.equal(r.text, '');
      r = await f.api('GET', pb(app, 'locked'));
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
      r = await f.api('DELETE', pb(app, 'locked'));
      assert.deepEqual([r.status, r.body], [404, NOT_FOUND]);
    });

    it('the rules decide pushes: Developers push to release/* until the entry is removed', async () => {
      await commitFiles(f, app.id, 'release/1.0', { 'a.txt': 'one' }, { username: 'pbdev', startBranch: 'main' });
      const rule = (await f.api('GET', pb(app, 'release/*'))).body;
      const r = await f.api('PATCH', pb(app, 'release/*'), {
        token: maint.token,
        body: { allowed_to_push: [{ id: rule.push_access_levels[0].id, _destroy: true }, { access_level: 40 }] },
      });
      expectStatus(r, 200);
      await assert.rejects(commitFiles(f, app.id, 'release/1.0', { 'a.txt': 'two' }, { username: 'pbdev' }), /not allowed to push/);
      await commitFiles(f, app.id, 'release/1.0', { 'a.txt': 'two' }, { username: 'pbmaint' });
      // main is protected for Maintainers: unprotecting it lets Developers push
      await assert.rejects(commitFiles(f, app.id, 'main', { 'b.txt': 'x' }, { username: 'pbdev' }), /not allowed to push/);
      const del = await f.api('DELETE', pb(app, 'main'), { token: maint.token });
      assert.equal(del.status, 204);
      await commitFiles(f, app.id, 'main', { 'b.txt': 'x' }, { username: 'pbdev' });
    });
  });
}
