import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface ReleaseTable {
  id: Generated<number>;
  project_id: number;
  tag_name: string;
  name: string;
  description: string | null;
  author_id: number | null;
  /** The tag's commit when the release was created. */
  sha: string;
  released_at: string;
  created_at: string;
  updated_at: string;
}
export type ReleaseRow = Selectable<ReleaseTable>;
export type NewReleaseRow = Insertable<ReleaseTable>;
export type ReleaseUpdate = Updateable<ReleaseTable>;

export interface ReleaseMilestoneTable {
  id: Generated<number>;
  release_id: number;
  milestone_id: number;
}

export interface ReleaseLinkTable {
  id: Generated<number>;
  release_id: number;
  name: string;
  url: string;
  /** `direct_asset_path` in the API (`filepath` is its deprecated spelling). */
  filepath: string | null;
  link_type: Generated<string>; // other | runbook | image | package
  created_at: string;
  updated_at: string;
}
export type ReleaseLinkRow = Selectable<ReleaseLinkTable>;
export type ReleaseLinkUpdate = Updateable<ReleaseLinkTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    releases: ReleaseTable;
    release_milestones: ReleaseMilestoneTable;
    release_links: ReleaseLinkTable;
  }
}
