/**
 * The AI catalog over GraphQL (GitLab serves it only there): items (flows and agents), their
 * versions, and the consumers that enable an item for a project or a group. Every call is one
 * GraphQL document with GitLab's field and mutation names; a mutation's `errors` (model
 * validation) raise CatalogMutationError.
 */

/** Runs one GraphQL document and answers its `data` (the client's `graphql()` call). */
export type GraphqlCall = <T>(query: string, variables?: Record<string, unknown>) => Promise<T>;

export type AiCatalogItemType = 'AGENT' | 'FLOW';

export interface AiCatalogVersionNode {
  id: string;
  versionName: string | null;
  released: boolean;
  releasedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AiCatalogItemNode {
  id: string;
  itemType: AiCatalogItemType;
  name: string;
  description: string;
  public: boolean;
  createdAt: string;
  updatedAt: string;
  project: { id: string; fullPath: string } | null;
  latestVersion: AiCatalogVersionNode | null;
}

export interface AiCatalogConsumerNode {
  id: string;
  enabled: boolean | null;
  locked: boolean | null;
  pinnedVersionPrefix: string | null;
  project: { id: string; fullPath: string } | null;
  group: { id: string; fullPath: string } | null;
  item: { id: string; name: string; itemType: AiCatalogItemType; description: string } | null;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}
export interface Connection<T> {
  count: number;
  nodes: T[];
  pageInfo: PageInfo;
}

/** A GraphQL answer with errors (a missing or forbidden object, a bad argument): GitLab's messages. */
export class GraphqlFieldError extends Error {
  override readonly name = 'GraphqlFieldError';
  constructor(readonly errors: { message: string; path?: (string | number)[] }[]) {
    super(errors.map((e) => e.message).join('; '));
  }
}

/** A catalog mutation refused by validation: GitLab's `errors` of the payload. */
export class CatalogMutationError extends Error {
  override readonly name = 'CatalogMutationError';
  constructor(
    readonly mutation: string,
    readonly errors: string[],
  ) {
    super(`${mutation}: ${errors.join(', ')}`);
  }
}

const VERSION = 'id versionName released releasedAt createdAt updatedAt';
const ITEM = `id itemType name description public createdAt updatedAt project { id fullPath } latestVersion { ${VERSION} }`;
const CONSUMER = 'id enabled locked pinnedVersionPrefix project { id fullPath } group { id fullPath } item { id name itemType description }';
const PAGE = 'count pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

/** `gid://gitlab/Project/5` for 5; a full path is looked up by the server as it is. */
export function projectGid(id: number | string): string {
  return typeof id === 'number' || /^\d+$/.test(id) ? `gid://gitlab/Project/${id}` : id;
}
export function groupGid(id: number | string): string {
  return typeof id === 'number' || /^\d+$/.test(id) ? `gid://gitlab/Group/${id}` : id;
}
/** The numeric id at the end of a Global ID (the consumer id a flow trigger takes). */
export function idOfGid(gid: string): number {
  const m = /\/(\d+)$/.exec(gid);
  if (!m) throw new Error(`not a Global ID: ${gid}`);
  return Number(m[1]);
}
function itemGid(id: number | string): string {
  return typeof id === 'number' || /^\d+$/.test(id) ? `gid://gitlab/Ai::Catalog::Item/${id}` : id;
}
function consumerGid(id: number | string): string {
  return typeof id === 'number' || /^\d+$/.test(id) ? `gid://gitlab/AiCatalogItemConsumer/${id}` : id;
}

export interface ListPage {
  first?: number;
  after?: string;
}

export interface CreateFlowItemParams {
  /** Numeric id (or a Project Global ID). */
  projectId: number | string;
  name: string;
  description: string;
  public: boolean;
  /** The flow's YAML definition. */
  definition?: string;
  /** Release the first version (flows run only released versions). */
  release?: boolean;
}

export interface CreateAgentItemParams {
  projectId: number | string;
  name: string;
  description: string;
  public: boolean;
  systemPrompt: string;
  userPrompt?: string;
  release?: boolean;
}

export interface UpdateItemParams {
  name?: string;
  description?: string;
  public?: boolean;
  release?: boolean;
  versionBump?: 'MAJOR' | 'MINOR' | 'PATCH';
}

export class AiCatalog {
  constructor(private readonly graphql: GraphqlCall) {}

  private async mutate<T>(name: string, field: string, input: Record<string, unknown>, selection: string): Promise<T> {
    const data = await this.graphql<Record<string, { errors: string[] } & Record<string, T>>>(
      `mutation($input: ${name[0]!.toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { errors ${field} { ${selection} } } }`,
      { input },
    );
    const payload = data[name]!;
    if (payload.errors.length) throw new CatalogMutationError(name, payload.errors);
    return payload[field] as T;
  }

  /** `aiCatalogItems`: the items you may read, newest first. */
  async items(params: ListPage & { itemTypes?: AiCatalogItemType[]; search?: string } = {}): Promise<Connection<AiCatalogItemNode>> {
    const data = await this.graphql<{ aiCatalogItems: Connection<AiCatalogItemNode> }>(
      `query($first: Int, $after: String, $itemTypes: [AiCatalogItemType!], $search: String) {
        aiCatalogItems(first: $first, after: $after, itemTypes: $itemTypes, search: $search) { ${PAGE} nodes { ${ITEM} } } }`,
      { first: params.first ?? null, after: params.after ?? null, itemTypes: params.itemTypes ?? null, search: params.search ?? null },
    );
    return data.aiCatalogItems;
  }

