import type { Generated, Selectable } from 'kysely';

/** Deploy tokens of a project or a group (exactly one of project_id / group_id), stored as SHA-256 digests. */
export interface DeployTokenTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  name: string;
  /** null: GitLab's default `gitlab+deploy-token-<id>`. */
  username: string | null;
  token_digest: string;
  scopes: string; // JSON array
  /** ISO timestamp; null: never expires. */
  expires_at: string | null;
  revoked: Generated<number>;
  creator_id: number | null;
  created_at: string;
}
export type DeployTokenRow = Selectable<DeployTokenTable>;

export const DEPLOY_TOKEN_PREFIX = 'gldt-';

/** GitLab's DeployToken#username: the given one or `gitlab+deploy-token-<id>`. */
export function deployTokenUsername(row: Pick<DeployTokenRow, 'id' | 'username'>): string {
  return row.username ?? `gitlab+deploy-token-${row.id}`;
}

// This table in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    deploy_tokens: DeployTokenTable;
  }
}
