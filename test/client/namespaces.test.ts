import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client namespaces`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let alice: { id: number; username: string; token: string };
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      alice = await f.createUser('alice');
      const acme = await api.groups.create({ name: 'Acme', path: 'acme' });
      await api.groups.create({ name: 'Web', path: 'web', parent_id: acme.id });
      await api.groupMembers.add(acme.id, { user_id: alice.id, access_level: 50 });
    });
    after(() => f.stop());

    it('all, show by id and by path, exists', async () => {
      const asAlice = clientFor(f, { token: alice.token });
      const mine = await asAlice.namespaces.all().toArray();
      assert.deepEqual(mine.map((n) => [n.kind, n.full_path]), [['user', 'alice'], ['group', 'acme']]);
      const acme = await asAlice.namespaces.show('acme');
      assert.equal(acme.members_count_with_descendants, 2, 'root and alice');
      const web = await asAlice.namespaces.show('acme/web');
      assert.equal(web.kind, 'group');
      assert.equal(web.members_count_with_descendants, 1, 'members of the group and its subgroups, not of its parent');
      assert.equal(web.plan, 'default');
      assert.deepEqual(await asAlice.namespaces.show(web.id), web);
      assert.deepEqual(await asAlice.namespaces.exists('acme'), { exists: true, suggests: ['acme1'] });
      assert.deepEqual(await asAlice.namespaces.exists('web', { parent_id: web.parent_id! }), { exists: true, suggests: ['web1'] });
      assert.deepEqual(await asAlice.namespaces.exists('nope'), { exists: false, suggests: [] });
      const hidden = await apiError(asAlice.namespaces.show('root'));
      assert.deepEqual([hidden.status, hidden.body], [404, { message: '404 Namespace Not Found' }]);
    });
  });
}
