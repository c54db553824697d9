import type { Generated } from 'kysely';

/** An issue a merge request closes once merged into the default branch (GitLab's merge_requests_closing_issues). */
export interface MergeRequestClosingIssueTable {
  id: Generated<number>;
  merge_request_id: number;
  issue_id: number;
  created_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    merge_request_closing_issues: MergeRequestClosingIssueTable;
  }
}
