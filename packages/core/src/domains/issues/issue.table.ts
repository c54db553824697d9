import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface IssueTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: string; // opened | closed
  issue_type: Generated<string>; // issue | incident
  confidential: Generated<number>;
  discussion_locked: Generated<number>;
  author_id: number;
  /** The project's or an ancestor group's milestone (no foreign key: deleting a milestone unsets it). */
  milestone_id: number | null;
  due_date: string | null; // YYYY-MM-DD
  weight: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
}
export type IssueRow = Selectable<IssueTable>;
export type NewIssueRow = Insertable<IssueTable>;
export type IssueUpdate = Updateable<IssueTable>;

export interface IssueAssigneeTable {
  issue_id: number;
  user_id: number;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    issues: IssueTable;
    issue_assignees: IssueAssigneeTable;
  }
}
