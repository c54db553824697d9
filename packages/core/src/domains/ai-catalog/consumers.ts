/**
 * AI catalog item consumers (GitLab's Ai::Catalog::ItemConsumer, ItemConsumers services and
 * ItemConsumersFinder): an item enabled for a project or a group, optionally pinned to a
 * version. Served by GraphQL (aiCatalogConfiguredItems, aiCatalogItemConsumerCreate/Update/Delete)
 * and used by the flow trigger (`ai_catalog_item_consumer_id`).
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { authorize, can } from '../../access/policy.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { traversalIds, type NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { BadRequestError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import {
  consumersQuery,
  deleteConsumerById,
  insertConsumer,
  selectConsumerById,
  selectItemById,
  updateConsumerById,
} from './ai-catalog.queries.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { toConsumerEntity, toVersionEntity, type AiCatalogItemConsumerEntity, type AiCatalogItemType, type AiCatalogItemVersionEntity } from './ai-catalog.entity.js';
import type { AiCatalogItemConsumerRow, AiCatalogItemRow } from './ai-catalog.table.js';
import { canReadItem, loadReadableItem, resolveVersion } from './items.js';

const PIN_LIMIT = 50;

type Container = { kind: 'project'; project: ProjectRow } | { kind: 'group'; group: NamespaceRow };

async function containerOf(ctx: Ctx, consumer: AiCatalogItemConsumerRow): Promise<Container | undefined> {
  if (consumer.project_id !== null) {
    const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', consumer.project_id).executeTakeFirst();
    return project && { kind: 'project', project };
  }
  const group = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', consumer.group_id!).executeTakeFirst();
  return group && { kind: 'group', group };
}

/** The consumer when the caller may read it (GitLab delegates to its project or group); 404 otherwise. */
async function loadConsumer(ctx: Ctx, id: number, ability: 'read_ai_catalog_item_consumer' | 'admin_ai_catalog_item_consumer'): Promise<AiCatalogItemConsumerRow> {
  const consumer = await selectConsumerById(ctx.db, id);
  const container = consumer && (await containerOf(ctx, consumer));
  if (!consumer || !container || !(await can(ctx, 'read_ai_catalog_item_consumer', container))) throw new NotFoundError('AI Catalog Item Consumer');
  if (ability === 'admin_ai_catalog_item_consumer') await authorize(ctx, ability, container);
  return consumer;
}