  /** Every page of `items()`. */
  async *allItems(params: { itemTypes?: AiCatalogItemType[]; search?: string } = {}): AsyncGenerator<AiCatalogItemNode> {
    let after: string | undefined;
    for (;;) {
      const page = await this.items({ ...params, first: 100, ...(after !== undefined && { after }) });
      yield* page.nodes;
      if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return;
      after = page.pageInfo.endCursor;
    }
  }

  /** `aiCatalogItem(id:)`: null when missing or hidden from you. */
  async item(id: number | string): Promise<AiCatalogItemNode | null> {
    const data = await this.graphql<{ aiCatalogItem: AiCatalogItemNode | null }>(
      `query($id: AiCatalogItemID!) { aiCatalogItem(id: $id) { ${ITEM} } }`,
      { id: itemGid(id) },
    );
    return data.aiCatalogItem;
  }

  /** `aiCatalogFlowCreate` (Maintainers of the project). */
  createFlow(params: CreateFlowItemParams): Promise<AiCatalogItemNode> {
    const { projectId, ...rest } = params;
    return this.mutate('aiCatalogFlowCreate', 'item', { ...rest, projectId: projectGid(projectId) }, ITEM);
  }

  /** `aiCatalogAgentCreate` (Maintainers of the project). */
  createAgent(params: CreateAgentItemParams): Promise<AiCatalogItemNode> {
    const { projectId, ...rest } = params;
    return this.mutate('aiCatalogAgentCreate', 'item', { ...rest, projectId: projectGid(projectId) }, ITEM);
  }

  /** `aiCatalogFlowUpdate`: attributes, a new definition (a new version), release. */
  updateFlow(id: number | string, params: UpdateItemParams & { definition?: string }): Promise<AiCatalogItemNode> {
    return this.mutate('aiCatalogFlowUpdate', 'item', { id: itemGid(id), ...params }, ITEM);
  }

  /** `aiCatalogFlowDelete` / `aiCatalogAgentDelete`. */
  async remove(id: number | string, type: AiCatalogItemType): Promise<void> {
    const name = type === 'FLOW' ? 'aiCatalogFlowDelete' : 'aiCatalogAgentDelete';
    const data = await this.graphql<Record<string, { errors: string[]; success: boolean }>>(
      `mutation($input: ${name[0]!.toUpperCase()}${name.slice(1)}Input!) { ${name}(input: $input) { errors success } }`,
      { input: { id: itemGid(id) } },
    );
    if (data[name]!.errors.length) throw new CatalogMutationError(name, data[name]!.errors);
  }

  /** `aiCatalogConfiguredItems`: the items enabled for a project (or a group), newest first. */
  async configuredItems(target: { projectId: number | string } | { groupId: number | string }, page: ListPage = {}): Promise<Connection<AiCatalogConsumerNode>> {
    const args = 'projectId' in target ? { projectId: projectGid(target.projectId) } : { groupId: groupGid(target.groupId) };
    const [name, type] = 'projectId' in target ? ['projectId', 'ProjectID'] : ['groupId', 'GroupID'];
    const data = await this.graphql<{ aiCatalogConfiguredItems: Connection<AiCatalogConsumerNode> }>(
      `query($target: ${type}, $first: Int, $after: String) {
        aiCatalogConfiguredItems(${name}: $target, first: $first, after: $after) { ${PAGE} nodes { ${CONSUMER} } } }`,
      { target: Object.values(args)[0], first: page.first ?? null, after: page.after ?? null },
    );
    return data.aiCatalogConfiguredItems;
  }

  /** `aiCatalogItemConsumerCreate`: enables an item for a project or a top-level group (Maintainers / Owners). */
  enable(itemId: number | string, target: { projectId: number | string } | { groupId: number | string }, options: { pinnedVersionPrefix?: string } = {}): Promise<AiCatalogConsumerNode> {
    const to = 'projectId' in target ? { projectId: projectGid(target.projectId) } : { groupId: groupGid(target.groupId) };
    return this.mutate('aiCatalogItemConsumerCreate', 'itemConsumer', { itemId: itemGid(itemId), target: to, ...options }, CONSUMER);
  }

  /** `aiCatalogItemConsumerUpdate`: enabled, locked, pinned version. */
  updateConsumer(id: number | string, params: { enabled?: boolean; locked?: boolean; pinnedVersionPrefix?: string | null }): Promise<AiCatalogConsumerNode> {
    return this.mutate('aiCatalogItemConsumerUpdate', 'itemConsumer', { id: consumerGid(id), ...params }, CONSUMER);
  }

  /** `aiCatalogItemConsumerDelete`: the item is no longer enabled there. */
  async disable(id: number | string): Promise<void> {
    const data = await this.graphql<{ aiCatalogItemConsumerDelete: { errors: string[]; success: boolean } }>(
      'mutation($input: AiCatalogItemConsumerDeleteInput!) { aiCatalogItemConsumerDelete(input: $input) { errors success } }',
      { input: { id: consumerGid(id) } },
    );
    if (data.aiCatalogItemConsumerDelete.errors.length) throw new CatalogMutationError('aiCatalogItemConsumerDelete', data.aiCatalogItemConsumerDelete.errors);
  }

  /**
   * The consumer id a flow trigger's `ai_catalog_item_consumer_id` takes for the item named
   * `name` enabled in the project (the specification's lookup); null when none is.
   */
  async consumerIdFor(projectId: number | string, name: string): Promise<number | null> {
    let after: string | undefined;
    for (;;) {
      const page = await this.configuredItems({ projectId }, { first: 100, ...(after !== undefined && { after }) });
      const hit = page.nodes.find((n) => n.item?.name === name && n.project !== null);
      if (hit) return idOfGid(hit.id);
      if (!page.pageInfo.hasNextPage || page.pageInfo.endCursor === null) return null;
      after = page.pageInfo.endCursor;
    }
  }
}
