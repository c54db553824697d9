import type { Generated, Insertable, Selectable } from 'kysely';

export interface AccessTokenTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  description: string | null;
  /** SHA-256 of the token; the clear text is returned once, at creation */
  token_digest: string;
  scopes: string; // JSON array
  expires_at: string | null; // YYYY-MM-DD
  revoked: number;
  last_used_at: string | null;
  /** project | group for resource access tokens (their user is a bot), null for personal */
  resource_kind: string | null;
  resource_id: number | null;
  access_level: number | null;
  /** 1 for impersonation tokens (made by an administrator for a user). */
  impersonation: Generated<number>;
  created_at: string;
}
export type AccessTokenRow = Selectable<AccessTokenTable>;
export type NewAccessTokenRow = Insertable<AccessTokenTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    access_tokens: AccessTokenTable;
  }
}
