import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet, GroupMembers, ProjectMembers } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

interface Kind {
  name: string;
  members: (api: Forgelet) => ProjectMembers | GroupMembers;
  /** The source (as a full path) and the group it inherits from. */
  source: string;
  parent: string;
}

// One template serves both, so both run the same cases.
const KINDS: Kind[] = [
  { name: 'groupMembers', members: (api) => api.groupMembers, source: 'team/app', parent: 'team' },
  { name: 'projectMembers', members: (api) => api.projectMembers, source: 'team/app/svc', parent: 'team/app' },
];

for (const dialect of DIALECTS) {
  describe(`${dialect}: client project and group members`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let root: { id: number };
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      root = await api.users.current();
      const team = await api.groups.create({ name: 'Team', path: 'team' });
      const app = await api.groups.create({ name: 'App', path: 'app', parent_id: team.id });
      await api.projects.create({ name: 'svc', namespace_id: app.id });
    });
    after(() => f.stop());

    for (const kind of KINDS) {
      describe(kind.name, () => {
        let alice: { id: number; username: string; token: string };
        let bob: { id: number; username: string; token: string };
        before(async () => {
          alice = await f.createUser(`alice-${kind.name}`);
          bob = await f.createUser(`bob-${kind.name}`);
          // alice inherits Reporter from the parent group
          await api.groupMembers.add(kind.parent, { user_id: alice.id, access_level: 20 });
        });

        it('add by username and by id, then show', async () => {
          const added = await kind.members(api).add(kind.source, { username: bob.username, access_level: 30 });
          assert.equal(added.id, bob.id);
          assert.equal(added.username, bob.username);
          assert.equal(added.access_level, 30);
          assert.equal(added.created_by?.id, root.id);
          assert.equal(added.expires_at, null);
          assert.deepEqual(await kind.members(api).show(kind.source, bob.id), added);

          const carol = await f.createUser(`carol-${kind.name}`);
          const byId = await kind.members(api).add(kind.source, { user_id: carol.id, access_level: 10, expires_at: '2099-12-31' });
          assert.equal(byId.id, carol.id);
          assert.equal(byId.expires_at, '2099-12-31');

          const again = await apiError(kind.members(api).add(kind.source, { user_id: carol.id, access_level: 10 }));
          assert.equal(again.status, 409);
          assert.deepEqual(again.body, { message: 'Member already exists' });
        });

        it('all lists direct members; allInherited adds inherited ones with their level', async () => {
          const direct = await kind.members(api).all(kind.source).toArray();
          assert.ok(direct.some((m) => m.id === bob.id && m.access_level === 30));
          assert.ok(!direct.some((m) => m.id === alice.id));

          const filtered = await kind.members(api).all(kind.source, { query: 'bob' }).toArray();
          assert.deepEqual(filtered.map((m) => m.id), [bob.id]);
          const picked = await kind.members(api).allInherited(kind.source, { user_ids: [alice.id, bob.id] }).toArray();
          assert.deepEqual(picked.map((m) => m.id).sort((x, y) => x - y), [alice.id, bob.id].sort((x, y) => x - y));

          const inherited = kind.members(api).allInherited(kind.source, { per_page: 1 });
          const byId = new Map<number, number>();
          for await (const m of inherited) byId.set(m.id, m.access_level);
          assert.equal(byId.get(alice.id), 20);
          assert.equal(byId.get(bob.id), 30);
          assert.equal(byId.get(root.id), 50);
          assert.equal(inherited.pagination?.total, byId.size);
          assert.equal(inherited.pagination?.page, byId.size);
        });

        it('showInherited finds an inherited member; show does not', async () => {
          const member = await kind.members(api).showInherited(kind.source, alice.id);
          assert.equal(member.username, alice.username);
          assert.equal(member.access_level, 20);
          const direct = await apiError(kind.members(api).show(kind.source, alice.id));
          assert.equal(direct.status, 404);
          assert.deepEqual(direct.body, { message: '404 Member Not Found' });
        });

        it('add below an inherited level is a 400 with the model error', async () => {
          const err = await apiError(kind.members(api).add(kind.source, { user_id: alice.id, access_level: 10 }));
          assert.equal(err.status, 400);
          assert.deepEqual(err.body, {
            message: { access_level: [`should be greater than or equal to Reporter inherited membership from group ${kind.parent === 'team' ? 'Team' : 'Team / App'}`] },
          });
        });

        it('edit changes the level and expiry', async () => {
          const edited = await kind.members(api).edit(kind.source, bob.id, { access_level: 40, expires_at: '2099-06-30' });
          assert.equal(edited.access_level, 40);
          assert.equal(edited.expires_at, '2099-06-30');
          assert.equal((await kind.members(api).show(kind.source, bob.id)).access_level, 40);
          const cleared = await kind.members(api).edit(kind.source, bob.id, { access_level: 40, expires_at: null });
          assert.equal(cleared.expires_at, null);
        });

        it('a member without admin rights gets 403; remove deletes the membership', async () => {
          const asBob = clientFor(f, { token: bob.token });
          const denied = await apiError(asBob.groupMembers.add(kind.parent, { user_id: bob.id, access_level: 50 }));
          assert.equal(denied.status, 403);

          await kind.members(api).remove(kind.source, bob.id);
          const gone = await apiError(kind.members(api).show(kind.source, bob.id));
          assert.equal(gone.status, 404);
          assert.ok(!(await kind.members(api).allInherited(kind.source).toArray()).some((m) => m.id === bob.id));
          assert.equal((await apiError(kind.members(api).remove(kind.source, bob.id))).status, 404);
        });
      });
    }
  });
}
