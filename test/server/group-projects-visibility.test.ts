/**
 * GET /groups/:id/projects for callers who are not admins. A member of the group (or of an
 * ancestor) sees every project under it, and the list skips the per-row filter for them;
 * everyone else gets the per-row visibility filter (public and internal projects, their own
 * project memberships, the subgroups they belong to).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';

type User = { id: number; username: string; token: string };

for (const dialect of DIALECTS) {
  describe(`${dialect}: group project lists for non-admins`, () => {
    let f: TestForgelet;
    let owner: User;
    let parentDev: User;
    let subDev: User;
    let projectGuest: User;
    let expired: User;
    let outsider: User;
    let parent: any;
    let sub: any;

    const listed = async (group: any, token: string, query = '') => {
      const r = await f.api('GET', `/groups/${group.id}/projects?per_page=100&order_by=path&sort=asc${query}`, { token });
      expectStatus(r, 200);
      return { paths: r.body.map((p: any) => p.path_with_namespace), total: r.headers.get('x-total') };
    };

    before(async () => {
      f = await startTestServer(dialect);
      [owner, parentDev, subDev, projectGuest, expired, outsider] = await createUsers(f, ['gpv-owner', 'gpv-parent-dev', 'gpv-sub-dev', 'gpv-guest', 'gpv-expired', 'gpv-outsider']);
      parent = await createGroup(f, owner.token, { name: 'Vis Parent', path: 'vis-parent', visibility: 'internal' });
      sub = await createGroup(f, owner.token, { name: 'Vis Sub', path: 'vis-sub', parent_id: parent.id, visibility: 'internal' });
      await createProject(f, owner.token, { name: 'p-private', namespace_id: parent.id, visibility: 'private' });
      await createProject(f, owner.token, { name: 'p-internal', namespace_id: parent.id, visibility: 'internal' });
      const guestOf = await createProject(f, owner.token, { name: 'p-guest-only', namespace_id: parent.id, visibility: 'private' });
      await createProject(f, owner.token, { name: 's-private', namespace_id: sub.id, visibility: 'private' });
      await addMember(f, 'groups', parent.id, parentDev.id, 30);
      await addMember(f, 'groups', sub.id, subDev.id, 30);
      await addMember(f, 'projects', guestOf.id, projectGuest.id, 10);
      const member = await addMember(f, 'groups', parent.id, expired.id, 30);
      assert.ok(member);
      // a membership that ended yesterday (by the server's clock) grants nothing
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      await f.forge.deps.db.updateTable('members').set({ expires_at: yesterday }).where('user_id', '=', expired.id).execute();
    });
    after(() => f.stop());

    it('a member of the group sees all its projects, and with include_subgroups the subgroups\' too', async () => {
      assert.deepEqual(await listed(parent, parentDev.token), { paths: ['vis-parent/p-guest-only', 'vis-parent/p-internal', 'vis-parent/p-private'], total: '3' });
      assert.deepEqual((await listed(parent, parentDev.token, '&include_subgroups=true')).paths, [
        'vis-parent/p-guest-only', 'vis-parent/p-internal', 'vis-parent/p-private', 'vis-parent/vis-sub/s-private',
      ]);
      assert.deepEqual((await listed(sub, parentDev.token)).paths, ['vis-parent/vis-sub/s-private'], 'a member of the parent sees the subgroup\'s projects');
    });

    it('a member of a subgroup sees the parent\'s internal projects and the subgroup\'s, not the parent\'s private ones', async () => {
      assert.deepEqual(await listed(parent, subDev.token), { paths: ['vis-parent/p-internal'], total: '1' });
      assert.deepEqual((await listed(parent, subDev.token, '&include_subgroups=true')).paths, ['vis-parent/p-internal', 'vis-parent/vis-sub/s-private']);
      assert.deepEqual((await listed(sub, subDev.token)).paths, ['vis-parent/vis-sub/s-private']);
    });

    it('a member of one project sees that project and the internal ones', async () => {
      assert.deepEqual(await listed(parent, projectGuest.token, '&include_subgroups=true'), { paths: ['vis-parent/p-guest-only', 'vis-parent/p-internal'], total: '2' });
    });

    it('an expired group membership and no membership see only internal projects', async () => {
      for (const user of [expired, outsider]) {
        assert.deepEqual(await listed(parent, user.token, '&include_subgroups=true'), { paths: ['vis-parent/p-internal'], total: '1' }, user.username);
      }
    });

    it('membership=true and min_access_level keep their meaning inside a group', async () => {
      assert.deepEqual((await listed(parent, parentDev.token, '&membership=true')).paths, ['vis-parent/p-guest-only', 'vis-parent/p-internal', 'vis-parent/p-private']);
      assert.deepEqual((await listed(parent, parentDev.token, '&min_access_level=40')).paths, []);
      assert.deepEqual((await listed(parent, projectGuest.token, '&membership=true&include_subgroups=true')).paths, ['vis-parent/p-guest-only']);
      assert.deepEqual((await listed(parent, subDev.token, '&min_access_level=30&include_subgroups=true')).paths, ['vis-parent/vis-sub/s-private']);
    });
  });
}
