import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Forgelet } from '@forgelet/client';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { apiError, clientFor, recordingFetch } from './helpers.js';

const entity = (key: string, value: string | null, extra: Record<string, unknown> = {}) => ({
  variable_type: 'env_var', key, value, hidden: false, protected: false, masked: false, raw: false, environment_scope: '*', description: null, ...extra,
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: client CI/CD variables`, () => {
    let f: TestForgelet;
    let api: Forgelet;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startTestServer(dialect, { workers: false });
      api = clientFor(f);
      group = await api.groups.create({ name: 'Vars', path: 'client-vars' });
      project = await api.projects.create({ name: 'Svc', path: 'svc', namespace_id: group.id });
    });
    after(() => f.stop());

    it('project variables: create, show with a filter, edit, iterate, remove', async () => {
      const { fetch, sent } = recordingFetch();
      const recorded = clientFor(f, { fetch });
      const created = await recorded.projectVariables.create(project.path_with_namespace, 'API_TOKEN', 'token-value-1', { masked: true, environment_scope: 'production' });
      assert.equal(sent[0].url, `${f.url}/api/v4/projects/client-vars%2Fsvc/variables`);
      assert.deepEqual(JSON.parse(String(sent[0].body)), { key: 'API_TOKEN', value: 'token-value-1', masked: true, environment_scope: 'production' });
      assert.deepEqual(created, entity('API_TOKEN', 'token-value-1', { masked: true, environment_scope: 'production' }));
      await api.projectVariables.create(project.id, 'API_TOKEN', 'fallback');

      const conflict = await apiError(api.projectVariables.show(project.id, 'API_TOKEN'));
      assert.equal(conflict.status, 409);
      const shown = await recorded.projectVariables.show(project.id, 'API_TOKEN', { filter: { environment_scope: 'production' } });
      assert.equal(sent[1].url, `${f.url}/api/v4/projects/${project.id}/variables/API_TOKEN?filter%5Benvironment_scope%5D=production`);
      assert.equal(shown.value, 'token-value-1');

      const edited = await api.projectVariables.edit(project.id, 'API_TOKEN', { value: 'fallback-2', description: 'default', filter: { environment_scope: '*' } });
      assert.deepEqual(edited, entity('API_TOKEN', 'fallback-2', { description: 'default' }));
      const all = await api.projectVariables.all(project.id, { per_page: 1 }).toArray();
      assert.deepEqual(all.map((v) => [v.environment_scope, v.value]), [['production', 'token-value-1'], ['*', 'fallback-2']]);

      await recorded.projectVariables.remove(project.id, 'API_TOKEN', { filter: { environment_scope: 'production' } });
      assert.equal(sent.at(-1)!.method, 'DELETE');
      assert.equal(sent.at(-1)!.url, `${f.url}/api/v4/projects/${project.id}/variables/API_TOKEN?filter%5Benvironment_scope%5D=production`);
      assert.deepEqual((await api.projectVariables.all(project.id).toArray()).map((v) => v.environment_scope), ['*']);
      await api.projectVariables.remove(project.id, 'API_TOKEN');
      const gone = await apiError(api.projectVariables.show(project.id, 'API_TOKEN'));
      assert.deepEqual([gone.status, gone.body], [404, { message: '404 Variable Not Found' }]);
    });

    it('refusals carry GitLab bodies', async () => {
      const err = await apiError(api.projectVariables.create(project.id, 'SHORT', 'short', { masked: true }));
      assert.deepEqual([err.status, err.body], [400, { message: { value: ['is invalid'] } }]);
    });

    it('group variables: create hidden, show, edit, iterate, remove', async () => {
      const hidden = await api.groupVariables.create(group.full_path, 'DEPLOY_KEY', 'deploy-key-value', { masked_and_hidden: true, variable_type: 'file' });
      assert.deepEqual(hidden, entity('DEPLOY_KEY', null, { hidden: true, masked: true, variable_type: 'file' }));
      assert.equal((await api.groupVariables.show(group.id, 'DEPLOY_KEY')).value, null);
      const edited = await api.groupVariables.edit(group.id, 'DEPLOY_KEY', { protected: true });
      assert.equal(edited.protected, true);
      assert.deepEqual((await api.groupVariables.all(group.id).toArray()).map((v) => v.key), ['DEPLOY_KEY']);
      await api.groupVariables.remove(group.id, 'DEPLOY_KEY');
      assert.equal((await apiError(api.groupVariables.show(group.id, 'DEPLOY_KEY'))).status, 404);
    });

    it('instance variables: create, show, edit, iterate, remove (administrators)', async () => {
      const created = await api.instanceVariables.create('INSTANCE_WIDE', 'everyone', { description: 'for all jobs' });
      assert.deepEqual(created, { variable_type: 'env_var', key: 'INSTANCE_WIDE', value: 'everyone', protected: false, masked: false, raw: false, description: 'for all jobs' });
      assert.equal((await api.instanceVariables.show('INSTANCE_WIDE')).value, 'everyone');
      assert.equal((await api.instanceVariables.edit('INSTANCE_WIDE', { raw: true })).raw, true);
      assert.deepEqual((await api.instanceVariables.all().toArray()).map((v) => v.key), ['INSTANCE_WIDE']);
      await api.instanceVariables.remove('INSTANCE_WIDE');
      assert.equal((await apiError(api.instanceVariables.show('INSTANCE_WIDE'))).status, 404);
    });
  });
}
