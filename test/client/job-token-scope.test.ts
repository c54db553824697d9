import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client job token scope and application settings`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect);
      api = clientFor(f);
    });
    after(() => f.stop());

    it('shows, edits and manages both allowlists, following pages', async () => {
      const group = await api.groups.create({ name: 'Scoped', path: 'scoped' });
      const target = await api.projects.create({ name: 'target', namespace_id: group.id });
      const others = [];
      for (const name of ['a', 'b', 'c']) others.push(await api.projects.create({ name }));
      assert.deepEqual(await api.jobTokenScopes.show(target.id), { inbound_enabled: true, outbound_enabled: false });
      await api.jobTokenScopes.edit(target.path_with_namespace, false);
      assert.equal((await api.jobTokenScopes.show(target.id)).inbound_enabled, false);
      for (const p of others) assert.deepEqual(await api.jobTokenScopes.addProject(target.id, p.id), { source_project_id: target.id, target_project_id: p.id });
      const ids = [];
      for await (const p of api.jobTokenScopes.allowlist(target.id, { per_page: 2 })) ids.push(p.id);
      assert.deepEqual(ids, [target.id, ...others.map((p) => p.id)]);
      await api.jobTokenScopes.removeProject(target.id, others[1]!.id);
      assert.deepEqual((await api.jobTokenScopes.allowlist(target.id).toArray()).map((p) => p.id), [target.id, others[0]!.id, others[2]!.id]);
      assert.deepEqual(await api.jobTokenScopes.addGroup(target.id, group.id), { source_project_id: target.id, target_group_id: group.id });
      assert.deepEqual((await api.jobTokenScopes.groupsAllowlist(target.id).toArray()).map((g) => g.name), ['Scoped']);
      const dup = await apiError(api.jobTokenScopes.addGroup(target.id, group.id));
      assert.deepEqual([dup.status, dup.body], [400, { message: 'This group is already in the job token scope' }]);
      await api.jobTokenScopes.removeGroup(target.id, group.id);
      assert.deepEqual(await api.jobTokenScopes.groupsAllowlist(target.id).toArray(), []);
    });

    it('reads and changes the instance setting that enforces allowlists', async () => {
      assert.equal((await api.applicationSettings.show()).enforce_ci_inbound_job_token_scope_enabled, false);
      assert.equal((await api.applicationSettings.edit({ enforce_ci_inbound_job_token_scope_enabled: true })).enforce_ci_inbound_job_token_scope_enabled, true);
      const project = await api.projects.create({ name: 'enforced' });
      const refused = await apiError(api.jobTokenScopes.edit(project.id, false));
      assert.equal(refused.status, 400);
      await api.applicationSettings.edit({ enforce_ci_inbound_job_token_scope_enabled: false });
    });
  });
}
