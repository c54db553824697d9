/**
 * The AI catalog's use cases (items, versions, consumers) with GitLab's permissions, and the flow
 * trigger's `ai_catalog_item_consumer_id`: refused with a 400 naming the field unless the consumer
 * is enabled for the flow's project; the consumed version configures the flow and is recorded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANONYMOUS,
  createConsumer,
  createItem,
  deleteItem,
  getItem,
  listConsumers,
  listFlows,
  listItems,
  listVersions,
  updateConsumer,
  updateItem,
  type Ctx,
} from '@forgelet/core';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { commitFiles } from '../support/repository.js';
import { createRunner, requestJob } from './ci-support.js';

type User = { id: number; username: string; token: string };
const ALL = { page: 1, per_page: 100 };
const FLOW_DEFINITION = { version: 'v1', environment: 'ambient', components: [{ name: 'fixer', type: 'AgentComponent', prompt_id: 'fix' }] };

/** The body of a kernel error a use case threw. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; body: unknown }> {
  try {
    await promise;
  } catch (err) {
    const e = err as { code: string; body: unknown };
    return { code: e.code, body: e.body };
  }
  assert.fail('expected the use case to fail');
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: AI catalog and catalog flows`, () => {
    let f: TestForgelet;
    let owner: User, dev: User, reporter: User, guest: User, outsider: User;
    let group: any;
    let project: any;
    let otherProject: any;
    let as: (u: User) => Promise<Ctx>;

    before(async () => {
      f = await startTestServer(dialect, { workers: false });
      [owner, dev, reporter, guest, outsider] = await createUsers(f, ['cat-owner', 'cat-dev', 'cat-rep', 'cat-guest', 'cat-out']);
      group = await createGroup(f, owner.token, { name: 'catalog', path: 'catalog' });
      project = await createProject(f, owner.token, { name: 'agents', namespace_id: group.id, visibility: 'private' });
      otherProject = await createProject(f, owner.token, { name: 'elsewhere', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'projects', project.id, dev.id, 30);
      await addMember(f, 'projects', project.id, reporter.id, 20);
      await addMember(f, 'projects', project.id, guest.id, 10);
      await addMember(f, 'projects', otherProject.id, dev.id, 30);
      as = (u) => f.forge.contextFor(u.username);
    });
    after(() => f.stop());

    const newFlow = async (name: string, extra: Partial<Parameters<typeof createItem>[1]> = {}) =>
      createItem(await as(owner), { itemType: 'flow', project: project.id, name, description: `${name} does things`, public: false, definition: FLOW_DEFINITION, release: true, ...extra });

    it('creates items for Maintainers only (Developer, Reporter, Guest: 403; outsiders: 404)', async () => {
      const item = await newFlow('Fixer');
      assert.equal(item.item_type, 'flow');
      assert.equal(item.public, false);
      assert.equal(item.project_id, project.id);
      const versions = await listVersions(await as(owner), item.id, ALL);
      assert.deepEqual(versions.items.map((v) => [v.version, v.released, v.definition]), [['1.0.0', true, FLOW_DEFINITION]]);
      assert.equal(item.latest_version_id, versions.items[0]!.id);
      for (const user of [dev, reporter, guest]) {
        const denied = await failure(createItem(await as(user), { itemType: 'agent', project: project.id, name: 'Nope', description: 'x', public: true, definition: {} }));
        assert.deepEqual(denied, { code: 'forbidden', body: { message: '403 Forbidden' } }, user.username);
      }
      const hidden = await failure(createItem(await as(outsider), { itemType: 'agent', project: project.id, name: 'Nope', description: 'x', public: true, definition: {} }));
      assert.deepEqual(hidden, { code: 'not_found', body: { message: '404 Project Not Found' } });
      const invalid = await failure(createItem(await as(owner), { itemType: 'flow', project: project.id, name: 'ab', description: ' ', public: true, definition: {} }));
      assert.deepEqual(invalid, { code: 'unprocessable', body: { message: ['Name is too short (minimum is 3 characters)', "Description can't be blank"] } });
    });

    it('hides private items from outsiders, Guests and Reporters; public ones are seen by all', async () => {
      const secret = await newFlow('Secret flow');
      const open = await newFlow('Open flow', { public: true });
      const names = async (ctx: Ctx) => (await listItems(ctx, { search: 'flow' }, ALL)).items.map((i) => i.name);
      assert.deepEqual(await names(await as(dev)), ['Open flow', 'Secret flow']);
      assert.deepEqual(await names(await f.forge.contextFor('root')), ['Open flow', 'Secret flow']);
      for (const user of [reporter, guest, outsider]) assert.deepEqual(await names(await as(user)), ['Open flow'], user.username);
      assert.deepEqual(await names(f.forge.context(ANONYMOUS)), ['Open flow']);
      assert.equal(await getItem(await as(outsider), secret.id), null);
      assert.equal((await getItem(await as(outsider), open.id))?.name, 'Open flow');
      const first = await listItems(await as(dev), { search: 'flow' }, { page: 1, per_page: 1 });
      assert.deepEqual([first.items.length, first.hasNext, first.total], [1, true, 2]);
    });

    it('a new definition makes a new (patch) version once the latest is released; drafts change in place', async () => {
      const item = await newFlow('Versioned');
      const ctx = await as(owner);
      await updateItem(ctx, item.id, 'flow', { definition: { ...FLOW_DEFINITION, environment: 'web' } });
      await updateItem(ctx, item.id, 'flow', { definition: { ...FLOW_DEFINITION, environment: 'chat' }, description: 'Changed' });
      let versions = await listVersions(ctx, item.id, ALL);
      assert.deepEqual(versions.items.map((v) => [v.version, v.released, v.definition.environment]), [['1.0.1', false, 'chat'], ['1.0.0', true, 'ambient']]);
      const updated = await updateItem(ctx, item.id, 'flow', { release: true });
      assert.equal(updated.description, 'Changed');
      await updateItem(ctx, item.id, 'flow', { definition: FLOW_DEFINITION, versionBump: 'major' });
      versions = await listVersions(ctx, item.id, ALL);
      assert.deepEqual(versions.items.map((v) => [v.version, v.released]), [['2.0.0', false], ['1.0.1', true], ['1.0.0', true]]);
      assert.deepEqual(await failure(updateItem(await as(dev), item.id, 'flow', { name: 'Mine' })), { code: 'forbidden', body: { message: '403 Forbidden' } });
      assert.deepEqual((await failure(updateItem(ctx, item.id, 'agent', { name: 'Mine' }))).code, 'not_found');
    });

    it('enables items for a project (Maintainers), private ones only in their own project', async () => {
      const own = await newFlow('Own');
      const ctx = await as(owner);
      const consumer = await createConsumer(ctx, { itemId: own.id, projectId: project.path_with_namespace });
      assert.deepEqual([consumer.item_id, consumer.project_id, consumer.group_id, consumer.enabled, consumer.locked, consumer.pinned_version_prefix], [own.id, project.id, null, true, true, null]);
      assert.deepEqual(await failure(createConsumer(ctx, { itemId: own.id, projectId: project.id })), { code: 'unprocessable', body: { message: ['Item already configured'] } });
      assert.deepEqual(await failure(createConsumer(ctx, { itemId: own.id, projectId: otherProject.id })), { code: 'unprocessable', body: { message: ['Item is private to another project'] } });
      assert.deepEqual((await failure(createConsumer(await as(dev), { itemId: own.id, projectId: otherProject.id }))).code, 'forbidden');
      assert.deepEqual((await failure(createConsumer(await as(outsider), { itemId: own.id, projectId: project.id }))).code, 'not_found');
      // Developers read the project's configured items; Reporters and outsiders get none.
      const listed = await listConsumers(await as(dev), { projectId: project.id }, ALL);
      assert.ok(listed.items.some((c) => c.id === consumer.id));
      assert.deepEqual((await listConsumers(await as(reporter), { projectId: project.id }, ALL)).items, []);
      assert.deepEqual((await listConsumers(await as(outsider), { projectId: project.id }, ALL)).items, []);
    });

    it('enables items for a top-level group (its Owners); a project lists them as inherited; the trigger takes only its own consumers', async () => {
      const shared = await newFlow('Group flow', { public: true });
      const ctx = await as(owner);
      const sub = await createGroup(f, owner.token, { name: 'sub', path: 'sub', parent_id: group.id });
      assert.deepEqual(await failure(createConsumer(ctx, { itemId: shared.id, groupId: sub.id })), { code: 'unprocessable', body: { message: ['Group must be a top-level group'] } });
      assert.deepEqual((await failure(createConsumer(await as(dev), { itemId: shared.id, groupId: group.id }))).code, 'forbidden');
      const onGroup = await createConsumer(ctx, { itemId: shared.id, groupId: group.full_path });
      assert.deepEqual([onGroup.group_id, onGroup.project_id], [group.id, null]);
      const inherited = await listConsumers(await as(dev), { projectId: project.id }, ALL);
      assert.ok(inherited.items.some((c) => c.id === onGroup.id));
      const own = await listConsumers(await as(dev), { projectId: project.id, includeInherited: false }, ALL);
      assert.ok(own.items.length > 0 && own.items.every((c) => c.project_id === project.id));
      assert.deepEqual((await listConsumers(ctx, { groupId: group.id }, ALL)).items.map((c) => c.id), [onGroup.id]);
      // A Developer of a project in the group does not read the group's configuration (GitLab: maintained projects).
      assert.deepEqual((await listConsumers(await as(dev), { groupId: group.id }, ALL)).items, []);
      const r = await f.api('POST', '/ai/duo_workflows/workflows', { token: dev.token, body: { project_id: String(project.id), ai_catalog_item_consumer_id: onGroup.id } });
      assert.deepEqual([r.status, r.body], [400, { message: '400 Bad request - ai_catalog_item_consumer_id: Enabled agent or flow was not found for this project' }]);
    });

    describe('the flow trigger with ai_catalog_item_consumer_id', () => {
      let flow: Awaited<ReturnType<typeof newFlow>>;
      let consumer: { id: number };
      let latestVersionId: number;
      const trigger = (body: Record<string, unknown>, token = dev.token) => f.api('POST', '/ai/duo_workflows/workflows', { token, body });

      before(async () => {
        flow = await newFlow('Release notes', { description: 'Write the release notes' });
        consumer = await createConsumer(await as(owner), { itemId: flow.id, projectId: project.id });
        latestVersionId = flow.latest_version_id!;
      });

      it('starts from the consumed version: recorded, configuration taken, consumer wins over workflow_definition', async () => {
        const r = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id, workflow_definition: 'software_development', agent_privileges: [1] });
        expectStatus(r, 201);
        assert.equal(r.body.ai_catalog_item_version_id, latestVersionId);
        assert.equal(r.body.workflow_definition, 'ai_catalog_agent');
        assert.equal(r.body.environment, 'web');
        assert.deepEqual(r.body.agent_privileges, [1, 2, 3, 4, 5, 6]);
        assert.deepEqual(r.body.pre_approved_agent_privileges, [1, 2, 3, 4, 5, 6]);
        assert.equal(r.body.title, 'Write the release notes');
        const row = await f.forge.deps.db.selectFrom('ai_flows').select(['flow_config', 'ai_catalog_item_consumer_id']).where('id', '=', r.body.id).executeTakeFirstOrThrow();
        assert.deepEqual([JSON.parse(row.flow_config!), row.ai_catalog_item_consumer_id], [FLOW_DEFINITION, consumer.id]);
      });

      it('refuses unknown consumers, other projects\' consumers, disabled ones, drafts and agents with a 400 naming the field', async () => {
        const refusal = (reason: string) => ({ message: `400 Bad request - ai_catalog_item_consumer_id: ${reason}` });
        const notFound = refusal('Enabled agent or flow was not found for this project');
        const unknown = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: 999_999 });
        assert.deepEqual([unknown.status, unknown.body], [400, notFound]);
        // A consumer of another project (enabled there) does not run here.
        const public_ = await newFlow('Shared flow', { public: true });
        const elsewhere = await createConsumer(await as(owner), { itemId: public_.id, projectId: otherProject.id });
        const foreign = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: elsewhere.id });
        assert.deepEqual([foreign.status, foreign.body], [400, notFound]);
        expectStatus(await trigger({ project_id: String(otherProject.id), ai_catalog_item_consumer_id: elsewhere.id }), 201);

        await updateConsumer(await as(owner), consumer.id, { enabled: false });
        const disabled = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id });
        assert.deepEqual([disabled.status, disabled.body], [400, refusal('Agent or flow is not enabled for this project')]);
        await updateConsumer(await as(owner), consumer.id, { enabled: true });

        const draft = await newFlow('Draft flow', { release: false });
        const draftConsumer = await createConsumer(await as(owner), { itemId: draft.id, projectId: project.id });
        const drafted = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: draftConsumer.id });
        assert.deepEqual([drafted.status, drafted.body], [400, refusal('Flow version is in draft state and cannot be executed')]);

        const agent = await createItem(await as(owner), { itemType: 'agent', project: project.id, name: 'Helper', description: 'An agent', public: false, definition: { system_prompt: 's', user_prompt: 'u', tools: [] }, release: true });
        const agentConsumer = await createConsumer(await as(owner), { itemId: agent.id, projectId: project.id });
        const agented = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: agentConsumer.id });
        assert.deepEqual([agented.status, agented.body], [400, refusal('Item must be a flow type')]);

        // A deleted item's consumers stay but no longer run.
        const doomed = await newFlow('Doomed flow');
        const doomedConsumer = await createConsumer(await as(owner), { itemId: doomed.id, projectId: project.id });
        await deleteItem(await as(owner), doomed.id, 'flow');
        assert.equal(await getItem(await as(owner), doomed.id), null);
        const deleted = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: doomedConsumer.id });
        assert.deepEqual([deleted.status, deleted.body], [400, notFound]);

        const noProject = await trigger({ namespace_id: owner.username, ai_catalog_item_consumer_id: consumer.id }, owner.token);
        assert.deepEqual([noProject.status, noProject.body], [400, { message: '400 Bad request - ai_catalog_item_consumer_id requires project_id' }]);
        // No flow was created by any refusal.
        const flows = await f.forge.deps.db.selectFrom('ai_flows').select('ai_catalog_item_consumer_id').execute();
        assert.ok(flows.every((r) => r.ai_catalog_item_consumer_id === null || [consumer.id, elsewhere.id].includes(r.ai_catalog_item_consumer_id)));
      });

      it('a pinned consumer runs its pinned version', async () => {
        const ctx = await as(owner);
        await updateItem(ctx, flow.id, 'flow', { definition: { ...FLOW_DEFINITION, environment: 'chat' }, versionBump: 'major', release: true });
        const [v2, v1] = (await listVersions(ctx, flow.id, ALL)).items;
        assert.deepEqual([v2!.version, v1!.version], ['2.0.0', '1.0.0']);
        let r = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id });
        assert.equal(r.body.ai_catalog_item_version_id, v2!.id);
        await updateConsumer(ctx, consumer.id, { pinnedVersionPrefix: '1' });
        r = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id, goal: 'Only 1.x' });
        assert.deepEqual([r.body.ai_catalog_item_version_id, r.body.title], [v1!.id, 'Only 1.x']);
        await updateConsumer(ctx, consumer.id, { pinnedVersionPrefix: '3' });
        r = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id });
        assert.deepEqual([r.status, r.body], [400, { message: '400 Bad request - ai_catalog_item_consumer_id: Flow version could not be resolved from pinned version' }]);
        await updateConsumer(ctx, consumer.id, { pinnedVersionPrefix: null });
      });

      it('ai_catalog_item_version_id alone must name a version the caller can read', async () => {
        const r = await trigger({ project_id: String(project.id), ai_catalog_item_version_id: latestVersionId, workflow_definition: 'software_development' });
        expectStatus(r, 201);
        assert.deepEqual([r.body.ai_catalog_item_version_id, r.body.workflow_definition], [latestVersionId, 'software_development']);
        const missing = await trigger({ project_id: String(project.id), ai_catalog_item_version_id: 999_999 });
        assert.deepEqual([missing.status, missing.body], [400, { message: '400 Bad request - ai_catalog_item_version_id: AI Catalog Item Version not found' }]);
      });

      it('the workload hands the executor the consumed version as its flow config', async () => {
        await commitFiles(f, project.id, 'main', { 'README.md': 'hi' });
        const runner = await createRunner(f, owner.token, { runner_type: 'project_type', project_id: project.id });
        const r = await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id, start_workflow: true });
        expectStatus(r, 201);
        assert.deepEqual([r.body.status, r.body.workload.message], ['running', 'Workload started']);
        const job = await requestJob(f, runner.token);
        assert.equal(String(job.id), r.body.workload.id);
        const vars = Object.fromEntries(job.variables.map((v: { key: string; value: string }) => [v.key, v.value]));
        // The latest release (2.0.0, from the pinned-version test above).
        assert.deepEqual(JSON.parse(vars.DUO_WORKFLOW_FLOW_CONFIG), { ...FLOW_DEFINITION, environment: 'chat' });
        assert.deepEqual(
          [vars.DUO_WORKFLOW_FLOW_CONFIG_SCHEMA_VERSION, vars.DUO_WORKFLOW_DEFINITION, vars.DUO_WORKFLOW_GOAL, vars.DUO_WORKFLOW_ENVIRONMENT],
          ['v1', 'ai_catalog_agent', 'Write the release notes', 'web'],
        );
      });

      it('listFlows (duoWorkflowWorkflows): your own flows, filtered and sorted in the database', async () => {
        const ctx = await as(dev);
        const all = await listFlows(ctx, {}, ALL);
        assert.ok(all.items.length >= 5);
        assert.equal(all.total, all.items.length);
        assert.ok(all.items.every((f) => f.user_id === dev.id));
        const ids = all.items.map((f) => f.id);
        assert.deepEqual(ids, [...ids].sort((a, b) => b - a), 'newest first');
        assert.deepEqual((await listFlows(ctx, { sort: 'created_asc' }, ALL)).items.map((f) => f.id), [...ids].reverse());
        const catalog = await listFlows(ctx, { type: 'ai_catalog_agent' }, ALL);
        assert.ok(catalog.items.length >= 3 && catalog.items.every((f) => f.workflow_definition === 'ai_catalog_agent' && f.ai_catalog_item_consumer_id !== null));
        const others = await listFlows(ctx, { excludeTypes: ['ai_catalog_agent'] }, ALL);
        assert.equal(others.items.length + catalog.items.length, all.items.length);
        assert.deepEqual((await listFlows(ctx, { type: 'x', excludeTypes: ['x'] }, ALL)).items, []);
        assert.deepEqual((await listFlows(ctx, { search: 'only 1.x' }, ALL)).items.map((f) => f.title), ['Only 1.x']);
        assert.equal((await listFlows(ctx, { projectPath: otherProject.path_with_namespace }, ALL)).items.every((f) => f.project_id === otherProject.id), true);
        assert.deepEqual((await listFlows(ctx, { projectPath: 'no/such' }, ALL)).items, []);
        assert.deepEqual((await listFlows(ctx, { ids: [ids[0]!] }, ALL)).items.map((f) => f.id), [ids[0]]);
        assert.equal((await listFlows(ctx, { statusGroup: 'active' }, ALL)).items.length, all.items.length);
        assert.deepEqual((await listFlows(ctx, { statusGroup: 'completed' }, ALL)).items, []);
        const page = await listFlows(ctx, {}, { page: 2, per_page: 2 });
        assert.deepEqual([page.items.map((f) => f.id), page.hasNext], [ids.slice(2, 4), ids.length > 4]);
        assert.deepEqual((await listFlows(await as(owner), {}, ALL)).items.filter((f) => f.user_id !== owner.id), []);
      });

      it('a Reporter cannot trigger (403); the consumer is checked for Developers of the project', async () => {
        expectStatus(await trigger({ project_id: String(project.id), ai_catalog_item_consumer_id: consumer.id }, reporter.token), 403);
      });
    });
  });
}
