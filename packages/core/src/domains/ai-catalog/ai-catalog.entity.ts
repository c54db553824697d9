/** The AI catalog's records as the API layers see them (GitLab's attribute names, snake_case). */
import type { AiCatalogItemConsumerRow, AiCatalogItemRow, AiCatalogItemVersionRow } from './ai-catalog.table.js';

export type AiCatalogItemType = 'agent' | 'flow';

export interface AiCatalogItemEntity {
  id: number;
  item_type: AiCatalogItemType;
  name: string;
  description: string;
  public: boolean;
  project_id: number | null;
  latest_version_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface AiCatalogItemVersionEntity {
  id: number;
  item_id: number;
  item_type: AiCatalogItemType;
  /** Semantic version, `1.0.0`. */
  version: string;
  schema_version: number;
  definition: Record<string, unknown>;
  /** Null while the version is a draft. */
  release_date: string | null;
  released: boolean;
  created_at: string;
  updated_at: string;
}

export interface AiCatalogItemConsumerEntity {
  id: number;
  item_id: number;
  project_id: number | null;
  group_id: number | null;
  enabled: boolean;
  locked: boolean;
  pinned_version_prefix: string | null;
  created_at: string;
  updated_at: string;
}

export function toItemEntity(row: AiCatalogItemRow): AiCatalogItemEntity {
  return {
    id: row.id,
    item_type: row.item_type as AiCatalogItemType,
    name: row.name,
    description: row.description,
    public: row.public === 1,
    project_id: row.project_id,
    latest_version_id: row.latest_version_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toVersionEntity(row: AiCatalogItemVersionRow, itemType: string): AiCatalogItemVersionEntity {
  return {
    id: row.id,
    item_id: row.item_id,
    item_type: itemType as AiCatalogItemType,
    version: row.version,
    schema_version: row.schema_version,
    definition: JSON.parse(row.definition) as Record<string, unknown>,
    release_date: row.release_date,
    released: row.release_date !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toConsumerEntity(row: AiCatalogItemConsumerRow): AiCatalogItemConsumerEntity {
  return {
    id: row.id,
    item_id: row.item_id,
    project_id: row.project_id,
    group_id: row.group_id,
    enabled: row.enabled === 1,
    locked: row.locked === 1,
    pinned_version_prefix: row.pinned_version_prefix,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
