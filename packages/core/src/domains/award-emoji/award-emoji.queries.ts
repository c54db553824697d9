import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
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
