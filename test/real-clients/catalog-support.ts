/**
 * The world the catalog real-client suites start from, made through GraphQL (POST /api/graphql)
 * and REST on the served binary: a Maintainer's flow item enabled for a project whose Developer
 * triggers flows; a public flow enabled for another project; a second flow enabled but disabled.
 */
import assert from 'node:assert/strict';
import type { ForgeletHttp } from '../support/server.js';

export const FLOW_NAME = 'Release notes writer';
export const FLOW_YAML = 'version: v1\nenvironment: ambient\ncomponents:\n  - name: writer\n    type: AgentComponent\n    prompt_id: release_notes\n';

/** One GraphQL request as the given token; fails the test on a top-level error. */
export async function gql<T = any>(f: Pick<ForgeletHttp, 'url'>, token: string, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`${f.url}/api/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'PRIVATE-TOKEN': token },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data as T;
}

export interface CatalogWorld {
  maintainer: { id: number; username: string; token: string };
  developer: { id: number; username: string; token: string };
  project: { id: number; path_with_namespace: string };
  otherProject: { id: number; path_with_namespace: string };
  itemId: number;
  versionId: number;
  consumerId: number;
  otherConsumerId: number;
  disabledConsumerId: number;
}

const CREATE_FLOW = `mutation($input: AiCatalogFlowCreateInput!) {
  aiCatalogFlowCreate(input: $input) { errors item { id name latestVersion { id } } } }`;
const ENABLE = `mutation($input: AiCatalogItemConsumerCreateInput!) {
  aiCatalogItemConsumerCreate(input: $input) { errors itemConsumer { id enabled } } }`;
const UPDATE_CONSUMER = `mutation($input: AiCatalogItemConsumerUpdateInput!) {
  aiCatalogItemConsumerUpdate(input: $input) { errors itemConsumer { id enabled } } }`;

const suffix = (gid: string) => Number(gid.split('/').pop());

export async function createCatalogWorld(f: ForgeletHttp, prefix: string): Promise<CatalogWorld> {
  const maintainer = await f.createUser(`${prefix}-maint`);
  const developer = await f.createUser(`${prefix}-dev`);
  const group = await f.api('POST', '/groups', { token: maintainer.token, body: { name: `${prefix} catalog`, path: `${prefix}-catalog` } });
  assert.equal(group.status, 201, group.text);
  const mk = async (name: string) => {
    const r = await f.api('POST', '/projects', { token: maintainer.token, body: { name, namespace_id: group.body.id, visibility: 'private' } });
    assert.equal(r.status, 201, r.text);
    const m = await f.api('POST', `/projects/${r.body.id}/members`, { token: maintainer.token, body: { user_id: developer.id, access_level: 30 } });
    assert.equal(m.status, 201, m.text);
    return r.body as { id: number; path_with_namespace: string };
  };
  const project = await mk('app');
  const otherProject = await mk('other');
  const createFlow = async (name: string, isPublic: boolean) => {
    const data = await gql(f, maintainer.token, CREATE_FLOW, {
      input: { projectId: `gid://gitlab/Project/${project.id}`, name, description: `${name}: drafts the notes`, public: isPublic, release: true, definition: FLOW_YAML },
    });
    assert.deepEqual(data.aiCatalogFlowCreate.errors, []);
    return data.aiCatalogFlowCreate.item;
  };
  const enable = async (itemGid: string, projectId: number) => {
    const data = await gql(f, maintainer.token, ENABLE, { input: { itemId: itemGid, target: { projectId: `gid://gitlab/Project/${projectId}` } } });
    assert.deepEqual(data.aiCatalogItemConsumerCreate.errors, []);
    return data.aiCatalogItemConsumerCreate.itemConsumer.id as string;
  };
  const item = await createFlow(FLOW_NAME, false);
  const consumer = await enable(item.id, project.id);
  const shared = await createFlow('Shared triage', true);
  const otherConsumer = await enable(shared.id, otherProject.id);
  const quiet = await createFlow('Quiet flow', false);
  const disabled = await enable(quiet.id, project.id);
  const off = await gql(f, maintainer.token, UPDATE_CONSUMER, { input: { id: disabled, enabled: false } });
  assert.deepEqual(off.aiCatalogItemConsumerUpdate.itemConsumer.enabled, false);
  return {
    maintainer,
    developer,
    project,
    otherProject,
    itemId: suffix(item.id),
    versionId: suffix(item.latestVersion.id),
    consumerId: suffix(consumer),
    otherConsumerId: suffix(otherConsumer),
    disabledConsumerId: suffix(disabled),
  };
}
