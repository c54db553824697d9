import type { Generated, Selectable } from 'kysely';

/** A project's job token settings; a missing row means GitLab's defaults (inbound on, outbound off). */
export interface JobTokenSettingsTable {
  id: Generated<number>;
  project_id: number;
  inbound_enabled: Generated<number>;
  outbound_enabled: Generated<number>;
  updated_at: string;
}
export type JobTokenSettingsRow = Selectable<JobTokenSettingsTable>;

export interface JobTokenProjectLinkTable {
  id: Generated<number>;
  source_project_id: number;
  target_project_id: number;
  added_by_id: number | null;
  created_at: string;
}

export interface JobTokenGroupLinkTable {
  id: Generated<number>;
  source_project_id: number;
  target_group_id: number;
  added_by_id: number | null;
  created_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    ci_job_token_settings: JobTokenSettingsTable;
    ci_job_token_project_links: JobTokenProjectLinkTable;
    ci_job_token_group_links: JobTokenGroupLinkTable;
  }
}
