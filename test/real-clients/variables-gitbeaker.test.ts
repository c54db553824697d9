/**
 * @gitbeaker/rest 43.8.0 against the served Forgelet: CI/CD variables through ProjectVariables,
 * GroupVariables (all, create, show, edit, remove) and InstanceLevelCICDVariables (all, create,
 * show, edit). gitbeaker sends `filter` as `filter[environment_scope]=…` in the query of a GET but
 * inside the JSON body of a PUT and a DELETE; both are honoured. Its
 * InstanceLevelCICDVariables.remove sends a GET (gitbeaker bug: it answers the variable and
 * deletes nothing), so the instance DELETE goes through its requester. Masked values are refused
 * with GitLab's message; a masked_and_hidden value is never answered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure, recordFetch } from './support.js';
import { AMBIGUOUS_KEY, HIDDEN_MASKED_UPDATE, HIDDEN_VALUE, INVALID_VALUE, instanceVariable, variable } from './variables-support.js';

type Client = InstanceType<typeof Gitlab>;
type Resource = Client['ProjectVariables'] | Client['GroupVariables'];
// gitbeaker 43.8's types lag its behaviour: edit() declares `filter` required, VariableFilter and
// masked_and_hidden are spelt snake_case (sent as written), and the instance edit has no
// description; such options are cast (`as never`), what goes on the wire is what the test asserts.

const failure = (status: number, message: unknown) => ({ status, message: typeof message === 'string' ? message : JSON.stringify(message) });

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitbeaker 43.8 CI/CD variables`, () => {
    let f: ServedForgelet;
    let api: Client;
    let group: { id: number; full_path: string };
    let project: { id: number; path_with_namespace: string };

    before(async () => {
      f = await startServed(dialect, { clock: { now: '2026-03-02T10:00:00.000Z' } });
      api = new Gitlab({ host: f.url, token: f.rootToken });
      group = (await api.Groups.create('Beaker Vars', 'beaker-vars')) as unknown as typeof group;
      project = (await api.Projects.create({ name: 'app', namespaceId: group.id })) as unknown as typeof project;
    });
    after(async () => {
      await f?.stop();
    });

    /** The whole cycle on a project's or a group's variables; `id` is the path, as users pass it. */
    async function scopedCycle(resource: Resource, id: string, notFound: string): Promise<void> {
      const token = variable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true, description: 'deploys' });
      assert.deepEqual(await resource.create(id, 'DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true, description: 'deploys' }), token);
      const config = variable('CONFIG', 'a: $HOME', { variable_type: 'file', raw: true });
      assert.deepEqual(await resource.create(id, 'CONFIG', 'a: $HOME', { variableType: 'file', raw: true }), config);
      assert.deepEqual(await resource.all(id), [token, config]);
      assert.deepEqual(await resource.show(id, 'DEPLOY_TOKEN'), token);
      assert.deepEqual(await resource.edit(id, 'DEPLOY_TOKEN', 's3cr3t-value-456', { protected: false } as never), { ...token, value: 's3cr3t-value-456', protected: false });

      // GitLab's masking rules and model errors.
      assert.deepEqual(await gitbeakerFailure(resource.create(id, 'SHORT', 'short', { masked: true })), failure(400, INVALID_VALUE));
      assert.deepEqual(await gitbeakerFailure(resource.edit(id, 'CONFIG', 'b: $HOME', { masked: true } as never)), failure(400, INVALID_VALUE));
      assert.deepEqual(await resource.create(id, 'RAW_MASKED', '$not{expanded}!', { masked: true, raw: true }), variable('RAW_MASKED', '$not{expanded}!', { masked: true, raw: true }));
      assert.deepEqual(await gitbeakerFailure(resource.create(id, 'DEPLOY_TOKEN', 'again-123')), failure(400, { key: ['(DEPLOY_TOKEN) has already been taken'] }));
      assert.deepEqual(await gitbeakerFailure(resource.show(id, 'NOPE')), failure(404, `404 ${notFound} Not Found`));

      // masked_and_hidden: the value is never answered again, and it stays masked.
      const hidden = variable('HIDDEN', null, { hidden: true, masked: true });
      assert.deepEqual(await resource.create(id, 'HIDDEN', HIDDEN_VALUE, { masked_and_hidden: true, masked: true }), hidden);
      assert.deepEqual(await resource.show(id, 'HIDDEN'), hidden);
      assert.deepEqual(await resource.edit(id, 'HIDDEN', `${HIDDEN_VALUE}-2`, { description: 'rotated' } as never), { ...hidden, description: 'rotated' });
      assert.deepEqual(await gitbeakerFailure(resource.edit(id, 'HIDDEN', HIDDEN_VALUE, { masked: false } as never)), failure(400, HIDDEN_MASKED_UPDATE));
      assert.doesNotMatch(JSON.stringify(await resource.all(id)), new RegExp(HIDDEN_VALUE));

      // Environment scopes: filter in the query (show), in the JSON body (edit, remove).
      await resource.create(id, 'SCOPED', 'prod-value', { environmentScope: 'production' });
      await resource.create(id, 'SCOPED', 'stage-value', { environmentScope: 'review/*' });
      assert.deepEqual(await gitbeakerFailure(resource.show(id, 'SCOPED')), failure(409, AMBIGUOUS_KEY));
      const review = { filter: { environment_scope: 'review/*' } };
      const wire = recordFetch();
      try {
        assert.deepEqual(await resource.show(id, 'SCOPED', review), variable('SCOPED', 'stage-value', { environment_scope: 'review/*' }));
        assert.deepEqual(await resource.edit(id, 'SCOPED', 'stage-2', review as never), variable('SCOPED', 'stage-2', { environment_scope: 'review/*' }));
      } finally {
        wire.restore();
      }
      assert.deepEqual(
        wire.exchanges.map(([method, path, status]) => [method, path.slice(path.indexOf('/variables/')), status]),
        [['GET', '/variables/SCOPED?filter%5Benvironment_scope%5D=review%2F%2A', 200], ['PUT', '/variables/SCOPED', 200]],
        'the GET has the filter in its query, the PUT in its JSON body',
      );
      assert.deepEqual(await resource.show(id, 'SCOPED', { filter: { environment_scope: 'production' } }), variable('SCOPED', 'prod-value', { environment_scope: 'production' }));
      await resource.remove(id, 'SCOPED', { filter: { environment_scope: 'production' } });
      assert.deepEqual((await resource.all(id)).filter((v) => v.key === 'SCOPED').map((v) => [v.environment_scope, v.value]), [['review/*', 'stage-2']]);

      await resource.remove(id, 'CONFIG');
      await resource.remove(id, 'DEPLOY_TOKEN');
      assert.deepEqual((await resource.all(id)).map((v) => v.key), ['RAW_MASKED', 'HIDDEN', 'SCOPED']);
      assert.deepEqual(await gitbeakerFailure(resource.show(id, 'CONFIG')), failure(404, `404 ${notFound} Not Found`));
    }

    it('ProjectVariables: all, create, show, edit, remove; masking, hidden values, environment scopes', async () => {
      await scopedCycle(api.ProjectVariables, project.path_with_namespace, 'Variable');
    });

    it('GroupVariables: the same', async () => {
      await scopedCycle(api.GroupVariables, group.full_path, 'GroupVariable');
    });

    it('InstanceLevelCICDVariables: all, create, show, edit; remove through the requester (gitbeaker sends a GET)', async () => {
      const v = api.InstanceLevelCICDVariables;
      const token = instanceVariable('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true });
      assert.deepEqual(await v.create('DEPLOY_TOKEN', 's3cr3t-value-123', { masked: true, protected: true }), token);
      assert.deepEqual(await v.create('CONFIG', 'a: $HOME', { variableType: 'file', raw: true }), instanceVariable('CONFIG', 'a: $HOME', { variable_type: 'file', raw: true }));
      assert.deepEqual((await v.all()).map((x) => x.key), ['DEPLOY_TOKEN', 'CONFIG']);
      assert.deepEqual(await v.show('DEPLOY_TOKEN'), token);
      assert.deepEqual(await v.edit('DEPLOY_TOKEN', 's3cr3t-value-456', { description: 'deploys' } as never), { ...token, value: 's3cr3t-value-456', description: 'deploys' });
      assert.deepEqual(await gitbeakerFailure(v.create('SHORT', 'short', { masked: true })), failure(400, INVALID_VALUE));
      assert.deepEqual(await gitbeakerFailure(v.create('HUGE', 'x'.repeat(10_001))), failure(400, { value: ['The value of the provided variable exceeds the 10000 character limit'] }));
      assert.deepEqual(await gitbeakerFailure(v.show('NOPE')), failure(404, '404 InstanceVariable Not Found'));
      // gitbeaker 43.8's remove() is a GET of the variable: it deletes nothing.
      assert.deepEqual(await v.remove('CONFIG'), instanceVariable('CONFIG', 'a: $HOME', { variable_type: 'file', raw: true }));
      for (const key of ['CONFIG', 'DEPLOY_TOKEN']) assert.equal((await api.requester.delete(`admin/ci/variables/${key}`)).status, 204);
      assert.deepEqual(await v.all(), []);
    });
  });
}
