import type { Generated, Insertable, Selectable } from 'kysely';

export interface EpicTable {
  id: Generated<number>;
  group_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: Generated<string>; // opened | closed
  author_id: number;
  parent_id: number | null;
  relative_position: number | null;
  confidential: Generated<number>;
  start_date_fixed: string | null;
  start_date_is_fixed: Generated<number>;
  due_date_fixed: string | null;
  due_date_is_fixed: Generated<number>;
  color: Generated<string>;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
}
export type EpicRow = Selectable<EpicTable>;
export type NewEpicRow = Insertable<EpicTable>;

/** An issue in an epic (GitLab's `epic_issues`): one epic per issue, ordered with the epic's children. */
export interface EpicIssueTable {
  id: Generated<number>;
  epic_id: number;
  issue_id: number;
  relative_position: number | null;
  created_at: string;
  updated_at: string;
}
export type EpicIssueRow = Selectable<EpicIssueTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    epics: EpicTable;
    epic_issues: EpicIssueTable;
  }
}
