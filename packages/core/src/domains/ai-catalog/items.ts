/**
 * AI catalog items (GitLab's Ai::Catalog::Item, its Agents:: and Flows:: create, update and
 * destroy services, and Ai::Catalog::ItemPolicy): agents and flows owned by a project, public or
 * private, each with versions holding a definition. Served by GraphQL (aiCatalogItems,
 * aiCatalogItem, aiCatalogAgentCreate/Update/Delete, aiCatalogFlowCreate/Update/Delete).
 */
import { parse as parseYaml } from 'yaml';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import {
  deleteItemById,
  insertItem,
  insertVersion,
  itemHasConsumers,
  selectItemById,
  selectNewestVersionWithPrefix,
  selectVersionById,
  selectVersionByNumber,
  selectVersionsByIds,
  updateItemById,
  updateVersionById,
  versionsOfItemQuery,
  visibleItemsQuery,
} from './ai-catalog.queries.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { toItemEntity, toVersionEntity, type AiCatalogItemEntity, type AiCatalogItemType, type AiCatalogItemVersionEntity } from './ai-catalog.entity.js';
import type { AiCatalogItemRow, AiCatalogItemVersionRow } from './ai-catalog.table.js';

export const ITEM_TYPES = ['agent', 'flow'] as const;
export const VERSION_BUMPS = ['major', 'minor', 'patch'] as const;
export type VersionBump = (typeof VERSION_BUMPS)[number];
/** GitLab's definition size limit (JsonSchemaValidator size_limit 64 KB). */
const DEFINITION_LIMIT = 64 * 1024;
const SCHEMA_VERSION = 1;
const FIRST_VERSION = '1.0.0';

export interface ItemFilters {
  itemTypes?: AiCatalogItemType[];
  search?: string;
  /** Only the items of this project (GitLab's project-level `aiCatalogItems`). */
  projectId?: number;
}

/** The items the caller may read, newest first (GitLab's `aiCatalogItems`). */
export async function listItems(ctx: Ctx, filters: ItemFilters, page: PageRequest): Promise<Page<AiCatalogItemEntity>> {
  return paginate(ctx.db, visibleItemsQuery(ctx.db, ctx.actor, nowIso(ctx).slice(0, 10), filters), page, (rows) => rows.map(toItemEntity));
}

async function projectOf(ctx: Ctx, item: AiCatalogItemRow): Promise<ProjectRow | undefined> {
  if (item.project_id === null) return undefined;
  return ctx.db.selectFrom('projects').selectAll().where('id', '=', item.project_id).executeTakeFirst();
}

/** GitLab's `read_ai_catalog_item`: public items, or Developer of the owning project. */
export async function canReadItem(ctx: Ctx, item: AiCatalogItemRow): Promise<boolean> {
  if (item.deleted_at !== null) return false;
  if (item.public === 1 || ctx.actor.isAdmin) return true;
  const project = await projectOf(ctx, item);
  return project !== undefined && (await can(ctx, 'read_ai_catalog_item', { kind: 'project', project }));
}

/** The item when the caller may read it; 404 otherwise (existence hidden). */
export async function loadReadableItem(ctx: Ctx, id: number): Promise<AiCatalogItemRow> {
  const item = await selectItemById(ctx.db, id);
  if (!item || !(await canReadItem(ctx, item))) throw new NotFoundError('AI Catalog Item');
  return item;
}

/** One item (GitLab's `aiCatalogItem(id:)`); null when missing or hidden from the caller. */
export async function getItem(ctx: Ctx, id: number): Promise<AiCatalogItemEntity | null> {
  const item = await selectItemById(ctx.db, id);
  return item && (await canReadItem(ctx, item)) ? toItemEntity(item) : null;
}

/** The item for a change: readable (else 404), and `admin_ai_catalog_item` on its project (else 403). */
async function loadAdminItem(ctx: Ctx, id: number, type?: AiCatalogItemType): Promise<{ item: AiCatalogItemRow; project: ProjectRow }> {
  const item = await loadReadableItem(ctx, id);
  if (type !== undefined && item.item_type !== type) throw new NotFoundError('AI Catalog Item');
  const project = await projectOf(ctx, item);
  if (!project) throw new NotFoundError('AI Catalog Item');
  await authorize(ctx, 'admin_ai_catalog_item', { kind: 'project', project });
  return { item, project };
}