/** One consumer the caller may read; null otherwise. */
export async function getConsumer(ctx: Ctx, id: number): Promise<AiCatalogItemConsumerEntity | null> {
  try {
    return toConsumerEntity(await loadConsumer(ctx, id, 'read_ai_catalog_item_consumer'));
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

function pinErrors(pin: string | null | undefined): string[] {
  return pin != null && pin.length > PIN_LIMIT ? [`Pinned version prefix is too long (maximum is ${PIN_LIMIT} characters)`] : [];
}

export interface CreateConsumerInput {
  itemId: number;
  /** Exactly one: the project (id or full path) or the top-level group the item is enabled for. */
  projectId?: number | string;
  groupId?: number | string;
  enabled?: boolean;
  locked?: boolean;
  pinnedVersionPrefix?: string | null;
}

/**
 * Enables an item for a project or a top-level group (GitLab's ItemConsumers::CreateService):
 * `admin_ai_catalog_item_consumer` on the target (project Maintainer, group Owner) and read
 * access to the item; a private item only in its own project (or its project's top-level group).
 */
export async function createConsumer(ctx: Ctx, input: CreateConsumerInput): Promise<AiCatalogItemConsumerEntity> {
  if ((input.projectId === undefined) === (input.groupId === undefined)) throw new BadRequestError('exactly one of projectId, groupId must be given');
  let container: Container;
  if (input.projectId !== undefined) container = { kind: 'project', project: await findProject(ctx, input.projectId) };
  else container = { kind: 'group', group: await findGroup(ctx, input.groupId!) };
  await authorize(ctx, 'admin_ai_catalog_item_consumer', container);
  const item = await loadReadableItem(ctx, input.itemId);
  const errors = pinErrors(input.pinnedVersionPrefix);
  if (container.kind === 'group' && container.group.parent_id !== null) errors.push('Group must be a top-level group');
  if (item.public === 0 && item.project_id !== null) {
    const ownProject = container.kind === 'project' && container.project.id === item.project_id;
    const ownRootGroup = container.kind === 'group' && (await rootGroupIdOfProject(ctx, item.project_id)) === container.group.id;
    if (!ownProject && !ownRootGroup) errors.push('Item is private to another project');
  }
  if (errors.length) throw new UnprocessableError(errors);
  const now = nowIso(ctx);
  try {
    const row = await insertConsumer(ctx.db, {
      item_id: item.id,
      project_id: container.kind === 'project' ? container.project.id : null,
      group_id: container.kind === 'group' ? container.group.id : null,
      enabled: input.enabled === false ? 0 : 1,
      locked: input.locked === false ? 0 : 1,
      pinned_version_prefix: input.pinnedVersionPrefix ?? null,
      created_at: now,
      updated_at: now,
    });
    return toConsumerEntity(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new UnprocessableError(['Item already configured']);
    throw err;
  }
}

async function rootGroupIdOfProject(ctx: Ctx, projectId: number): Promise<number | undefined> {
  const row = await ctx.db
    .selectFrom('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .select(['namespaces.traversal', 'namespaces.kind'])
    .where('projects.id', '=', projectId)
    .executeTakeFirst();
  return row && row.kind === 'group' ? traversalIds(row.traversal)[0] : undefined;
}

export interface UpdateConsumerInput {
  enabled?: boolean;
  locked?: boolean;
  pinnedVersionPrefix?: string | null;
}

/** Changes a consumer (GitLab's ItemConsumers::UpdateService): enable or disable it, lock, pin. */
export async function updateConsumer(ctx: Ctx, id: number, input: UpdateConsumerInput): Promise<AiCatalogItemConsumerEntity> {
  const consumer = await loadConsumer(ctx, id, 'admin_ai_catalog_item_consumer');
  const errors = pinErrors(input.pinnedVersionPrefix);
  if (errors.length) throw new UnprocessableError(errors);
  const row = await updateConsumerById(ctx.db, consumer.id, {
    ...(input.enabled !== undefined && { enabled: input.enabled ? 1 : 0 }),
    ...(input.locked !== undefined && { locked: input.locked ? 1 : 0 }),
    ...(input.pinnedVersionPrefix !== undefined && { pinned_version_prefix: input.pinnedVersionPrefix }),
    updated_at: nowIso(ctx),
  });
  return toConsumerEntity(row);
}

/** Disables an item for its project or group by removing the consumer (GitLab's DestroyService). */
export async function deleteConsumer(ctx: Ctx, id: number): Promise<void> {
  const consumer = await loadConsumer(ctx, id, 'admin_ai_catalog_item_consumer');
  await deleteConsumerById(ctx.db, consumer.id);
}

export interface ConsumerFilters {
  /** Exactly one: a project (id or full path) or a group. */
  projectId?: number | string;
  groupId?: number | string;
  /** Also the consumers of the project's or group's ancestor groups (GitLab's default, true). */
  includeInherited?: boolean;
  itemId?: number;
  itemTypes?: AiCatalogItemType[];
}

/**
 * The items configured for a project or a group (GitLab's `aiCatalogConfiguredItems`), newest
 * first; empty when the caller may not read the container's consumers (GitLab's finder answers
 * none rather than an error).
 */
export async function listConsumers(ctx: Ctx, filters: ConsumerFilters, page: PageRequest): Promise<Page<AiCatalogItemConsumerEntity>> {
  const empty: Page<AiCatalogItemConsumerEntity> = { items: [], page: page.page, perPage: page.per_page, total: 0, hasNext: false, ...(page.offset !== undefined && { offset: page.offset }) };
  if ((filters.projectId === undefined) === (filters.groupId === undefined)) throw new BadRequestError('exactly one of projectId, groupId must be given');
  let container: Container;
  try {
    container = filters.projectId !== undefined
      ? { kind: 'project', project: await findProject(ctx, filters.projectId) }
      : { kind: 'group', group: await findGroup(ctx, filters.groupId!) };
  } catch (err) {
    if (err instanceof NotFoundError) return empty;
    throw err;
  }
  if (!(await can(ctx, 'read_ai_catalog_item_consumer', container))) return empty;
  const inherited = filters.includeInherited !== false;
  const namespaceId = container.kind === 'project' ? container.project.namespace_id : container.group.id;
  let groupIds: number[] = [];
  if (inherited || container.kind === 'group') {
    const ns = await ctx.db.selectFrom('namespaces').select(['traversal', 'kind']).where('id', '=', namespaceId).executeTakeFirstOrThrow();
    groupIds = ns.kind === 'group' ? (inherited ? traversalIds(ns.traversal) : [namespaceId]) : [];
  }
  const query = consumersQuery(ctx.db, { projectId: container.kind === 'project' ? container.project.id : null, groupIds }, filters);
  return paginate(ctx.db, query, page, (rows) => rows.map(toConsumerEntity));
}

/** What a flow started from a consumer runs: the consumer, its flow item and the resolved, released version. */
export interface ConsumedFlow {
  consumer: AiCatalogItemConsumerEntity;
  item: { id: number; name: string; description: string; item_type: AiCatalogItemType };
  version: AiCatalogItemVersionEntity;
}

const CONSUMER_FIELD = 'ai_catalog_item_consumer_id';

/**
 * The flow configuration a trigger's `ai_catalog_item_consumer_id` names (GitLab's API
 * `find_item_consumer!` and Flows::ExecuteService#validate), refused with a 400 naming the field:
 * the consumer must exist, belong to the flow's project, be enabled, and configure a flow the
 * caller can read whose pinned (or latest) version resolves and is released.
 */
export async function consumedFlow(ctx: Ctx, consumerId: number, project: ProjectRow): Promise<ConsumedFlow> {
  const refuse = (reason: string): never => {
    throw new BadRequestError(`${CONSUMER_FIELD}: ${reason}`);
  };
  const consumer = await selectConsumerById(ctx.db, consumerId);
  if (!consumer || consumer.project_id !== project.id) refuse('Enabled agent or flow was not found for this project');
  const item = (await selectItemById(ctx.db, consumer!.item_id)) as AiCatalogItemRow;
  if (!(await canReadItem(ctx, item))) refuse('Enabled agent or flow was not found for this project');
  if (consumer!.enabled !== 1) refuse('Agent or flow is not enabled for this project');
  if (item.item_type !== 'flow') refuse('Item must be a flow type');
  const version = await resolveVersion(ctx, item, consumer!.pinned_version_prefix);
  if (!version) refuse('Flow version could not be resolved from pinned version');
  if (version!.release_date === null) refuse('Flow version is in draft state and cannot be executed');
  return {
    consumer: toConsumerEntity(consumer!),
    item: { id: item.id, name: item.name, description: item.description, item_type: item.item_type as AiCatalogItemType },
    version: toVersionEntity(version!, item.item_type),
  };
}

/**
 * The version a trigger's `ai_catalog_item_version_id` names without a consumer (GitLab looks it
 * up, `ItemVersion.find`): it must exist and its item be readable, else a 400 naming the field.
 */
export async function catalogVersionForFlow(ctx: Ctx, versionId: number): Promise<AiCatalogItemVersionEntity> {
  const version = await ctx.db.selectFrom('ai_catalog_item_versions').selectAll().where('id', '=', versionId).executeTakeFirst();
  const item = version && (await selectItemById(ctx.db, version.item_id));
  if (!version || !item || !(await canReadItem(ctx, item))) throw new BadRequestError('ai_catalog_item_version_id: AI Catalog Item Version not found');
  return toVersionEntity(version, item.item_type);
}
