import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Groups and user namespaces share ids, as in GitLab (a group's id is its namespace id). */
export interface NamespaceTable {
  id: Generated<number>;
  kind: string; // group | user
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  parent_id: number | null;
  /** `/1/5/9/`: ids from the root down to this namespace, for ancestor and descendant queries */
  traversal: string;
  visibility: string; // private | internal | public
  description: Generated<string>;
  owner_id: Generated<number | null>;
  default_branch: Generated<string | null>;
  project_creation_level: Generated<string>;
  subgroup_creation_level: Generated<string>;
  request_access_enabled: Generated<number>;
  share_with_group_lock: Generated<number>;
  require_two_factor_authentication: Generated<number>;
  lfs_enabled: Generated<number>;
  created_at: string;
  updated_at: string;
}
/** Namespace ids from the root down to `traversal`'s namespace. */
export function traversalIds(traversal: string): number[] {
  return traversal.split('/').filter(Boolean).map(Number);
}

export type NamespaceRow = Selectable<NamespaceTable>;
export type NewNamespaceRow = Insertable<NamespaceTable>;
export type NamespaceUpdate = Updateable<NamespaceTable>;

// The namespaces table in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    namespaces: NamespaceTable;
  }
}
