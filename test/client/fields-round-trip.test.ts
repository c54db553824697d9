import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { clientFor } from './helpers.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: client label priority and approvals_before_merge`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    before(async () => {
      f = await startTestServer(dialect, { tier: 'premium' });
      api = clientFor(f);
    });
    after(() => f.stop());

    it('projectLabels create/edit/show carry priority; null removes it', async () => {
      const project = await api.projects.create({ name: 'prio' });
      const bug = await api.projectLabels.create(project.id, { name: 'bug', color: '#d9534f', priority: 3 });
      assert.equal(bug.priority, 3);
      assert.equal((await api.projectLabels.edit(project.id, 'bug', { priority: 1 })).priority, 1);
      assert.deepEqual((await api.projectLabels.all(project.id).toArray()).map((l) => l.priority), [1]);
      assert.equal((await api.projectLabels.edit(project.id, bug.id, { priority: null })).priority, null);
      assert.equal((await api.projectLabels.show(project.id, 'bug')).priority, null);
    });

    it('projects create/edit/show carry approvals_before_merge; approvals settings agree', async () => {
      const project = await api.projects.create({ name: 'abm', approvals_before_merge: 2 });
      assert.equal(project.approvals_before_merge, 2);
      const edited = await api.projects.edit(project.id, { approvals_before_merge: 4 });
      assert.equal(edited.approvals_before_merge, 4);
      assert.equal((await api.projects.show(project.id)).approvals_before_merge, 4);
    });
  });
}
