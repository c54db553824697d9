import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client impersonation and deploy tokens`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let alice: { id: number; username: string; token: string };
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
      alice = await f.createUser('alice');
    });
    after(() => f.stop());

    it('userImpersonationTokens: create (token once), show, all with state, revoke', async () => {
      const t = await api.userImpersonationTokens.create(alice.id, { name: 'support', scopes: ['read_user'] });
      assert.equal(t.impersonation, true);
      const { token: _token, ...stored } = t;
      assert.deepEqual(await api.userImpersonationTokens.show(alice.id, t.id), stored);
      assert.equal((await clientFor(f, { token: t.token }).users.current()).username, 'alice');
      await api.userImpersonationTokens.revoke(alice.id, t.id);
      assert.deepEqual((await api.userImpersonationTokens.all(alice.id, { state: 'active' }).toArray()).map((x) => x.id), []);
      assert.deepEqual((await api.userImpersonationTokens.all(alice.id, { state: 'inactive' }).toArray()).map((x) => x.id), [t.id]);
    });

    it('projectDeployTokens, groupDeployTokens and deployTokens', async () => {
      const group = await api.groups.create({ name: 'Dt', path: 'dt' });
      const project = await api.projects.create({ name: 'app', namespace_id: group.id });
      const pt = await api.projectDeployTokens.create(project.id, { name: 'ci', scopes: ['read_package_registry'], expires_at: '2099-01-01T00:00:00.000Z' });
      assert.match(pt.token, /^gldt-/);
      assert.equal(pt.expires_at, '2099-01-01T00:00:00.000Z');
      const gt = await api.groupDeployTokens.create('dt', { name: 'grp', scopes: ['read_repository'], username: 'grp-bot' });
      assert.equal((await api.projectDeployTokens.show('dt/app', pt.id)).name, 'ci');
      assert.deepEqual((await api.groupDeployTokens.all(group.id).toArray()).map((t) => t.username), ['grp-bot']);
      assert.deepEqual((await api.deployTokens.all({ active: true }).toArray()).map((t) => t.id), [pt.id, gt.id]);
      await api.projectDeployTokens.remove(project.id, pt.id);
      await api.groupDeployTokens.remove(group.id, gt.id);
      const gone = await apiError(api.groupDeployTokens.show(group.id, gt.id));
      assert.equal(gone.status, 404);
    });
  });
}
