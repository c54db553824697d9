import type { Generated, Insertable, Selectable } from 'kysely';

/** One close, reopen or merge of an issue, merge request or epic (exactly one target id is set). */
export interface ResourceStateEventTable {
  id: Generated<number>;
  user_id: number | null;
  issue_id: number | null;
  merge_request_id: number | null;
  epic_id: number | null;
  state: string; // opened | closed | reopened | merged | locked
  source_commit: string | null;
  source_merge_request_id: number | null;
  created_at: string;
}
export type ResourceStateEventRow = Selectable<ResourceStateEventTable>;
export type NewResourceStateEventRow = Insertable<ResourceStateEventTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    resource_state_events: ResourceStateEventTable;
  }
}
