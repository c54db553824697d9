import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ControllableClock } from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, snapshotCounts } from './http.js';

type User = { id: number; username: string; token: string };
const GROUP_NOT_FOUND = { message: '404 Group Not Found' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const enc = encodeURIComponent;

for (const dialect of DIALECTS) {
  describe(`${dialect}: groups`, () => {
    let f: TestForgelet;
    const clock = new ControllableClock();
    let owner: User;
    let outsider: User;
    let submember: User;
    let projmember: User;
    let maint: User;
    let dev: User;
    // acme (private) > acme/sub (private) > acme/sub/deep ; acme/sub-other (private)
    let acme: any;
    let sub: any;
    let deep: any;
    let subOther: any;
    let pTop: any;
    let pSub: any;
    let pDeep: any;

    before(async () => {
      f = await startTestServer(dialect, { clock });
      [owner, outsider, submember, projmember, maint, dev] = await createUsers(f, ['gowner', 'outsider', 'submember', 'projmember', 'gmaint', 'gdev']);
      acme = await createGroup(f, owner.token, { name: 'Acme', path: 'acme', description: 'Top level' });
      sub = await createGroup(f, owner.token, { name: 'Sub', path: 'sub', parent_id: acme.id });
      deep = await createGroup(f, owner.token, { name: 'Deep', path: 'deep', parent_id: sub.id });
      subOther = await createGroup(f, owner.token, { name: 'Sub Other', path: 'sub-other', parent_id: acme.id });
      pTop = await createProject(f, owner.token, { name: 'Top P', path: 'top-p', namespace_id: acme.id });
      pSub = await createProject(f, owner.token, { name: 'Sub P', path: 'sub-p', namespace_id: sub.id });
      pDeep = await createProject(f, owner.token, { name: 'Deep P', path: 'deep-p', namespace_id: deep.id });
      await createProject(f, owner.token, { name: 'Other P', path: 'other-p', namespace_id: subOther.id });
      await addMember(f, 'groups', sub.id, submember.id, 10);
      await addMember(f, 'projects', pDeep.id, projmember.id, 10);
      await addMember(f, 'groups', acme.id, maint.id, 40);
      await addMember(f, 'groups', acme.id, dev.id, 30);
    });
    after(() => f.stop());

    it('creates a top-level group: private by default, creator is Owner', async () => {
      const g = acme;
      assert.match(g.created_at, ISO);
      assert.deepEqual(
        { ...g, id: 0, created_at: '' },
        {
          id: 0, web_url: `${f.url}/groups/acme`, name: 'Acme', path: 'acme', description: 'Top level', visibility: 'private',
          share_with_group_lock: false, require_two_factor_authentication: false, two_factor_grace_period: 48, project_creation_level: 'developer',
          auto_devops_enabled: null, subgroup_creation_level: 'maintainer', emails_disabled: false, emails_enabled: true, mentions_disabled: null,
          lfs_enabled: true, default_branch: null, default_branch_protection: 2, avatar_url: null, request_access_enabled: true, full_name: 'Acme',
          full_path: 'acme', created_at: '', parent_id: null, organization_id: 1, shared_runners_setting: 'enabled', ldap_cn: null, ldap_access: null,
          marked_for_deletion_on: null, wiki_access_level: 'enabled',
        },
      );
      const members = await f.api('GET', `/groups/${acme.id}/members`, { token: owner.token });
      assert.deepEqual(members.body.map((m: any) => [m.username, m.access_level]), [['gowner', 50], ['gmaint', 40], ['gdev', 30]]);
    });

    it('subgroups carry full_path, full_name and parent_id, and resolve by encoded path', async () => {
      assert.deepEqual([sub.full_path, sub.full_name, sub.parent_id, sub.web_url], ['acme/sub', 'Acme / Sub', acme.id, `${f.url}/groups/acme/sub`]);
      assert.deepEqual([deep.full_path, deep.full_name, deep.parent_id], ['acme/sub/deep', 'Acme / Sub / Deep', sub.id]);
      const r = await f.api('GET', `/groups/${enc('acme/sub/deep')}`, { token: owner.token });
      expectStatus(r, 200);
      assert.equal(r.body.id, deep.id);
    });

    it('subgroups lists direct children; descendant_groups the whole tree', async () => {
      const subs = await f.api('GET', `/groups/${acme.id}/subgroups`, { token: owner.token });
      assert.deepEqual(subs.body.map((g: any) => g.full_path), ['acme/sub', 'acme/sub-other']);
      const desc = await f.api('GET', `/groups/acme/descendant_groups`, { token: owner.token });
      assert.deepEqual(desc.body.map((g: any) => g.full_path), ['acme/sub/deep', 'acme/sub', 'acme/sub-other']);
      assert.equal(desc.headers.get('x-total'), '3');
      const leaf = await f.api('GET', `/groups/${deep.id}/descendant_groups`, { token: owner.token });
      assert.deepEqual(leaf.body, []);
    });

    it('/groups/:id/projects: direct projects, or the whole tree with include_subgroups', async () => {
      const direct = await f.api('GET', `/groups/${acme.id}/projects?order_by=path&sort=asc`, { token: owner.token });
      assert.deepEqual(direct.body.map((p: any) => p.path_with_namespace), ['acme/top-p']);
      const all = await f.api('GET', `/groups/${acme.id}/projects?include_subgroups=true&order_by=path&sort=asc`, { token: owner.token });
      assert.deepEqual(all.body.map((p: any) => p.path_with_namespace), ['acme/sub/deep/deep-p', 'acme/sub-other/other-p', 'acme/sub/sub-p', 'acme/top-p']);
      const subTree = await f.api('GET', `/groups/${enc('acme/sub')}/projects?include_subgroups=true&order_by=path&sort=asc`, { token: owner.token });
      assert.deepEqual(subTree.body.map((p: any) => p.path_with_namespace), ['acme/sub/deep/deep-p', 'acme/sub/sub-p']);
    });

    it('paths: unique per parent (case-insensitive), valid characters, visibility within the parent', async () => {
      const before = await snapshotCounts(f);
      const dup = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Again', path: 'ACME' } });
      assert.deepEqual([dup.status, dup.body], [400, { message: { path: ['has already been taken'] } }]);
      const dupSub = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Again', path: 'sub', parent_id: acme.id } });
      assert.deepEqual([dupSub.status, dupSub.body], [400, { message: { path: ['has already been taken'] } }]);
      const bad = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Bad', path: 'bad path' } });
      assert.equal(bad.status, 400);
      assert.deepEqual(Object.keys(bad.body.message), ['path']);
      const userPath = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Clash', path: 'outsider' } });
      assert.deepEqual([userPath.status, userPath.body], [400, { message: { path: ['has already been taken'] } }], 'users and groups share paths');
      const open = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Open', path: 'open', parent_id: acme.id, visibility: 'public' } });
      assert.deepEqual([open.status, open.body], [400, { message: { visibility_level: ['public is not allowed since the parent group has a private visibility.'] } }]);
      assert.deepEqual(await snapshotCounts(f), before);
      const samePathElsewhere = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Sub', path: 'sub', parent_id: subOther.id } });
      expectStatus(samePathElsewhere, 201);
      assert.equal(samePathElsewhere.body.full_path, 'acme/sub-other/sub');
      expectStatus(await f.api('DELETE', `/groups/${samePathElsewhere.body.id}`, { token: owner.token }), 202);
    });

    it('a private group is 404 to outsiders and anonymous callers, everywhere under it', async () => {
      for (const token of [outsider.token, null]) {
        for (const path of [`/groups/${acme.id}`, `/groups/acme`, `/groups/${acme.id}/subgroups`, `/groups/${acme.id}/descendant_groups`, `/groups/${acme.id}/projects`, `/groups/${acme.id}/members`, `/groups/${sub.id}`]) {
          const r = await f.api('GET', path, { token });
          assert.deepEqual([r.status, r.body], [404, GROUP_NOT_FOUND], `${token ? 'outsider' : 'anonymous'} ${path}`);
        }
      }
      const put = await f.api('PUT', `/groups/${acme.id}`, { token: outsider.token, body: { description: 'mine now' } });
      assert.deepEqual([put.status, put.body], [404, GROUP_NOT_FOUND]);
      const del = await f.api('DELETE', `/groups/${acme.id}`, { token: outsider.token });
      assert.deepEqual([del.status, del.body], [404, GROUP_NOT_FOUND]);
      const listed = await f.api('GET', '/groups?all_available=true', { token: outsider.token });
      assert.equal(listed.body.some((g: any) => g.full_path.startsWith('acme')), false);
    });

    it('members of a subgroup or of a project inside see the ancestors, not the siblings', async () => {
      for (const [user, visible, hidden] of [
        [submember, [acme, sub, deep], [subOther]],
        [projmember, [acme, sub, deep], [subOther]],
      ] as const) {
        for (const g of visible) expectStatus(await f.api('GET', `/groups/${g.id}`, { token: user.token }), 200);
        for (const g of hidden) {
          const r = await f.api('GET', `/groups/${g.id}`, { token: user.token });
          assert.deepEqual([r.status, r.body], [404, GROUP_NOT_FOUND], `${user.username} ${g.full_path}`);
        }
      }
      // visible ancestors do not grant their private projects
      const top = await f.api('GET', `/projects/${pTop.id}`, { token: submember.token });
      assert.deepEqual([top.status, top.body], [404, { message: '404 Project Not Found' }]);
      expectStatus(await f.api('GET', `/projects/${pSub.id}`, { token: submember.token }), 200);
      const listed = await f.api('GET', `/groups/${acme.id}/projects?include_subgroups=true&order_by=path&sort=asc`, { token: submember.token });
      assert.deepEqual(listed.body.map((p: any) => p.path_with_namespace), ['acme/sub/deep/deep-p', 'acme/sub/sub-p']);
    });

    it('internal groups are visible to signed-in users, public ones to everyone', async () => {
      const internal = await createGroup(f, owner.token, { name: 'Inside', path: 'inside', visibility: 'internal' });
      const pub = await createGroup(f, owner.token, { name: 'Everyone', path: 'everyone', visibility: 'public' });
      expectStatus(await f.api('GET', `/groups/${internal.id}`, { token: outsider.token }), 200);
      assert.deepEqual((await f.api('GET', `/groups/${internal.id}`, { token: null })).body, GROUP_NOT_FOUND);
      expectStatus(await f.api('GET', `/groups/${pub.id}`, { token: null }), 200);

      const anon = await f.api('GET', '/groups?search=i', { token: null });
      assert.deepEqual(anon.body.map((g: any) => g.path).filter((p: string) => ['inside', 'everyone'].includes(p)), []);
      const anonAll = await f.api('GET', '/groups', { token: null });
      assert.ok(anonAll.body.some((g: any) => g.path === 'everyone'));
      assert.ok(anonAll.body.every((g: any) => g.visibility === 'public'));
      const mine = await f.api('GET', '/groups', { token: outsider.token });
      assert.deepEqual(mine.body, [], 'without all_available a user lists only their groups');
      const available = await f.api('GET', '/groups?all_available=true', { token: outsider.token });
      assert.deepEqual(available.body.map((g: any) => g.path).sort(), ['everyone', 'inside']);
      const owned = await f.api('GET', '/groups?owned=true&top_level_only=true', { token: owner.token });
      assert.deepEqual(owned.body.map((g: any) => g.path), ['acme', 'everyone', 'inside']);
    });

    it('roles: Maintainers create subgroups, only Owners edit or delete; Developers cannot create subgroups', async () => {
      const bySub = await f.api('POST', '/groups', { token: maint.token, body: { name: 'M Sub', path: 'm-sub', parent_id: acme.id } });
      expectStatus(bySub, 201);
      const byDev = await f.api('POST', '/groups', { token: dev.token, body: { name: 'D Sub', path: 'd-sub', parent_id: acme.id } });
      assert.deepEqual([byDev.status, byDev.body], [403, { message: '403 Forbidden' }]);
      const byOutsider = await f.api('POST', '/groups', { token: outsider.token, body: { name: 'O Sub', path: 'o-sub', parent_id: acme.id } });
      assert.deepEqual([byOutsider.status, byOutsider.body], [404, GROUP_NOT_FOUND]);
      for (const [method, body] of [['PUT', { description: 'x' }], ['DELETE', undefined]] as const) {
        const r = await f.api(method, `/groups/${acme.id}`, { token: maint.token, body });
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }], method);
      }
      expectStatus(await f.api('DELETE', `/groups/${bySub.body.id}`, { token: owner.token }), 202);
    });

    it('project_creation_level decides who creates projects in the group', async () => {
      const g = await createGroup(f, owner.token, { name: 'Pcl', path: 'pcl' });
      await addMember(f, 'groups', g.id, dev.id, 30);
      expectStatus(await f.api('POST', '/projects', { token: dev.token, body: { name: 'ok', namespace_id: g.id } }), 201);
      const upd = await f.api('PUT', `/groups/${g.id}`, { token: owner.token, body: { project_creation_level: 'maintainer' } });
      expectStatus(upd, 200);
      assert.equal(upd.body.project_creation_level, 'maintainer');
      const r = await f.api('POST', '/projects', { token: dev.token, body: { name: 'refused', namespace_id: g.id } });
      assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }]);
    });

    it('renaming a group rewrites full paths and names below it, and nothing beside it', async () => {
      const top = await createGroup(f, owner.token, { name: 'Ren', path: 'ren' });
      const a = await createGroup(f, owner.token, { name: 'A', path: 'a', parent_id: top.id });
      const aa = await createGroup(f, owner.token, { name: 'AA', path: 'aa', parent_id: a.id });
      const ab = await createGroup(f, owner.token, { name: 'A B', path: 'a-b', parent_id: top.id }); // shares the "ren/a" prefix
      const pa = await createProject(f, owner.token, { name: 'PA', path: 'pa', namespace_id: aa.id });
      const pab = await createProject(f, owner.token, { name: 'PAB', path: 'pab', namespace_id: ab.id });

      const r = await f.api('PUT', `/groups/${top.id}`, { token: owner.token, body: { name: 'Renamed', path: 'renamed' } });
      expectStatus(r, 200);
      assert.deepEqual([r.body.full_path, r.body.full_name, r.body.web_url], ['renamed', 'Renamed', `${f.url}/groups/renamed`]);
      const get = async (path: string) => (await f.api('GET', path, { token: owner.token })).body;
      assert.deepEqual([(await get(`/groups/${aa.id}`)).full_path, (await get(`/groups/${aa.id}`)).full_name], ['renamed/a/aa', 'Renamed / A / AA']);
      assert.equal((await get(`/groups/${enc('renamed/a-b')}`)).id, ab.id);
      const movedProject = await get(`/projects/${enc('renamed/a/aa/pa')}`);
      assert.deepEqual(
        [movedProject.id, movedProject.path_with_namespace, movedProject.name_with_namespace, movedProject.web_url, movedProject.namespace.full_path],
        [pa.id, 'renamed/a/aa/pa', 'Renamed / A / AA / PA', `${f.url}/renamed/a/aa/pa`, 'renamed/a/aa'],
      );

      const inner = await f.api('PUT', `/groups/${a.id}`, { token: owner.token, body: { path: 'a2' } });
      expectStatus(inner, 200);
      assert.equal(inner.body.full_path, 'renamed/a2');
      assert.equal((await get(`/groups/${aa.id}`)).full_path, 'renamed/a2/aa');
      assert.equal((await get(`/projects/${pa.id}`)).path_with_namespace, 'renamed/a2/aa/pa');
      assert.equal((await get(`/groups/${ab.id}`)).full_path, 'renamed/a-b', 'a sibling with the same prefix is untouched');
      assert.equal((await get(`/projects/${pab.id}`)).path_with_namespace, 'renamed/a-b/pab');

      const taken = await f.api('PUT', `/groups/${a.id}`, { token: owner.token, body: { path: 'a-b' } });
      assert.deepEqual([taken.status, taken.body], [400, { message: { path: ['has already been taken'] } }]);
      assert.equal((await get(`/groups/${aa.id}`)).full_path, 'renamed/a2/aa', 'a refused rename changes nothing');
    });

    it('deleting a group removes its subgroups and projects', async () => {
      const g = await createGroup(f, owner.token, { name: 'Gone', path: 'gone' });
      const s = await createGroup(f, owner.token, { name: 'Gone Sub', path: 'gs', parent_id: g.id });
      const p = await createProject(f, owner.token, { name: 'gp', namespace_id: s.id });
      const keep = await createProject(f, owner.token, { name: 'kept', namespace_id: acme.id });
      const before = await snapshotCounts(f);
      const r = await f.api('DELETE', `/groups/${g.id}`, { token: owner.token });
      assert.deepEqual([r.status, r.body], [202, { message: '202 Accepted' }]);
      for (const path of [`/groups/${g.id}`, `/groups/${s.id}`]) assert.equal((await f.api('GET', path)).status, 404, path);
      assert.equal((await f.api('GET', `/projects/${p.id}`)).status, 404);
      expectStatus(await f.api('GET', `/projects/${keep.id}`), 200);
      assert.deepEqual(await snapshotCounts(f), { ...before, groups: before.groups - 2, projects: before.projects - 1 });
      const recreate = await f.api('POST', '/groups', { token: owner.token, body: { name: 'Gone', path: 'gone' } });
      expectStatus(recreate, 201);
    });

    it('an expired membership grants nothing', async () => {
      const g = await createGroup(f, owner.token, { name: 'Temp', path: 'temp' });
      const p = await createProject(f, owner.token, { name: 'tp', namespace_id: g.id });
      const temp = await f.createUser('temporary');
      const tomorrow = new Date(clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
      const added = await f.api('POST', `/groups/${g.id}/members`, { token: owner.token, body: { user_id: temp.id, access_level: 30, expires_at: tomorrow } });
      expectStatus(added, 201);
      assert.equal(added.body.expires_at, tomorrow);
      expectStatus(await f.api('GET', `/groups/${g.id}`, { token: temp.token }), 200);
      expectStatus(await f.api('GET', `/projects/${p.id}`, { token: temp.token }), 200);
      try {
        clock.set(new Date(`${tomorrow}T00:00:01.000Z`));
        assert.deepEqual((await f.api('GET', `/groups/${g.id}`, { token: temp.token })).body, GROUP_NOT_FOUND);
        assert.equal((await f.api('GET', `/projects/${p.id}`, { token: temp.token })).status, 404);
        assert.deepEqual((await f.api('GET', '/groups', { token: temp.token })).body, []);
        assert.deepEqual((await f.api('GET', '/projects', { token: temp.token })).body, []);
      } finally {
        clock.set(new Date());
      }
    });
  });
}
