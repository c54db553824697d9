import type { Generated, Selectable } from 'kysely';

/** GitLab's `Ai::Catalog::Item`: an agent or a flow, owned by a project, public or private. */
export interface AiCatalogItemTable {
  id: Generated<number>;
  item_type: string; // agent | flow
  name: string;
  description: string;
  public: number;
  project_id: number | null;
  latest_version_id: number | null;
  created_by_id: number | null;
  /** Set when an item that has consumers is deleted (GitLab soft-deletes it). */
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}
export type AiCatalogItemRow = Selectable<AiCatalogItemTable>;

/** GitLab's `Ai::Catalog::ItemVersion`: a semantic version with its definition; released or draft. */
export interface AiCatalogItemVersionTable {
  id: Generated<number>;
  item_id: number;
  version: string;
  schema_version: number;
  definition: string; // JSON object
  release_date: string | null;
  created_at: string;
  updated_at: string;
}
export type AiCatalogItemVersionRow = Selectable<AiCatalogItemVersionTable>;

/** GitLab's `Ai::Catalog::ItemConsumer`: an item enabled (configured) for a project or a group. */
export interface AiCatalogItemConsumerTable {
  id: Generated<number>;
  item_id: number;
  project_id: number | null;
  group_id: number | null;
  enabled: number;
  locked: number;
  pinned_version_prefix: string | null;
  created_at: string;
  updated_at: string;
}
export type AiCatalogItemConsumerRow = Selectable<AiCatalogItemConsumerTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    ai_catalog_items: AiCatalogItemTable;
    ai_catalog_item_versions: AiCatalogItemVersionTable;
    ai_catalog_item_consumers: AiCatalogItemConsumerTable;
  }
}
