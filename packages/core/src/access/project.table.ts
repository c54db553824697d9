import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface ProjectTable {
  id: Generated<number>;
  namespace_id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  name_with_namespace: string;
  description: Generated<string>;
  visibility: string;
  default_branch: Generated<string>;
  creator_id: number | null;
  archived: Generated<number>;
  topics: Generated<string>; // JSON array
  issues_enabled: Generated<number>;
  merge_requests_enabled: Generated<number>;
  jobs_enabled: Generated<number>;
  wiki_enabled: Generated<number>;
  snippets_enabled: Generated<number>;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
  /** Premium+: approvals a merge request needs (GitLab's column; the approval settings show the same). */
  approvals_before_merge: Generated<number>;
  /** GitLab's merge method (migration 039): `merge`, `rebase_merge` (a merge commit, the source rebased first) or `ff` (fast-forward only). */
  merge_method: Generated<MergeMethod>;
}

export type MergeMethod = 'merge' | 'rebase_merge' | 'ff';
export const MERGE_METHODS = ['merge', 'rebase_merge', 'ff'] as const;
export type ProjectRow = Selectable<ProjectTable>;
export type NewProjectRow = Insertable<ProjectTable>;
export type ProjectUpdate = Updateable<ProjectTable>;

/** Old full paths of renamed or moved projects and groups, so lookups follow them. */
export interface RedirectRouteTable {
  id: Generated<number>;
  path_lower: string;
  source_kind: string; // project | namespace
  source_id: number;
  created_at: string;
}

/**
 * Counters GitLab keeps per project instead of counting on each read (migration 027), apart
 * from `projects` so that the writes that move them (every issue opened or closed) leave the
 * project row, which every request in the project looks up, in the read cache. No row: zero.
 */
export interface ProjectCountersTable {
  project_id: number;
  /** Open issues that are not confidential (GitLab's public open issues count), kept by every issue write. */
  open_issues_count: Generated<number>;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../storage/database.js' {
  interface Database {
    projects: ProjectTable;
    project_counters: ProjectCountersTable;
    redirect_routes: RedirectRouteTable;
  }
}