export interface ItemAttributes {
  name?: string;
  description?: string;
  public?: boolean;
}

/** GitLab's model validations of an item, as its full messages. */
function itemErrors(attrs: ItemAttributes): string[] {
  const errors: string[] = [];
  if (attrs.name !== undefined) {
    if (attrs.name.trim() === '') errors.push("Name can't be blank");
    else if (attrs.name.length < 3) errors.push('Name is too short (minimum is 3 characters)');
    else if (attrs.name.length > 255) errors.push('Name is too long (maximum is 255 characters)');
  }
  if (attrs.description !== undefined) {
    if (attrs.description.trim() === '') errors.push("Description can't be blank");
    else if (attrs.description.length > 1024) errors.push('Description is too long (maximum is 1024 characters)');
  }
  return errors;
}

/**
 * A flow's definition: GitLab takes it as YAML (`definition`), kept as its JSON object; an
 * agent's is built from its prompts and tools.
 */
export function parseCatalogDefinition(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch {
    throw new UnprocessableError(['Definition is not valid YAML']);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UnprocessableError(['Definition must be a mapping']);
  return value as Record<string, unknown>;
}

function definitionErrors(definition: Record<string, unknown>): string[] {
  return JSON.stringify(definition).length > DEFINITION_LIMIT ? [`Definition is too large (maximum is ${DEFINITION_LIMIT} bytes)`] : [];
}

export interface CreateItemInput extends Required<Pick<ItemAttributes, 'name' | 'description' | 'public'>> {
  itemType: AiCatalogItemType;
  /** The owning project: id or full path. */
  project: number | string;
  definition: Record<string, unknown>;
  /** Release the first version now (else it stays a draft, which flows cannot run). */
  release?: boolean;
}

/**
 * Creates an item with its first version `1.0.0` in one transaction (GitLab's
 * Agents::CreateService / Flows::CreateService); Maintainers of the project.
 */
export async function createItem(ctx: Ctx, input: CreateItemInput): Promise<AiCatalogItemEntity> {
  const user = requireUser(ctx);
  const project = await findProject(ctx, input.project);
  await authorize(ctx, 'admin_ai_catalog_item', { kind: 'project', project });
  const errors = [...itemErrors(input), ...definitionErrors(input.definition)];
  if (errors.length) throw new UnprocessableError(errors);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const item = await insertItem(trx, {
      item_type: input.itemType,
      name: input.name,
      description: input.description,
      public: input.public ? 1 : 0,
      project_id: project.id,
      latest_version_id: null,
      created_by_id: user.id,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    });
    const version = await insertVersion(trx, {
      item_id: item.id,
      version: FIRST_VERSION,
      schema_version: SCHEMA_VERSION,
      definition: JSON.stringify(input.definition),
      release_date: input.release ? now : null,
      created_at: now,
      updated_at: now,
    });
    return updateItemById(trx, item.id, { latest_version_id: version.id });
  });
  return toItemEntity(row);
}

export interface UpdateItemInput extends ItemAttributes {
  definition?: Record<string, unknown>;
  release?: boolean;
  /** Which part of the version a new version bumps (default patch). */
  versionBump?: VersionBump;
}

