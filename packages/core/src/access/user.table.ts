import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface UserTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  state: string; // active | blocked | deactivated
  is_admin: number;
  /** null for humans; project_bot / group_bot for access-token bot users */
  bot_kind: string | null;
  namespace_id: number | null;
  bio: string;
  location: string;
  public_email: string | null;
  website_url: string;
  job_title: string;
  organization: string;
  can_create_group: number;
  projects_limit: number;
  external: number;
  created_at: string;
  updated_at: string;
  last_activity_on: string | null;
}
export type UserRow = Selectable<UserTable>;
export type NewUserRow = Insertable<UserTable>;
export type UserUpdate = Updateable<UserTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    users: UserTable;
  }
}
