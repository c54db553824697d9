import type { Generated, Insertable, Selectable } from 'kysely';

export interface MemberTable {
  id: Generated<number>;
  source_kind: string; // project | namespace
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null; // YYYY-MM-DD
  member_role_id: number | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}
export type MemberRow = Selectable<MemberTable>;
export type NewMemberRow = Insertable<MemberTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    members: MemberTable;
  }
}
