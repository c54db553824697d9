/** GitLab's MergeRequestBasic (lists) and MergeRequest (one merge request) entities. */
import type { UrlBuilder } from '../../access/context.js';
import { taskCompletion, type TaskCompletionStatus } from '../../kernel/task-list.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserBasicEntity } from '../../access/user.entity.js';
import type { PipelineBasicEntity, PipelineEntity } from '../ci/index.js';
import type { MilestoneEntity } from '../milestones/index.js';
import type { MergeRequestRow } from './merge-request.table.js';
import { publicMergeStatus } from './merge-request-diffs.js';

export interface MergeRequestReferences {
  short: string;
  relative: string;
  full: string;
}

export interface MergeRequestEntity {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: string;
  imported: boolean;
  imported_from: string;
  created_at: string;
  updated_at: string;
  merged_by: UserBasicEntity | null;
  merge_user: UserBasicEntity | null;
  merged_at: string | null;
  merge_after: string | null;
  prepared_at: string;
  closed_by: UserBasicEntity | null;
  closed_at: string | null;
  target_branch: string;
  source_branch: string;
  user_notes_count: number;
  upvotes: number;
  downvotes: number;
  author: UserBasicEntity | null;
  assignees: UserBasicEntity[];
  assignee: UserBasicEntity | null;
  reviewers: UserBasicEntity[];
  source_project_id: number;
  target_project_id: number;
  labels: string[];
  draft: boolean;
  work_in_progress: boolean;
  milestone: MilestoneEntity | null;
  merge_when_pipeline_succeeds: boolean;
  merge_status: 'can_be_merged' | 'cannot_be_merged' | 'unchecked' | 'checking' | 'cannot_be_merged_recheck';
  detailed_merge_status:
    | 'mergeable'
    | 'draft_status'
    | 'not_open'
    | 'not_approved'
    | 'checking'
    | 'unchecked'
    | 'approvals_syncing'
    | 'commits_status'
    | 'conflict'
    | 'need_rebase';
  /** The source branch's head; null while the branch does not exist. */
  sha: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  discussion_locked: boolean;
  should_remove_source_branch: boolean;
  force_remove_source_branch: boolean;
  reference: string;
  references: MergeRequestReferences;
  web_url: string;
  time_stats: { time_estimate: number; total_time_spent: number; human_time_estimate: string | null; human_total_time_spent: string | null };
  squash: boolean;
  squash_on_merge: boolean;
  task_completion_status: TaskCompletionStatus;
  has_conflicts: boolean;
  blocking_discussions_resolved: boolean;
  approvals_before_merge: number | null;
}

/** GitLab's `Ci::Pipeline` entity (a merge request's `head_pipeline`): the pipeline without `name`. */
export type HeadPipelineEntity = Omit<PipelineEntity, 'name'>;

/**
 * The single merge request (GET one, create, update, merge) adds these to the list shape.
 * As GitLab's entity: the CI fields only while the project has CI/CD on, `head_pipeline`
 * only for who may read pipelines, `first_contribution` only on GET.
 */
export interface MergeRequestDetailEntity extends MergeRequestEntity {
  subscribed: boolean;
  /** Files the diff changes, as a string; `1000+` beyond GitLab's limit; null for an empty diff. */
  changes_count: string | null;
  latest_build_started_at?: string | null;
  latest_build_finished_at?: string | null;
  first_deployed_to_production_at?: string | null;
  pipeline?: PipelineBasicEntity | null;
  head_pipeline?: HeadPipelineEntity | null;
  diff_refs: { base_sha: string | null; head_sha: string | null; start_sha: string | null };
  merge_error: string | null;
  /** Only when asked for (`include_rebase_in_progress`). */
  rebase_in_progress?: boolean;
  first_contribution?: boolean;
  user: { can_merge: boolean };
}

/** What only the single merge request shows, loaded by presentMergeRequest. */
export interface MergeRequestDetails {
  canMerge: boolean;
  /** The caller takes part (GitLab's subscribed? without explicit subscriptions: a participant). */
  subscribed: boolean;
  changesCount: string | null;
  diffRefs: MergeRequestDetailEntity['diff_refs'];
  /** Null when the project has CI/CD off (the CI fields are absent). */
  ci: { pipeline: PipelineBasicEntity | null } | null;
  /** Undefined when the caller may not read pipelines. */
  headPipeline?: HeadPipelineEntity | null;
  /** Undefined when not asked for (only GET shows it). */
  firstContribution?: boolean;
  /** Undefined when not asked for (GET with `include_rebase_in_progress`). */
  rebaseInProgress?: boolean;
}

/** What a merge request's entity needs beside its row, loaded in batches by the presenter. */
export interface MergeRequestRelations {
  project: ProjectRow;
  /** Where `references.relative` is relative to: the listing project, a group id, or nothing (full path). */
  from: { project: number } | { group: number } | null;
  author: UserBasicEntity | null;
  mergedBy: UserBasicEntity | null;
  closedBy: UserBasicEntity | null;
  assignees: UserBasicEntity[];
  reviewers: UserBasicEntity[];
  labels: string[];
  milestone: MilestoneEntity | null;
  userNotesCount: number;
  upvotes: number;
  downvotes: number;
  /** From the approvals domain: approved per its rules, and approvals reset and not yet synced (GitLab's temporarily_unapproved?). */
  approval: { approved: boolean; temporarilyUnapproved: boolean };
  /** The source branch exists and is ahead of the target (its newest diff version has commits). */
  hasCommits: boolean;
  /** GitLab's should_be_rebased?: the project merges by `rebase_merge` or `ff` and the source lacks the target head. */
  needRebase: boolean;
}

