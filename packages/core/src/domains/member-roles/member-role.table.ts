import type { Generated, Selectable } from 'kysely';

/** A custom role: a base access level plus permission flags, for the instance (`namespace_id` null) or a root group. */
export interface MemberRoleTable {
  id: Generated<number>;
  namespace_id: number | null;
  name: string;
  description: string | null;
  base_access_level: number;
  /** JSON array of the enabled permission flags, sorted. */
  permissions: string;
  created_at: string;
  updated_at: string;
}
export type MemberRoleRow = Selectable<MemberRoleTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    member_roles: MemberRoleTable;
  }
}
