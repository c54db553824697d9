/**
 * The AI catalog and the flows list through `POST /api/graphql` of the served binary: catalog
 * permissions at GitLab's levels (Guests, Reporters and Developers cannot create; private items
 * are invisible to outsiders, Guests and Reporters), GitLab's payload `errors`, consumers and
 * their Global IDs in both spellings, versions, the `duoWorkflowWorkflows` list and
 * `aiDuoWorkflowCreate`; each field checked against the REST answer where REST has the record.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

type User = { id: number; username: string; token: string };
const YAML = 'version: v1\nenvironment: ambient\ncomponents:\n  - name: fixer\n    type: AgentComponent\n';

const CREATE_FLOW = `mutation($i: AiCatalogFlowCreateInput!) { aiCatalogFlowCreate(input: $i) {
  errors item { id name description itemType public project { fullPath } latestVersion { id versionName released } } } }`;
const CREATE_AGENT = `mutation($i: AiCatalogAgentCreateInput!) { aiCatalogAgentCreate(input: $i) { errors item { id itemType } } }`;
const ENABLE = `mutation($i: AiCatalogItemConsumerCreateInput!) { aiCatalogItemConsumerCreate(input: $i) {
  errors itemConsumer { id enabled locked pinnedVersionPrefix item { name } project { fullPath } } } }`;

for (const dialect of DIALECTS) {
  describe(`${dialect}: the AI catalog and flows in GraphQL (served)`, () => {
    let s: ServedForgelet;
    let maint: User, dev: User, reporter: User, guest: User, outsider: User;
    let project: { id: number; path_with_namespace: string };
    const gql = async (token: string | null, query: string, variables: Record<string, unknown> = {}) => {
      const res = await fetch(`${s.url}/api/graphql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { 'PRIVATE-TOKEN': token } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, body: (await res.json()) as { data?: any; errors?: { message: string; path?: string[] }[] } };
    };
    const pid = () => `gid://gitlab/Project/${project.id}`;
    const flowInput = (name: string, extra: Record<string, unknown> = {}) => ({ i: { projectId: pid(), name, description: `${name} helps`, public: false, release: true, definition: YAML, ...extra } });

    before(async () => {
      s = await startServed(dialect);
      [maint, dev, reporter, guest, outsider] = await Promise.all(['gq-maint', 'gq-dev', 'gq-rep', 'gq-guest', 'gq-out'].map((u) => s.createUser(u)));
      const r = await s.api('POST', '/projects', { token: maint.token, body: { name: 'catalog', visibility: 'private' } });
      project = r.body;
      for (const [u, level] of [[dev, 30], [reporter, 20], [guest, 10]] as const) {
        assert.equal((await s.api('POST', `/projects/${project.id}/members`, { token: maint.token, body: { user_id: u.id, access_level: level } })).status, 201);
      }
    });
    after(() => s?.stop());

    it('Maintainers create flows and agents; Developers, Reporters and Guests cannot; validation is the payload\'s errors', async () => {
      const r = await gql(maint.token, CREATE_FLOW, flowInput('Fixer flow'));
      assert.equal(r.status, 200);
      const item = r.body.data.aiCatalogFlowCreate.item;
      assert.deepEqual(r.body.data.aiCatalogFlowCreate.errors, []);
      assert.match(item.id, /^gid:\/\/gitlab\/Ai::Catalog::Item\/\d+$/);
      assert.deepEqual({ ...item, id: undefined, latestVersion: { ...item.latestVersion, id: undefined } }, {
        id: undefined, name: 'Fixer flow', description: 'Fixer flow helps', itemType: 'FLOW', public: false, project: { fullPath: project.path_with_namespace },
        latestVersion: { id: undefined, versionName: '1.0.0', released: true },
      });
      const agent = await gql(maint.token, CREATE_AGENT, { i: { projectId: pid(), name: 'Helper', description: 'Answers', public: true, systemPrompt: 'Be brief' } });
      assert.equal(agent.body.data.aiCatalogAgentCreate.item.itemType, 'AGENT');
      for (const u of [dev, reporter, guest]) {
        const denied = await gql(u.token, CREATE_FLOW, flowInput('Nope flow'));
        assert.equal(denied.body.data.aiCatalogFlowCreate, null, u.username);
        assert.equal(denied.body.errors?.length, 1, u.username);
        assert.deepEqual(denied.body.errors![0]!.path, ['aiCatalogFlowCreate']);
      }
      const invalid = await gql(maint.token, CREATE_FLOW, flowInput('ab', { description: '' }));
      assert.deepEqual(invalid.body.data.aiCatalogFlowCreate, { errors: ['Name is too short (minimum is 3 characters)', "Description can't be blank"], item: null });
    });

    it('private items are invisible to outsiders, Guests and Reporters (and anonymous callers); public ones are listed for all', async () => {
      const names = async (token: string | null) => {
        const r = await gql(token, '{ aiCatalogItems { count nodes { name public } } }');
        return r.body.data.aiCatalogItems.nodes.map((n: { name: string }) => n.name);
      };
      assert.deepEqual(await names(dev.token), ['Helper', 'Fixer flow']);
      for (const u of [reporter, guest, outsider]) assert.deepEqual(await names(u.token), ['Helper'], u.username);
      assert.deepEqual(await names(null), ['Helper']);
      const list = await gql(dev.token, '{ aiCatalogItems(itemTypes: [FLOW]) { nodes { id } } }');
      const flowId = list.body.data.aiCatalogItems.nodes[0].id;
      assert.equal((await gql(outsider.token, 'query($id: AiCatalogItemID!) { aiCatalogItem(id: $id) { name } }', { id: flowId })).body.data.aiCatalogItem, null);
      assert.equal((await gql(dev.token, 'query($id: AiCatalogItemID!) { aiCatalogItem(id: $id) { name } }', { id: flowId })).body.data.aiCatalogItem.name, 'Fixer flow');
    });

    it('consumers: enable, the spec\'s node id (GitLab\'s spelling accepted), disable, delete; the flow records its version', async () => {
      const flow = (await gql(maint.token, CREATE_FLOW, flowInput('Notes flow'))).body.data.aiCatalogFlowCreate.item;
      const enabled = await gql(maint.token, ENABLE, { i: { itemId: flow.id, target: { projectId: pid() } } });
      const consumer = enabled.body.data.aiCatalogItemConsumerCreate.itemConsumer;
      assert.match(consumer.id, /^gid:\/\/gitlab\/AiCatalogItemConsumer\/\d+$/);
      assert.deepEqual({ ...consumer, id: undefined }, { id: undefined, enabled: true, locked: true, pinnedVersionPrefix: null, item: { name: 'Notes flow' }, project: { fullPath: project.path_with_namespace } });
      const twice = await gql(maint.token, ENABLE, { i: { itemId: flow.id, target: { projectId: pid() } } });
      assert.deepEqual(twice.body.data.aiCatalogItemConsumerCreate, { errors: ['Item already configured'], itemConsumer: null });
      const byDev = await gql(dev.token, ENABLE, { i: { itemId: flow.id, target: { projectId: pid() } } });
      assert.equal(byDev.body.data.aiCatalogItemConsumerCreate, null);

      const n = Number(consumer.id.split('/').pop());
      const configured = await gql(dev.token, 'query($p: ProjectID!) { aiCatalogConfiguredItems(projectId: $p) { count nodes { id item { name } } } }', { p: pid() });
      assert.deepEqual(configured.body.data.aiCatalogConfiguredItems, { count: 1, nodes: [{ id: consumer.id, item: { name: 'Notes flow' } }] });
      // Reporters and outsiders see no configured items (GitLab's finder answers none).
      for (const u of [reporter, outsider]) {
        const none = await gql(u.token, 'query($p: ProjectID!) { aiCatalogConfiguredItems(projectId: $p) { count nodes { id } } }', { p: pid() });
        assert.deepEqual(none.body.data.aiCatalogConfiguredItems, { count: 0, nodes: [] }, u.username);
      }

      const created = await s.api('POST', '/ai/duo_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), ai_catalog_item_consumer_id: n } });
      assert.equal(created.status, 201, created.text);
      const version = Number(flow.latestVersion.id.split('/').pop());
      assert.equal(created.body.ai_catalog_item_version_id, version);

      const off = await gql(maint.token, 'mutation($i: AiCatalogItemConsumerUpdateInput!) { aiCatalogItemConsumerUpdate(input: $i) { errors itemConsumer { enabled } } }', {
        i: { id: `gid://gitlab/Ai::Catalog::ItemConsumer/${n}`, enabled: false },
      });
      assert.deepEqual(off.body.data.aiCatalogItemConsumerUpdate, { errors: [], itemConsumer: { enabled: false } });
      const refused = await s.api('POST', '/ai/duo_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), ai_catalog_item_consumer_id: n } });
      assert.deepEqual([refused.status, refused.body], [400, { message: '400 Bad request - ai_catalog_item_consumer_id: Agent or flow is not enabled for this project' }]);

      const removed = await gql(maint.token, 'mutation($i: AiCatalogItemConsumerDeleteInput!) { aiCatalogItemConsumerDelete(input: $i) { errors success } }', { i: { id: consumer.id } });
      assert.deepEqual(removed.body.data.aiCatalogItemConsumerDelete, { errors: [], success: true });
      const gone = await s.api('POST', '/ai/duo_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), ai_catalog_item_consumer_id: n } });
      assert.deepEqual([gone.status, gone.body], [400, { message: '400 Bad request - ai_catalog_item_consumer_id: Enabled agent or flow was not found for this project' }]);
    });

    it('duoWorkflowWorkflows lists your flows as REST shows them; aiDuoWorkflowCreate creates one', async () => {
      const made = await gql(dev.token, 'mutation($i: AiDuoWorkflowCreateInput!) { aiDuoWorkflowCreate(input: $i) { errors workflow { id } } }', {
        i: { projectId: pid(), goal: 'Tidy the README', workflowDefinition: 'software_development', environment: 'AMBIENT', agentPrivileges: [1, 2] },
      });
      assert.deepEqual(made.body.data.aiDuoWorkflowCreate.errors, []);
      const id = Number(made.body.data.aiDuoWorkflowCreate.workflow.id.split('/').pop());
      const rest = (await s.api('GET', `/ai/duo_workflows/workflows/${id}`, { token: dev.token })).body;
      const listed = await gql(dev.token, `query($path: ID!) { duoWorkflowWorkflows(projectPath: $path, first: 1) { count pageInfo { hasNextPage } nodes {
        id projectId userId goal title status statusName humanStatus workflowDefinition environment agentPrivilegesNames preApprovedAgentPrivilegesNames
        mcpEnabled allowAgentToRequestUser aiCatalogItemVersionId } } }`, { path: project.path_with_namespace });
      const { count, pageInfo, nodes } = listed.body.data.duoWorkflowWorkflows;
      assert.ok(count >= 2);
      assert.equal(pageInfo.hasNextPage, true);
      assert.deepEqual(nodes, [{
        id: `gid://gitlab/Ai::DuoWorkflows::Workflow/${id}`,
        projectId: `gid://gitlab/Project/${rest.project_id}`,
        userId: `gid://gitlab/User/${dev.id}`,
        goal: 'Tidy the README',
        title: rest.title,
        status: rest.status.toUpperCase(),
        statusName: rest.status,
        humanStatus: rest.status,
        workflowDefinition: rest.workflow_definition,
        environment: rest.environment.toUpperCase(),
        agentPrivilegesNames: rest.agent_privileges_names,
        preApprovedAgentPrivilegesNames: rest.pre_approved_agent_privileges_names,
        mcpEnabled: rest.mcp_enabled,
        allowAgentToRequestUser: rest.allow_agent_to_request_user,
        aiCatalogItemVersionId: null,
      }]);
      const catalogOnly = await gql(dev.token, '{ duoWorkflowWorkflows(type: "ai_catalog_agent") { nodes { aiCatalogItemVersionId } } }');
      assert.equal(catalogOnly.body.data.duoWorkflowWorkflows.nodes.length, 1);
      assert.match(catalogOnly.body.data.duoWorkflowWorkflows.nodes[0].aiCatalogItemVersionId, /^gid:\/\/gitlab\/Ai::Catalog::ItemVersion\/\d+$/);
      // Only your own flows: the Maintainer has none.
      assert.deepEqual((await gql(maint.token, '{ duoWorkflowWorkflows { count nodes { id } } }')).body.data.duoWorkflowWorkflows, { count: 0, nodes: [] });
      const refused = await gql(dev.token, 'mutation($i: AiDuoWorkflowCreateInput!) { aiDuoWorkflowCreate(input: $i) { errors workflow { id } } }', {
        i: { projectId: pid(), aiCatalogItemConsumerId: 'gid://gitlab/AiCatalogItemConsumer/999999' },
      });
      assert.deepEqual(refused.body.data.aiDuoWorkflowCreate, { errors: ['ai_catalog_item_consumer_id: Enabled agent or flow was not found for this project'], workflow: null });
    });
  });
}
