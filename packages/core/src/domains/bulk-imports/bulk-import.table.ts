import type { Generated, Selectable } from 'kysely';

export interface BulkImportTable {
  id: Generated<number>;
  user_id: number;
  status: string;
  source_type: string;
  source_url: string;
  source_token_encrypted: string;
  source_version: string | null;
  has_failures: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type BulkImportRow = Selectable<BulkImportTable>;

export interface BulkImportEntityTable {
  id: Generated<number>;
  bulk_import_id: number;
  status: string;
  entity_type: string;
  source_full_path: string;
  source_xid: number | null;
  destination_name: string;
  destination_slug: string;
  destination_namespace: string;
  parent_id: number | null;
  namespace_id: number | null;
  project_id: number | null;
  migrate_projects: number;
  migrate_memberships: number;
  has_failures: Generated<number>;
  exports_requested: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type BulkImportEntityRow = Selectable<BulkImportEntityTable>;

export interface BulkImportTrackerTable {
  id: Generated<number>;
  entity_id: number;
  relation: string;
  stage: number;
  status: string;
  cursor: string | null;
  source_count: Generated<number>;
  fetched_count: Generated<number>;
  imported_count: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type BulkImportTrackerRow = Selectable<BulkImportTrackerTable>;

export interface BulkImportFailureTable {
  id: Generated<number>;
  entity_id: number;
  relation: string;
  step: string;
  exception_message: string;
  exception_class: string;
  correlation_id_value: string | null;
  pipeline_class: string;
  source_url: string | null;
  source_title: string | null;
  created_at: string;
}
export type BulkImportFailureRow = Selectable<BulkImportFailureTable>;

export interface BulkImportSourceIdTable {
  entity_id: number;
  relation: string;
  source_id: string;
  destination_id: number;
}

export interface BulkImportExportTable {
  id: Generated<number>;
  owner_kind: string;
  owner_id: number;
  relation: string;
  status: number;
  user_id: number | null;
  created_at: string;
  updated_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    bulk_imports: BulkImportTable;
    bulk_import_entities: BulkImportEntityTable;
    bulk_import_trackers: BulkImportTrackerTable;
    bulk_import_failures: BulkImportFailureTable;
    bulk_import_source_ids: BulkImportSourceIdTable;
    bulk_import_exports: BulkImportExportTable;
  }
}