function references(row: MergeRequestRow, rel: MergeRequestRelations): MergeRequestReferences {
  const short = `!${row.iid}`;
  const full = `${rel.project.path_with_namespace}${short}`;
  let relative = full;
  if (rel.from && 'project' in rel.from && rel.from.project === rel.project.id) relative = short;
  // Within a group, a project directly in it is named by its path alone, as GitLab's to_reference(group) does.
  else if (rel.from && 'group' in rel.from && rel.from.group === rel.project.namespace_id) relative = `${rel.project.path}${short}`;
  return { short, relative, full };
}

/**
 * GitLab's DetailedMergeStatusService: `checking` / `unchecked` while mergeability is not
 * known, then the first failing check in EE's order: approvals (`approvals_syncing` while
 * approvals reset by a push are not synced yet), open, draft, commits, then the git checks
 * (conflicts, then `need_rebase` for the `rebase_merge` and `ff` merge methods).
 */
function detailedMergeStatus(row: MergeRequestRow, rel: MergeRequestRelations): MergeRequestEntity['detailed_merge_status'] {
  if (row.merge_status === 'checking' || row.merge_status === 'cannot_be_merged_rechecking') return 'checking';
  if (row.merge_status === 'unchecked' || row.merge_status === 'cannot_be_merged_recheck') return 'unchecked';
  if (!rel.approval.approved) return rel.approval.temporarilyUnapproved ? 'approvals_syncing' : 'not_approved';
  if (row.state !== 'opened') return 'not_open';
  if (row.draft) return 'draft_status';
  if (!rel.hasCommits) return 'commits_status';
  if (row.merge_status === 'cannot_be_merged') return 'conflict';
  if (rel.needRebase) return 'need_rebase';
  return 'mergeable';
}

export function toMergeRequestEntity(row: MergeRequestRow, rel: MergeRequestRelations, urls: UrlBuilder): MergeRequestEntity {
  const refs = references(row, rel);
  const draft = row.draft === 1;
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    imported: false,
    imported_from: 'none',
    created_at: row.created_at,
    updated_at: row.updated_at,
    merged_by: rel.mergedBy,
    merge_user: rel.mergedBy,
    merged_at: row.merged_at,
    merge_after: null,
    prepared_at: row.created_at,
    closed_by: rel.closedBy,
    closed_at: row.closed_at,
    target_branch: row.target_branch,
    source_branch: row.source_branch,
    user_notes_count: rel.userNotesCount,
    upvotes: rel.upvotes,
    downvotes: rel.downvotes,
    author: rel.author,
    assignees: rel.assignees,
    assignee: rel.assignees[0] ?? null,
    reviewers: rel.reviewers,
    source_project_id: row.source_project_id,
    target_project_id: row.project_id,
    labels: rel.labels,
    draft,
    work_in_progress: draft,
    milestone: rel.milestone,
    merge_when_pipeline_succeeds: false,
    merge_status: publicMergeStatus(row.merge_status),
    detailed_merge_status: detailedMergeStatus(row, rel),
    sha: row.sha || null,
    merge_commit_sha: row.merge_commit_sha,
    squash_commit_sha: row.squash_commit_sha,
    discussion_locked: row.discussion_locked === 1,
    should_remove_source_branch: row.should_remove_source_branch === 1,
    force_remove_source_branch: row.should_remove_source_branch === 1,
    reference: refs.relative,
    references: refs,
    web_url: urls.web(`/${rel.project.path_with_namespace}/-/merge_requests/${row.iid}`),
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    squash: row.squash === 1,
    squash_on_merge: row.squash === 1,
    task_completion_status: taskCompletion(row.description),
    has_conflicts: row.merge_status === 'cannot_be_merged', // GitLab's cannot_be_merged?
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
}

export function toMergeRequestDetailEntity(
  row: MergeRequestRow,
  rel: MergeRequestRelations,
  urls: UrlBuilder,
  details: MergeRequestDetails,
): MergeRequestDetailEntity {
  // Keys in GitLab's order; the optional ones only when shown.
  const entity = { ...toMergeRequestEntity(row, rel, urls), subscribed: details.subscribed, changes_count: details.changesCount } as MergeRequestDetailEntity;
  if (details.ci) {
    entity.latest_build_started_at = row.latest_build_started_at;
    entity.latest_build_finished_at = row.latest_build_finished_at;
    entity.first_deployed_to_production_at = row.first_deployed_to_production_at;
    entity.pipeline = details.ci.pipeline;
  }
  if (details.headPipeline !== undefined) entity.head_pipeline = details.headPipeline;
  entity.diff_refs = details.diffRefs;
  entity.merge_error = row.merge_error;
  if (details.rebaseInProgress !== undefined) entity.rebase_in_progress = details.rebaseInProgress;
  if (details.firstContribution !== undefined) entity.first_contribution = details.firstContribution;
  entity.user = { can_merge: details.canMerge };
  return entity;
}
