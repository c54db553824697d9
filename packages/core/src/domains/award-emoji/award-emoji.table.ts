import type { Generated, Selectable } from 'kysely';

export interface AwardEmojiTable {
  id: Generated<number>;
  name: string;
  user_id: number;
  awardable_type: string; // Issue | MergeRequest | Snippet | Note
  awardable_id: number;
  created_at: string;
  updated_at: string;
}
export type AwardEmojiRow = Selectable<AwardEmojiTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    award_emoji: AwardEmojiTable;
  }
}
