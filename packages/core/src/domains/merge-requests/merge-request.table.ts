import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface MergeRequestTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: string; // opened | closed | merged | locked
  source_branch: string;
  target_branch: string;
  source_project_id: number;
  author_id: number;
  milestone_id: number | null;
  /** Head commit of the source branch. */
  sha: string;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  draft: Generated<number>;
  squash: Generated<number>;
  should_remove_source_branch: Generated<number>;
  discussion_locked: Generated<number>;
  merged_at: string | null;
  merged_by_id: number | null;
  closed_at: string | null;
  closed_by_id: number | null;
  created_at: string;
  updated_at: string;
  /**
   * GitLab's merge_request_metrics (migration 015): the head pipeline as it last started
   * running or succeeded, with its start and (on success) finish; the end of the first
   * successful deployment to a production-tier environment that shipped the merge request.
   */
  metrics_pipeline_id: number | null;
  latest_build_started_at: string | null;
  latest_build_finished_at: string | null;
  first_deployed_to_production_at: string | null;
  /**
   * GitLab's mergeability state machine (migration 034): `unchecked` after the source or target
   * head moved, `checking` while the queue computes it (the first read of an unchecked merge
   * request starts that), then `can_be_merged` or `cannot_be_merged` (conflicts, or a branch
   * missing); `cannot_be_merged_recheck(ing)` are the same two steps from a conflicting state.
   */
  merge_status: Generated<MergeStatus>;
  /** The last merge or rebase failure, as GitLab words it (migration 039); a push to the source branch clears it. */
  merge_error: Generated<string | null>;
  /** The queue job of a rebase asked for and not finished (GitLab's `rebase_jid`); in progress while that job is pending. */
  rebase_job_id: Generated<number | null>;
}

export type MergeStatus = 'unchecked' | 'checking' | 'can_be_merged' | 'cannot_be_merged' | 'cannot_be_merged_recheck' | 'cannot_be_merged_rechecking';
export type MergeRequestRow = Selectable<MergeRequestTable>;
export type NewMergeRequestRow = Insertable<MergeRequestTable>;
export type MergeRequestUpdate = Updateable<MergeRequestTable>;

/** Assignees and reviewers of merge requests. */
export interface MergeRequestUserTable {
  merge_request_id: number;
  user_id: number;
}

/**
 * A diff version of a merge request (GitLab's MergeRequestDiff, migration 034): the shas when
 * the source head moved, the changed files' count (`real_size`, `1000+` past the limit) and
 * the patch id the queue computes afterwards.
 */
export interface MergeRequestDiffTable {
  id: Generated<number>;
  merge_request_id: number;
  /** `collected`, `overflow` (more files than the limit) or `empty` (no change). */
  state: string;
  base_commit_sha: string | null;
  start_commit_sha: string | null;
  head_commit_sha: string | null;
  real_size: string | null;
  commits_count: Generated<number>;
  patch_id_sha: string | null;
  created_at: string;
}
export type MergeRequestDiffRow = Selectable<MergeRequestDiffTable>;

/** The commits of a diff version, newest first (GitLab's merge_request_diff_commits, migration 039). */
export interface MergeRequestDiffCommitTable {
  merge_request_diff_id: number;
  relative_order: number;
  sha: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    merge_requests: MergeRequestTable;
    merge_request_assignees: MergeRequestUserTable;
    merge_request_reviewers: MergeRequestUserTable;
    merge_request_diffs: MergeRequestDiffTable;
    merge_request_diff_commits: MergeRequestDiffCommitTable;
  }
}
