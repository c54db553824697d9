/** The AI catalog's queries: nothing else touches its tables. */
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Actor } from '../../access/context.js';
import { DEVELOPER } from '../../access/levels.js';
import { projectMembershipFilter } from '../../access/visibility.queries.js';
import { fuzzyMatch, likeEscape } from '../../kernel/sql-pattern.js';
import type { Database } from '../../storage/database.js';
import type { AiCatalogItemConsumerRow, AiCatalogItemConsumerTable, AiCatalogItemRow, AiCatalogItemTable, AiCatalogItemVersionRow, AiCatalogItemVersionTable } from './ai-catalog.table.js';
import type { Insertable, Updateable } from 'kysely';

type Db = Kysely<Database>;

export async function insertItem(db: Db, row: Insertable<AiCatalogItemTable>): Promise<AiCatalogItemRow> {
  return db.insertInto('ai_catalog_items').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateItemById(db: Db, id: number, patch: Updateable<AiCatalogItemTable>): Promise<AiCatalogItemRow> {
  return db.updateTable('ai_catalog_items').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function selectItemById(db: Db, id: number): Promise<AiCatalogItemRow | undefined> {
  return db.selectFrom('ai_catalog_items').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteItemById(db: Db, id: number): Promise<void> {
  await db.deleteFrom('ai_catalog_items').where('id', '=', id).execute();
}

/**
 * Items the actor may read, newest first (GitLab's `public_or_visible_to_user`): public items,
 * and private ones of projects where the actor is Developer or above; administrators see all.
 */
export function visibleItemsQuery(
  db: Db,
  actor: Actor,
  today: string,
  filters: { itemTypes?: string[]; search?: string; projectId?: number },
): SelectQueryBuilder<Database, 'ai_catalog_items', AiCatalogItemRow> {
  let q = db.selectFrom('ai_catalog_items').selectAll().where('deleted_at', 'is', null);
  if (!actor.isAdmin) {
    const user = actor.user;
    q = q.where((eb) =>
      user
        ? eb.or([
            eb('public', '=', 1),
            eb(
              'project_id',
              'in',
              eb
                .selectFrom('projects as pr')
                .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
                .select('pr.id')
                .where((w) => projectMembershipFilter(w as never, user.id, today, DEVELOPER)),
            ),
          ])
        : eb('public', '=', 1),
    );
  }
  if (filters.itemTypes?.length) q = q.where('item_type', 'in', filters.itemTypes);
  if (filters.projectId !== undefined) q = q.where('project_id', '=', filters.projectId);
  // GitLab's `fuzzy_search(query, [:name, :description])`: every word in one of the columns.
  const byName = filters.search ? fuzzyMatch('name', filters.search) : null;
  const byDescription = filters.search ? fuzzyMatch('description', filters.search) : null;
  if (byName && byDescription) q = q.where((eb) => eb.or([byName, byDescription]));
  return q.orderBy('id', 'desc');
}

export async function insertVersion(db: Db, row: Insertable<AiCatalogItemVersionTable>): Promise<AiCatalogItemVersionRow> {
  return db.insertInto('ai_catalog_item_versions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateVersionById(db: Db, id: number, patch: Updateable<AiCatalogItemVersionTable>): Promise<AiCatalogItemVersionRow> {
  return db.updateTable('ai_catalog_item_versions').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function selectVersionById(db: Db, id: number): Promise<AiCatalogItemVersionRow | undefined> {
  return db.selectFrom('ai_catalog_item_versions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function selectVersionsByIds(db: Db, ids: number[]): Promise<AiCatalogItemVersionRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('ai_catalog_item_versions').selectAll().where('id', 'in', ids).execute();
}

export function versionsOfItemQuery(db: Db, itemId: number): SelectQueryBuilder<Database, 'ai_catalog_item_versions', AiCatalogItemVersionRow> {
  return db.selectFrom('ai_catalog_item_versions').selectAll().where('item_id', '=', itemId).orderBy('id', 'desc');
}

export async function selectVersionByNumber(db: Db, itemId: number, version: string): Promise<AiCatalogItemVersionRow | undefined> {
  return db.selectFrom('ai_catalog_item_versions').selectAll().where('item_id', '=', itemId).where('version', '=', version).executeTakeFirst();
}

/** The newest version whose number starts with `prefix.` (GitLab's pinned major or minor version). */
export async function selectNewestVersionWithPrefix(db: Db, itemId: number, prefix: string): Promise<AiCatalogItemVersionRow | undefined> {
  const like = `${likeEscape(prefix)}.%`;
  return db
    .selectFrom('ai_catalog_item_versions')
    .selectAll()
    .where('item_id', '=', itemId)
    .where(sql<boolean>`version like ${like} escape '\\'`)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertConsumer(db: Db, row: Insertable<AiCatalogItemConsumerTable>): Promise<AiCatalogItemConsumerRow> {
  return db.insertInto('ai_catalog_item_consumers').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateConsumerById(db: Db, id: number, patch: Updateable<AiCatalogItemConsumerTable>): Promise<AiCatalogItemConsumerRow> {
  return db.updateTable('ai_catalog_item_consumers').set(patch).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function selectConsumerById(db: Db, id: number): Promise<AiCatalogItemConsumerRow | undefined> {
  return db.selectFrom('ai_catalog_item_consumers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function deleteConsumerById(db: Db, id: number): Promise<void> {
  await db.deleteFrom('ai_catalog_item_consumers').where('id', '=', id).execute();
}

export async function itemHasConsumers(db: Db, itemId: number): Promise<boolean> {
  const row = await db.selectFrom('ai_catalog_item_consumers').select('id').where('item_id', '=', itemId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Consumers of a project and/or groups whose item is not deleted, newest first (GitLab's order
 * without foundational flows).
 */
export function consumersQuery(
  db: Db,
  container: { projectId: number | null; groupIds: number[] },
  filters: { itemId?: number; itemTypes?: string[] },
): SelectQueryBuilder<Database, 'ai_catalog_item_consumers' | 'ai_catalog_items', AiCatalogItemConsumerRow> {
  let q = db
    .selectFrom('ai_catalog_item_consumers')
    .innerJoin('ai_catalog_items', 'ai_catalog_items.id', 'ai_catalog_item_consumers.item_id')
    .selectAll('ai_catalog_item_consumers')
    .where('ai_catalog_items.deleted_at', 'is', null)
    .where((eb) => {
      const ors = [];
      if (container.projectId !== null) ors.push(eb('ai_catalog_item_consumers.project_id', '=', container.projectId));
      if (container.groupIds.length) ors.push(eb('ai_catalog_item_consumers.group_id', 'in', container.groupIds));
      return ors.length ? eb.or(ors) : sql<boolean>`1 = 0`;
    });
  if (filters.itemId !== undefined) q = q.where('ai_catalog_item_consumers.item_id', '=', filters.itemId);
  if (filters.itemTypes?.length) q = q.where('ai_catalog_items.item_type', 'in', filters.itemTypes);
  return q.orderBy('ai_catalog_item_consumers.id', 'desc');
}
