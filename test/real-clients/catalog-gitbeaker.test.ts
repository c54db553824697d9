/**
 * @gitbeaker/rest 43.8.0 against the served Forgelet: the specification's lookup of
 * `ai_catalog_item_consumer_id` done literally (gitbeaker has no GraphQL call: the query is a
 * plain POST /api/graphql; gitbeaker has no flows resource: the trigger goes through its
 * requester, as GitLab's own docs post it), the consumed version recorded, and the refusals.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Gitlab } from '@gitbeaker/rest';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';
import { gitbeakerFailure } from './support.js';
import { createCatalogWorld, FLOW_NAME, gql, type CatalogWorld } from './catalog-support.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: gitbeaker 43.8 catalog flows`, () => {
    let f: ServedForgelet;
    let world: CatalogWorld;
    let api: InstanceType<typeof Gitlab>;
    const trigger = (body: Record<string, unknown>) =>
      api.Projects.requester.post<Record<string, any>>('ai/duo_workflows/workflows', { body: { project_id: String(world.project.id), ...body } });

    before(async () => {
      f = await startServed(dialect);
      world = await createCatalogWorld(f, 'gb');
      api = new Gitlab({ host: f.url, token: world.developer.token });
    });
    after(() => f?.stop());

    it('looks the consumer up with a Project Global ID and triggers the flow with its numeric suffix', async () => {
      const project = await api.Projects.show(world.project.path_with_namespace);
      const data = await gql(f, world.developer.token, 'query($p: ProjectID!) { aiCatalogConfiguredItems(projectId: $p) { nodes { id item { name } } } }', {
        p: `gid://gitlab/Project/${project.id}`,
      });
      const node = data.aiCatalogConfiguredItems.nodes.find((n: any) => n.item.name === FLOW_NAME);
      assert.match(node.id, /^gid:\/\/gitlab\/AiCatalogItemConsumer\/\d+$/);
      const consumerId = Number(node.id.split('/').pop());
      assert.equal(consumerId, world.consumerId);

      const flow = await trigger({ ai_catalog_item_consumer_id: consumerId, workflow_definition: 'software_development', start_workflow: false });
      assert.equal(flow.status, 201);
      assert.deepEqual(
        [flow.body.project_id, flow.body.ai_catalog_item_version_id, flow.body.workflow_definition, flow.body.title],
        [world.project.id, world.versionId, 'ai_catalog_agent', `${FLOW_NAME}: drafts the notes`],
      );
      // GitLab's spelling of the consumer's Global ID is accepted as input too.
      const gitlabSpelling = await gql(f, world.developer.token, 'query($p: ProjectID!, $i: AiCatalogItemID) { aiCatalogConfiguredItems(projectId: $p, itemId: $i) { nodes { id } } }', {
        p: `gid://gitlab/Project/${project.id}`,
        i: `gid://gitlab/Ai::Catalog::Item/${world.itemId}`,
      });
      assert.deepEqual(gitlabSpelling.aiCatalogConfiguredItems.nodes, [{ id: node.id }]);
    });

    it('refuses unknown, other projects\' and disabled consumers with a 400 naming the field', async () => {
      const refusal = (reason: string) => ({ status: 400, message: `400 Bad request - ai_catalog_item_consumer_id: ${reason}` });
      assert.deepEqual(await gitbeakerFailure(trigger({ ai_catalog_item_consumer_id: 424242 })), refusal('Enabled agent or flow was not found for this project'));
      assert.deepEqual(await gitbeakerFailure(trigger({ ai_catalog_item_consumer_id: world.otherConsumerId })), refusal('Enabled agent or flow was not found for this project'));
      assert.deepEqual(await gitbeakerFailure(trigger({ ai_catalog_item_consumer_id: world.disabledConsumerId })), refusal('Agent or flow is not enabled for this project'));
    });
  });
}
