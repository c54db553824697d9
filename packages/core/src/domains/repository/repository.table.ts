import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** A recorded commit. Forgelet keeps no trees per commit, only the latest files per ref. */
export interface RepositoryCommitTable {
  id: Generated<number>;
  project_id: number;
  sha: string;
  parent_ids: Generated<string>; // JSON array of shas, first parent first
  title: string;
  message: string;
  author_name: string;
  author_email: string;
  /** UTC, whole seconds as git keeps them; the author's offset in `authored_tz`. */
  authored_date: string;
  /** `+HH:MM`; null for rows indexed before the offsets were kept (shown as `+00:00`). */
  authored_tz: string | null;
  committer_name: string;
  committer_email: string;
  committed_date: string;
  committed_tz: string | null;
  user_id: number | null;
  created_at: string;
}
export type RepositoryCommitRow = Selectable<RepositoryCommitTable>;
export type NewRepositoryCommitRow = Insertable<RepositoryCommitTable>;

/** Parent edges of commits, for ancestry walks in SQL (recursive CTE). */
export interface RepositoryCommitParentTable {
  id: Generated<number>;
  commit_id: number;
  parent_sha: string;
  position: number;
}

/** One path a commit changed, with its line counts (migration 006-repository-changes). */
export interface RepositoryCommitChangeTable {
  id: Generated<number>;
  commit_id: number;
  path: string;
  previous_path: string | null;
  change: CommitChangeKind;
  additions: Generated<number>;
  deletions: Generated<number>;
}
export type CommitChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'mode';
export type RepositoryCommitChangeRow = Selectable<RepositoryCommitChangeTable>;

/** Branches and tags. */
export interface RepositoryRefTable {
  id: Generated<number>;
  project_id: number;
  kind: RefKind;
  name: string;
  commit_sha: string;
  /** Annotated tags only. */
  message: string | null;
  tagger_name: string | null;
  tagger_email: string | null;
  created_at: string;
  updated_at: string;
}
export type RefKind = 'branch' | 'tag';
export type RepositoryRefRow = Selectable<RepositoryRefTable>;
export type RepositoryRefUpdate = Updateable<RepositoryRefTable>;

/** File contents, content-addressed per project (git blob ids), shared by every ref holding them. */
export interface RepositoryBlobTable {
  id: Generated<number>;
  project_id: number;
  sha: string;
  size: number;
  content: string; // base64
}

/** The latest version of each file on a ref. */
export interface RepositoryFileTable {
  id: Generated<number>;
  ref_id: number;
  path: string;
  blob_sha: string;
  last_commit_sha: string;
  executable: Generated<number>;
}
export type RepositoryFileRow = Selectable<RepositoryFileTable>;

export interface ProtectedBranchTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  allow_force_push: Generated<number>;
  code_owner_approval_required: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type ProtectedBranchRow = Selectable<ProtectedBranchTable>;

export interface ProtectedBranchAccessLevelTable {
  id: Generated<number>;
  protected_branch_id: number;
  action: 'push' | 'merge' | 'unprotect';
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}
export type ProtectedBranchAccessLevelRow = Selectable<ProtectedBranchAccessLevelTable>;

export interface ProtectedTagTable {
  id: Generated<number>;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
}
export type ProtectedTagRow = Selectable<ProtectedTagTable>;

export interface ProtectedTagCreateAccessLevelTable {
  id: Generated<number>;
  protected_tag_id: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}
export type ProtectedTagCreateAccessLevelRow = Selectable<ProtectedTagCreateAccessLevelTable>;

/** Projects whose repository tables predate git storage, to replay into git at start (migration 028). */
export interface RepositoryReplayTable {
  project_id: number;
  created_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    repository_commits: RepositoryCommitTable;
    repository_commit_parents: RepositoryCommitParentTable;
    repository_commit_changes: RepositoryCommitChangeTable;
    repository_refs: RepositoryRefTable;
    repository_blobs: RepositoryBlobTable;
    repository_files: RepositoryFileTable;
    repository_replays: RepositoryReplayTable;
    protected_branches: ProtectedBranchTable;
    protected_branch_access_levels: ProtectedBranchAccessLevelTable;
    protected_tags: ProtectedTagTable;
    protected_tag_create_access_levels: ProtectedTagCreateAccessLevelTable;
  }
}
