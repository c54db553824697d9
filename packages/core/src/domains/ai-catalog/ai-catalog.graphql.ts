/**
 * The AI catalog in GitLab's GraphQL API (ee/app/graphql/{types,resolvers,mutations}/ai/catalog):
 * `aiCatalogItems`, `aiCatalogItem`, `aiCatalogConfiguredItems`, `aiCatalogItemConsumer`, and
 * the mutations `aiCatalogFlowCreate|Update|Delete`, `aiCatalogAgentCreate|Update|Delete`,
 * `aiCatalogItemConsumerCreate|Update|Delete`, with GitLab's type, field and argument names.
 * Resolvers call this domain's use cases: the policy decides, the database paginates.
 */
import { GraphQLEnumType, GraphQLError, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull, GraphQLObjectType, type GraphQLFieldConfigMap } from 'graphql';
import { stringify as toYaml } from 'yaml';
import type { Ctx } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { gql, orNull, parseGlobalId, toGlobalId, type GqlContext, type GraphqlBuilder, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { getGroup, getProject } from '../accounts/index.js';
import type { AiCatalogItemConsumerEntity, AiCatalogItemEntity, AiCatalogItemType, AiCatalogItemVersionEntity } from './ai-catalog.entity.js';
import { createConsumer, deleteConsumer, getConsumer, listConsumers, updateConsumer } from './consumers.js';
import { createItem, deleteItem, getItem, listItems, listVersions, parseCatalogDefinition, updateItem, versionsByIds, type VersionBump } from './items.js';

const { nn, string, boolean, id: idType } = gql;

/** GitLab's model names; the spec's spellings are accepted too. A consumer answers in the spec's form. */
export const ITEM_GID = 'Ai::Catalog::Item';
const ITEM_MODELS = [ITEM_GID, 'AiCatalogItem'];
export const VERSION_GID = 'Ai::Catalog::ItemVersion';
export const CONSUMER_GID = 'AiCatalogItemConsumer';
const CONSUMER_MODELS = [CONSUMER_GID, 'Ai::Catalog::ItemConsumer'];
/** GitLab's `validates exactly_one_of` message. */
const EXACTLY_ONE = 'One and only one of [groupId, projectId] arguments is required.';

/** A project or group record by numeric id for the `project` / `group` fields (null when hidden). */
const projectOf = (ctx: Ctx, id: number | null) => (id === null ? null : orNull(getProject(ctx, String(id))));
const groupOf = (ctx: Ctx, id: number | null) => (id === null ? null : orNull(getGroup(ctx, String(id))));

/**
 * GitLab's `<Node>Connection` for an interface node (the builder's connections take object
 * types): the same fields, answered by resolveConnection.
 */
function interfaceConnection(g: GraphqlBuilder, node: GraphQLInterfaceType): GraphQLObjectType {
  const edge = g.add(
    new GraphQLObjectType({
      name: `${node.name}Edge`,
      description: 'An edge in a connection.',
      fields: () => ({
        cursor: { type: nn(string), description: 'A cursor for use in pagination.' },
        node: { type: node, description: 'The item at the end of the edge.' },
      }),
    }),
  );
  return g.add(
    new GraphQLObjectType({
      name: `${node.name}Connection`,
      description: `The connection type for ${node.name}.`,
      fields: () => ({
        count: { type: nn(gql.int), description: 'Total count of collection (up to 10,000 counted).', resolve: (c: { count: () => Promise<number> }) => c.count() },
        edges: { type: new GraphQLList(edge), description: 'A list of edges.' },
        nodes: { type: new GraphQLList(node), description: 'A list of nodes.' },
        pageInfo: { type: nn(g.object('PageInfo')), description: 'Information to aid in pagination.' },
      }),
    }),
  );
}

type ItemTypesArgs = { itemType?: AiCatalogItemType | null; itemTypes?: AiCatalogItemType[] | null };
const itemTypesOf = (args: ItemTypesArgs) => {
  const types = [...(args.itemType ? [args.itemType] : []), ...(args.itemTypes ?? [])];
  return types.length ? types : undefined;
};

export const aiCatalogGraphql: GraphqlModule = (g) => {
  const ItemID = g.globalId(ITEM_GID, { aliases: ['AiCatalogItem'] });
  const ConsumerID = g.globalId(CONSUMER_GID, { aliases: ['Ai::Catalog::ItemConsumer'] });
  const ProjectID = g.globalId('Project');
  const GroupID = g.globalId('Group');
  const ItemType = g.add(
    new GraphQLEnumType({
      name: 'AiCatalogItemType',
      description: 'Possible item types for AI items.',
      values: { AGENT: { value: 'agent', description: 'Agent.' }, FLOW: { value: 'flow', description: 'Flow.' } },
    }),
  );
  const VersionBumpEnum = g.add(
    new GraphQLEnumType({
      name: 'AiCatalogVersionBump',
      description: 'Possible version bumps for AI catalog items.',
      values: { MAJOR: { value: 'major', description: 'Major version bump.' }, MINOR: { value: 'minor', description: 'Minor version bump.' }, PATCH: { value: 'patch', description: 'Patch version bump.' } },
    }),
  );

  const versionFields = (): GraphQLFieldConfigMap<AiCatalogItemVersionEntity, GqlContext> => ({
    id: { type: nn(idType), description: 'ID of the item version.', resolve: (v) => toGlobalId(VERSION_GID, v.id) },
    versionName: { type: string, description: 'Version name of the item version.', resolve: (v) => v.version },
    humanVersionName: { type: string, description: 'Human-friendly name of the item version, such as `v1.0.0` or `v1.0.0-draft`.', resolve: (v) => `v${v.version}${v.released ? '' : '-draft'}` },
    released: { type: boolean, description: 'Indicates the item version is released.', resolve: (v) => v.released },
    releasedAt: { type: g.type('Time'), description: 'Timestamp of when the item version was released.', resolve: (v) => v.release_date },
    createdAt: { type: nn(g.type('Time')), description: 'Timestamp of when the item version was created.', resolve: (v) => v.created_at },
    updatedAt: { type: nn(g.type('Time')), description: 'Timestamp of when the item version was updated.', resolve: (v) => v.updated_at },
    item: { type: ItemInterface, description: 'Item the version belongs to.', resolve: (v, _a, ctx) => getItem(ctx, v.item_id) },
  });
  const VersionInterface: GraphQLInterfaceType = g.add(
    new GraphQLInterfaceType({
      name: 'AiCatalogItemVersion',
      description: 'An AI catalog item version',
      fields: versionFields as never,
      resolveType: (v: AiCatalogItemVersionEntity) => (v.item_type === 'agent' ? 'AiCatalogAgentVersion' : 'AiCatalogFlowVersion'),
    }),
  );
  g.add(
    new GraphQLObjectType<AiCatalogItemVersionEntity, GqlContext>({
      name: 'AiCatalogFlowVersion',
      description: 'An AI catalog flow version',
      interfaces: () => [VersionInterface],
      fields: () => ({
        ...versionFields(),
        definition: { type: string, description: 'YAML definition of the flow.', resolve: (v) => toYaml(v.definition) },
      }),
    }),
  );
  g.add(
    new GraphQLObjectType<AiCatalogItemVersionEntity, GqlContext>({
      name: 'AiCatalogAgentVersion',
      description: 'An AI catalog agent version',
      interfaces: () => [VersionInterface],
      fields: () => ({
        ...versionFields(),
        systemPrompt: { type: string, description: 'System prompt for the agent.', resolve: (v) => v.definition.system_prompt ?? null },
        userPrompt: { type: string, description: 'User prompt for the agent.', resolve: (v) => v.definition.user_prompt ?? null },
      }),
    }),
  );
  const VersionConnection = interfaceConnection(g, VersionInterface);

  const itemFields = (): GraphQLFieldConfigMap<AiCatalogItemEntity, GqlContext> => ({
    id: { type: nn(idType), description: 'ID of the item.', resolve: (i) => toGlobalId(ITEM_GID, i.id) },
    name: { type: nn(string), description: 'Name of the item.' },
    description: { type: nn(string), description: 'Description of the item.' },
    itemType: { type: nn(ItemType), description: 'Type of the item.', resolve: (i) => i.item_type },
    public: { type: nn(boolean), description: 'Whether the item is publicly visible in the catalog.' },
    createdAt: { type: nn(g.type('Time')), description: 'Timestamp of when the item was created.', resolve: (i) => i.created_at },
    updatedAt: { type: nn(g.type('Time')), description: 'Timestamp of when the item was updated.', resolve: (i) => i.updated_at },
    project: { type: g.type('Project'), description: 'Project for the item.', resolve: (i, _a, ctx) => projectOf(ctx, i.project_id) },
    latestVersion: {
      type: VersionInterface,
      description: 'Latest version of the item.',
      resolve: async (i, _a, ctx) => (i.latest_version_id === null ? null : ((await versionsByIds(ctx, [i.latest_version_id])).get(i.latest_version_id) ?? null)),
    },
    versions: {
      type: VersionConnection,
      description: 'Versions of the item, newest first.',
      args: connectionArgs,
      resolve: (i, args: ConnectionArgs, ctx) => resolveConnection(args, (page) => listVersions(ctx, i.id, page)),
    },
  });
  const ItemInterface: GraphQLInterfaceType = g.add(
    new GraphQLInterfaceType({
      name: 'AiCatalogItem',
      description: 'An AI catalog item',
      fields: itemFields as never,
      resolveType: (i: AiCatalogItemEntity) => (i.item_type === 'agent' ? 'AiCatalogAgent' : 'AiCatalogFlow'),
    }),
  );
  const Flow = g.add(new GraphQLObjectType<AiCatalogItemEntity, GqlContext>({ name: 'AiCatalogFlow', description: 'An AI catalog flow', interfaces: () => [ItemInterface], fields: itemFields }));
  const Agent = g.add(new GraphQLObjectType<AiCatalogItemEntity, GqlContext>({ name: 'AiCatalogAgent', description: 'An AI catalog agent', interfaces: () => [ItemInterface], fields: itemFields }));
  const ItemConnection = interfaceConnection(g, ItemInterface);

  g.defineObject('AiCatalogItemConsumer', {
    description: 'An AI catalog item configuration',
    fields: (): GraphQLFieldConfigMap<AiCatalogItemConsumerEntity, GqlContext> => ({
      id: { type: nn(idType), description: 'ID of the configuration item.', resolve: (c) => toGlobalId(CONSUMER_GID, c.id) },
      enabled: { type: boolean, description: 'Indicates if the configuration item is enabled.' },
      locked: { type: boolean, description: 'Indicates if the configuration item is locked.' },
      pinnedVersionPrefix: { type: string, description: 'Major version, minor version, or patch item is pinned to.', resolve: (c) => c.pinned_version_prefix },
      item: { type: ItemInterface, description: 'Configuration catalog item.', resolve: (c, _a, ctx) => getItem(ctx, c.item_id) },
      project: { type: g.type('Project'), description: 'Project in which the catalog item is configured.', resolve: (c, _a, ctx) => projectOf(ctx, c.project_id) },
      group: { type: g.type('Group'), description: 'Group in which the catalog item is configured.', resolve: (c, _a, ctx) => groupOf(ctx, c.group_id) },
    }),
  });

  g.extend('Query', () => ({
    aiCatalogItems: {
      type: nn(ItemConnection),
      description: 'List of AI Catalog items you may read (public ones, and private ones of projects you develop), newest first.',
      args: {
        itemType: { type: ItemType, description: 'Type of items to retrieve.' },
        itemTypes: { type: new GraphQLList(nn(ItemType)), description: 'Types of items to retrieve.' },
        search: { type: string, description: 'Search items by name and description.' },
        ...connectionArgs,
      },
      resolve: (_s, args: ConnectionArgs & ItemTypesArgs & { search?: string | null }, ctx) =>
        resolveConnection(args, (page) => listItems(ctx, { itemTypes: itemTypesOf(args), ...(args.search ? { search: args.search } : {}) }, page)),
    },
    aiCatalogItem: {
      type: ItemInterface,
      description: 'Find an AI Catalog item.',
      args: { id: { type: nn(ItemID), description: 'Global ID of the catalog item to find.' } },
      resolve: (_s, args: { id: string }, ctx) => getItem(ctx, parseGlobalId(args.id, ITEM_MODELS)),
    },
    aiCatalogConfiguredItems: {
      type: nn(g.connection('AiCatalogItemConsumer')),
      description: 'AI Catalog items configured for use in a project or a group (empty when you may not read them).',
      args: {
        projectId: { type: ProjectID, description: 'Project ID to retrieve configured AI Catalog items for.' },
        groupId: { type: GroupID, description: 'Group ID to retrieve configured AI Catalog items for.' },
        includeInherited: { type: boolean, defaultValue: true, description: 'Include configured AI Catalog items inherited from parent groups.' },
        itemId: { type: ItemID, description: 'Item ID to retrieve configured AI Catalog items for.' },
        itemType: { type: ItemType, description: 'Type of items to retrieve.' },
        itemTypes: { type: new GraphQLList(nn(ItemType)), description: 'Types of items to retrieve.' },
        ...connectionArgs,
      },
      resolve: (_s, args: ConnectionArgs & ItemTypesArgs & { projectId?: string | null; groupId?: string | null; includeInherited: boolean; itemId?: string | null }, ctx) => {
        if ((args.projectId == null) === (args.groupId == null)) throw new GraphQLError(EXACTLY_ONE);
        const target = args.projectId != null ? { projectId: parseGlobalId(args.projectId, ['Project']) } : { groupId: parseGlobalId(args.groupId, ['Group']) };
        const filters = { ...target, includeInherited: args.includeInherited, ...(args.itemId != null && { itemId: parseGlobalId(args.itemId, ITEM_MODELS) }), itemTypes: itemTypesOf(args) };
        return resolveConnection(args, (page) => listConsumers(ctx, filters, page));
      },
    },
    aiCatalogItemConsumer: {
      type: g.type('AiCatalogItemConsumer'),
      description: 'Find an AI Catalog item consumer.',
      args: { id: { type: nn(ConsumerID), description: 'Global ID of the catalog item consumer to find.' } },
      resolve: (_s, args: { id: string }, ctx) => getConsumer(ctx, parseGlobalId(args.id, CONSUMER_MODELS)),
    },
  }));

  // ---- Mutations ----------------------------------------------------------------------------
  const definitionOf = (text: unknown) => (typeof text === 'string' ? parseCatalogDefinition(text) : undefined);
  const agentDefinition = (input: { systemPrompt: string; userPrompt?: string | null }) => ({ system_prompt: input.systemPrompt, user_prompt: input.userPrompt ?? '', tools: [] });
  const createInput = () => ({
    projectId: { type: nn(ProjectID), description: 'Project for the item.' },
    name: { type: nn(string), description: 'Name for the item.' },
    description: { type: nn(string), description: 'Description for the item.' },
    public: { type: nn(boolean), description: 'Whether the item is publicly visible in the catalog.' },
    release: { type: boolean, description: 'Whether to release the latest version of the item.' },
  });
  const updateInput = () => ({
    id: { type: nn(ItemID), description: 'Global ID of the catalog item to update.' },
    name: { type: string, description: 'Name for the item.' },
    description: { type: string, description: 'Description for the item.' },
    public: { type: boolean, description: 'Whether the item is publicly visible in the catalog.' },
    release: { type: boolean, description: 'Whether to release the latest version of the item.' },
    versionBump: { type: VersionBumpEnum, description: 'Bump version, calculated from the last released version name (default patch).' },
  });
  type CreateInput = { projectId: string; name: string; description: string; public: boolean; release?: boolean | null };
  type UpdateInput = { id: string; name?: string | null; description?: string | null; public?: boolean | null; release?: boolean | null; versionBump?: VersionBump | null };
  const create = (itemType: AiCatalogItemType, definition: (input: never) => Record<string, unknown>) => async (ctx: Ctx, input: CreateInput) => ({
    item: await createItem(ctx, {
      itemType,
      project: parseGlobalId(input.projectId, ['Project']),
      name: input.name,
      description: input.description,
      public: input.public,
      definition: definition(input as never),
      release: input.release === true,
    }),
  });
  const update = (itemType: AiCatalogItemType, definition: (input: never) => Record<string, unknown> | undefined) => async (ctx: Ctx, input: UpdateInput) => {
    const def = definition(input as never);
    return {
      item: await updateItem(ctx, parseGlobalId(input.id, ITEM_MODELS), itemType, {
        ...(input.name != null && { name: input.name }),
        ...(input.description != null && { description: input.description }),
        ...(input.public != null && { public: input.public }),
        ...(input.release != null && { release: input.release }),
        ...(input.versionBump != null && { versionBump: input.versionBump }),
        ...(def !== undefined && { definition: def }),
      }),
    };
  };
  const remove = (itemType: AiCatalogItemType) => async (ctx: Ctx, input: { id: string }) => {
    await deleteItem(ctx, parseGlobalId(input.id, ITEM_MODELS), itemType);
    return { success: true };
  };
  const deletePayload = () => ({ success: { type: nn(boolean), description: 'Returns true if the item was deleted.' } });

  g.mutation('aiCatalogFlowCreate', {
    description: 'Creates a flow in the AI catalog, owned by a project (its Maintainers).',
    input: () => ({ ...createInput(), definition: { type: string, description: 'YAML definition for the flow.' } }),
    payload: () => ({ item: { type: Flow, description: 'Item created.' } }),
    resolve: create('flow', (i: { definition?: string | null }) => definitionOf(i.definition) ?? {}),
  });
  g.mutation('aiCatalogFlowUpdate', {
    description: 'Updates a flow of the AI catalog: a new definition makes a new version once the latest is released.',
    input: () => ({ ...updateInput(), definition: { type: string, description: 'YAML definition for the flow.' } }),
    payload: () => ({ item: { type: Flow, description: 'Item updated.' } }),
    resolve: update('flow', (i: { definition?: string | null }) => definitionOf(i.definition)),
  });
  g.mutation('aiCatalogFlowDelete', {
    description: 'Deletes a flow of the AI catalog (soft-deleted while it is enabled somewhere).',
    input: () => ({ id: { type: nn(ItemID), description: 'Global ID of the catalog flow to delete.' } }),
    payload: deletePayload,
    resolve: remove('flow'),
  });
  g.mutation('aiCatalogAgentCreate', {
    description: 'Creates an agent in the AI catalog, owned by a project (its Maintainers).',
    input: () => ({
      ...createInput(),
      systemPrompt: { type: nn(string), description: 'System prompt for the agent.' },
      userPrompt: { type: string, description: 'User prompt for the agent.' },
    }),
    payload: () => ({ item: { type: ItemInterface, description: 'Item created.' } }),
    resolve: create('agent', agentDefinition),
  });
  g.mutation('aiCatalogAgentUpdate', {
    description: 'Updates an agent of the AI catalog.',
    input: () => ({
      ...updateInput(),
      systemPrompt: { type: string, description: 'System prompt for the agent.' },
      userPrompt: { type: string, description: 'User prompt for the agent.' },
    }),
    payload: () => ({ item: { type: Agent, description: 'Item updated.' } }),
    resolve: update('agent', (i: { systemPrompt?: string | null; userPrompt?: string | null }) => (i.systemPrompt != null ? agentDefinition({ systemPrompt: i.systemPrompt, userPrompt: i.userPrompt }) : undefined)),
  });
  g.mutation('aiCatalogAgentDelete', {
    description: 'Deletes an agent of the AI catalog.',
    input: () => ({ id: { type: nn(ItemID), description: 'Global ID of the catalog agent to delete.' } }),
    payload: deletePayload,
    resolve: remove('agent'),
  });

  const Target = g.add(
    new GraphQLInputObjectType({
      name: 'AiCatalogItemConsumerTargetInput',
      description: 'Target project or top-level group in which the catalog item is configured.',
      fields: () => ({
        groupId: { type: GroupID, description: 'Group in which to configure the item.' },
        projectId: { type: ProjectID, description: 'Project in which to configure the item.' },
      }),
    }),
  );
  const consumerPayload = (what: string) => () => ({ itemConsumer: { type: g.type('AiCatalogItemConsumer'), description: `Item configuration ${what}.` } });
  type ConsumerCreateInput = { itemId: string; target: { projectId?: string | null; groupId?: string | null }; enabled?: boolean | null; locked?: boolean | null; pinnedVersionPrefix?: string | null };
  g.mutation<ConsumerCreateInput>('aiCatalogItemConsumerCreate', {
    description: 'Enables an AI catalog item for a project (its Maintainers) or a top-level group (its Owners).',
    input: () => ({
      itemId: { type: nn(ItemID), description: 'Item to configure.' },
      target: { type: new GraphQLNonNull(Target), description: 'Target project or top-level group in which the catalog item is configured.' },
      enabled: { type: boolean, description: 'Whether the configuration is enabled (default true).' },
      locked: { type: boolean, description: 'Whether the configuration is locked (default true).' },
      pinnedVersionPrefix: { type: string, description: 'Major version, minor version, or patch to pin the item to.' },
    }),
    payload: consumerPayload('created'),
    resolve: async (ctx, input: ConsumerCreateInput) => {
      const { target } = input;
      if ((target.projectId == null) === (target.groupId == null)) throw new BadRequestError([EXACTLY_ONE], { raw: true });
      return {
        itemConsumer: await createConsumer(ctx, {
          itemId: parseGlobalId(input.itemId, ITEM_MODELS),
          ...(target.projectId != null ? { projectId: parseGlobalId(target.projectId, ['Project']) } : { groupId: parseGlobalId(target.groupId, ['Group']) }),
          ...(input.enabled != null && { enabled: input.enabled }),
          ...(input.locked != null && { locked: input.locked }),
          ...(input.pinnedVersionPrefix != null && { pinnedVersionPrefix: input.pinnedVersionPrefix }),
        }),
      };
    },
  });
  g.mutation('aiCatalogItemConsumerUpdate', {
    description: 'Updates an AI catalog item configuration: enable or disable it, lock it, pin a version.',
    input: () => ({
      id: { type: nn(ConsumerID), description: 'Global ID of the catalog item consumer to update.' },
      enabled: { type: boolean, description: 'Whether the configuration is enabled.' },
      locked: { type: boolean, description: 'Whether the configuration is locked.' },
      pinnedVersionPrefix: { type: string, description: 'Major version, minor version, or patch to pin the item to (null unpins).' },
    }),
    payload: consumerPayload('updated'),
    resolve: async (ctx, input: { id: string; enabled?: boolean | null; locked?: boolean | null; pinnedVersionPrefix?: string | null }) => ({
      itemConsumer: await updateConsumer(ctx, parseGlobalId(input.id, CONSUMER_MODELS), {
        ...(input.enabled != null && { enabled: input.enabled }),
        ...(input.locked != null && { locked: input.locked }),
        ...('pinnedVersionPrefix' in input && { pinnedVersionPrefix: input.pinnedVersionPrefix ?? null }),
      }),
    }),
  });
  g.mutation('aiCatalogItemConsumerDelete', {
    description: 'Removes an AI catalog item configuration: the item is no longer enabled there.',
    input: () => ({ id: { type: nn(ConsumerID), description: 'Global ID of the catalog item consumer to delete.' } }),
    payload: () => ({ success: { type: nn(boolean), description: 'Returns true if the catalog item consumer was deleted.' } }),
    resolve: async (ctx, input: { id: string }) => {
      await deleteConsumer(ctx, parseGlobalId(input.id, CONSUMER_MODELS));
      return { success: true };
    },
  });
};