/** `1.2.3` bumped: major → 2.0.0, minor → 1.3.0, patch → 1.2.4. */
export function bumpVersion(version: string, bump: VersionBump): string {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number];
  if (bump === 'major') return `${major + 1}.0.0`;
  if (bump === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/**
 * Updates an item (GitLab's Agents:: / Flows::UpdateService): its attributes, and a new
 * definition (a new, bumped version when the latest is released; the draft changed in place
 * otherwise); `release` releases the latest version. A public item with consumers outside its
 * project cannot become private.
 */
export async function updateItem(ctx: Ctx, id: number, type: AiCatalogItemType, input: UpdateItemInput): Promise<AiCatalogItemEntity> {
  const { item } = await loadAdminItem(ctx, id, type);
  const errors = [...itemErrors(input), ...(input.definition ? definitionErrors(input.definition) : [])];
  if (input.public === false && item.public === 1 && item.project_id !== null) {
    const external = await ctx.db
      .selectFrom('ai_catalog_item_consumers')
      .select('id')
      .where('item_id', '=', item.id)
      .where((eb) => eb.or([eb('project_id', 'is', null), eb('project_id', '!=', item.project_id!)]))
      .limit(1)
      .executeTakeFirst();
    if (external) errors.push('Public cannot be changed from public to private as it has catalog consumers');
  }
  if (errors.length) throw new UnprocessableError(errors);
  const now = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    let latest = item.latest_version_id !== null ? await selectVersionById(trx, item.latest_version_id) : undefined;
    let latestId = item.latest_version_id;
    if (input.definition !== undefined) {
      const definition = JSON.stringify(input.definition);
      if (latest && latest.release_date === null) {
        latest = await updateVersionById(trx, latest.id, { definition, updated_at: now });
      } else if (!latest || latest.definition !== definition) {
        latest = await insertVersion(trx, {
          item_id: item.id,
          version: latest ? bumpVersion(latest.version, input.versionBump ?? 'patch') : FIRST_VERSION,
          schema_version: SCHEMA_VERSION,
          definition,
          release_date: null,
          created_at: now,
          updated_at: now,
        });
        latestId = latest.id;
      }
    }
    if (input.release && latest && latest.release_date === null) await updateVersionById(trx, latest.id, { release_date: now, updated_at: now });
    return updateItemById(trx, item.id, {
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.public !== undefined && { public: input.public ? 1 : 0 }),
      latest_version_id: latestId,
      updated_at: now,
    });
  });
  return toItemEntity(row);
}

/**
 * Deletes an item (GitLab's DestroyService): an item that is still enabled somewhere is
 * soft-deleted (hidden, its consumers kept but unusable), others are removed with their versions.
 */
export async function deleteItem(ctx: Ctx, id: number, type: AiCatalogItemType): Promise<void> {
  const { item } = await loadAdminItem(ctx, id, type);
  await ctx.db.transaction().execute(async (trx) => {
    if (await itemHasConsumers(trx, item.id)) await updateItemById(trx, item.id, { deleted_at: nowIso(ctx), updated_at: nowIso(ctx) });
    else await deleteItemById(trx, item.id);
  });
}

/** The versions of a readable item, newest first. */
export async function listVersions(ctx: Ctx, itemId: number, page: PageRequest): Promise<Page<AiCatalogItemVersionEntity>> {
  const item = await loadReadableItem(ctx, itemId);
  return paginate(ctx.db, versionsOfItemQuery(ctx.db, item.id), page, (rows) => rows.map((r) => toVersionEntity(r, item.item_type)));
}

/** Versions by id (for a page of items' `latestVersion`), with their item's type. */
export async function versionsByIds(ctx: Ctx, ids: number[]): Promise<Map<number, AiCatalogItemVersionEntity>> {
  const rows = await selectVersionsByIds(ctx.db, ids);
  const items = rows.length
    ? await ctx.db.selectFrom('ai_catalog_items').select(['id', 'item_type']).where('id', 'in', [...new Set(rows.map((r) => r.item_id))]).execute()
    : [];
  const types = new Map(items.map((i) => [i.id, i.item_type]));
  return new Map(rows.map((r) => [r.id, toVersionEntity(r, types.get(r.item_id) ?? 'flow')]));
}

/**
 * GitLab's `Item#resolve_version`: the latest version without a pin; the exact version for a
 * full `x.y.z` pin; else the newest version starting with the pinned major (or major.minor).
 */
export async function resolveVersion(ctx: Pick<Ctx, 'db'>, item: AiCatalogItemRow, pinnedPrefix: string | null): Promise<AiCatalogItemVersionRow | undefined> {
  if (pinnedPrefix === null || pinnedPrefix === '') return item.latest_version_id !== null ? selectVersionById(ctx.db, item.latest_version_id) : undefined;
  if (pinnedPrefix.split('.').length === 3) return selectVersionByNumber(ctx.db, item.id, pinnedPrefix);
  return selectNewestVersionWithPrefix(ctx.db, item.id, pinnedPrefix);
}
