import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { AwardableType } from './award-emoji.entity.js';
import type { AwardEmojiRow } from './award-emoji.table.js';

export interface AwardableKey {
  type: string;
  id: number;
}

/** Reactions of one awardable, oldest first (uses the award_emoji_awardable index). */
export function selectAwardEmojiOf(db: Kysely<Database>, awardable: AwardableKey) {
  return db
    .selectFrom('award_emoji')
    .selectAll()
    .where('awardable_type', '=', awardable.type)
    .where('awardable_id', '=', awardable.id)
    .orderBy('id', 'asc');
}

export function selectAwardEmojiById(db: Kysely<Database>, awardable: AwardableKey, id: number): Promise<AwardEmojiRow | undefined> {
  return selectAwardEmojiOf(db, awardable).where('id', '=', id).executeTakeFirst();
}

/** Inserts a reaction; the unique index (user, awardable, name) refuses a second identical one. */
export async function insertAwardEmoji(db: Kysely<Database>, values: { name: string; user_id: number } & AwardableKey, now: string): Promise<AwardEmojiRow> {
  return db
    .insertInto('award_emoji')
    .values({ name: values.name, user_id: values.user_id, awardable_type: values.type, awardable_id: values.id, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAwardEmojiById(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('award_emoji').where('id', '=', id).execute();
}

/**
 * Deletes the reactions on the given awardables: ids, or a query selecting them (notes of a
 * deleted noteable). No foreign key points at awardables: call this in the transaction that
 * deletes them.
 */
export async function deleteAwardEmojiOf(
  trx: Kysely<Database>,
  type: AwardableType,
  ids: readonly number[] | SelectQueryBuilder<Database, any, { id: number }>,
): Promise<void> {
  if (Array.isArray(ids) && ids.length === 0) return;
  await trx.deleteFrom('award_emoji').where('awardable_type', '=', type).where('awardable_id', 'in', ids).execute();
}

export interface Votes {
  up: number;
  down: number;
}

/** thumbsup / thumbsdown reactions per awardable (`upvotes`, `downvotes`), for a page of them in one query. */
export async function countVotesOf(db: Kysely<Database>, type: AwardableType, ids: readonly number[]): Promise<Map<number, Votes>> {
  const out = new Map<number, Votes>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('award_emoji')
    .select(['awardable_id', 'name', sql<number>`count(*)`.as('n')])
    .where('awardable_type', '=', type)
    .where('awardable_id', 'in', ids)
    .where('name', 'in', ['thumbsup', 'thumbsdown'])
    .groupBy(['awardable_id', 'name'])
    .execute();
  for (const r of rows) {
    const votes = out.get(r.awardable_id) ?? { up: 0, down: 0 };
    if (r.name === 'thumbsup') votes.up = Number(r.n);
    else votes.down = Number(r.n);
    out.set(r.awardable_id, votes);
  }
  return out;
}
