/**
 * Event payloads as GitLab's data builders write them (Gitlab::DataBuilder::Issuable, Note,
 * Gitlab::HookData::IssueBuilder, MergeRequestBuilder, NoteBuilder and the models' hook_attrs).
 * Fields Forgelet does not track (time tracking, moved/duplicated issues) carry
 * GitLab's values for an item that never had them (0, null, "").
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { UrlBuilder } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import { usersByIds } from '../../access/users.js';
import type { Database } from '../../storage/database.js';
import { selectIssueAssigneeIds, type IssueRow } from '../issues/index.js';
import { selectLabelsByIds, selectLabelsOfTargets, type LabelRow } from '../labels/index.js';
import { selectMergeRequestUserIds, type MergeRequestRow } from '../merge-requests/index.js';
import type { NoteRow, Noteable } from '../notes/index.js';
import { selectCommit } from '../repository/index.js';
import type { SnippetRow } from '../snippets/index.js';

type Json = Record<string, unknown>;
type Db = Kysely<Database>;

const VISIBILITY_LEVEL: Record<string, number> = { private: 0, internal: 10, public: 20 };
const ISSUE_STATE_ID: Record<string, number> = { opened: 1, closed: 2 };
const MR_STATE_ID: Record<string, number> = { opened: 1, closed: 2, merged: 3, locked: 4 };

/** User#hook_attrs: the public email only ("[REDACTED]" otherwise). */
export function userHookAttrs(user: UserRow): Json {
  return { id: user.id, name: user.name, username: user.username, avatar_url: null, email: user.public_email || '[REDACTED]' };
}

/** Project#hook_attrs. */
export async function projectHookAttrs(db: Db, urls: UrlBuilder, project: ProjectRow): Promise<Json> {
  const ns = await db.selectFrom('namespaces').select('name').where('id', '=', project.namespace_id).executeTakeFirst();
  const web = urls.web(`/${project.path_with_namespace}`);
  const ssh = `git@${urls.host().split(':')[0]}:${project.path_with_namespace}.git`;
  return {
    id: project.id,
    name: project.name,
    description: project.description || null,
    web_url: web,
    avatar_url: null,
    git_ssh_url: ssh,
    git_http_url: `${web}.git`,
    namespace: ns?.name ?? '',
    visibility_level: VISIBILITY_LEVEL[project.visibility] ?? 0,
    path_with_namespace: project.path_with_namespace,
    default_branch: project.default_branch,
    ci_config_path: null,
    homepage: web,
    url: ssh,
    ssh_url: ssh,
    http_url: `${web}.git`,
  };
}

/** The deprecated `repository` key: a slice of the project's attributes. */
export function repositoryOf(project: Json): Json {
  return { name: project.name, url: project.url, description: project.description, homepage: project.homepage };
}

/** Label#hook_attrs. */
export function labelHookAttrs(label: LabelRow): Json {
  return {
    id: label.id,
    title: label.title,
    color: label.color,
    project_id: label.project_id,
    created_at: label.created_at,
    updated_at: label.updated_at,
    template: false,
    description: label.description,
    type: label.project_id !== null ? 'ProjectLabel' : 'GroupLabel',
    group_id: label.group_id,
  };
}

const timeTracking = { total_time_spent: 0, time_change: 0, human_total_time_spent: null, human_time_change: null, human_time_estimate: null };

/** IssueBuilder: the issue's safe attributes, then its relations. */
export function issueHookAttrs(urls: UrlBuilder, project: ProjectRow, issue: IssueRow, assigneeIds: number[], labels: LabelRow[]): Json {
  return {
    ...issueAttributes(issue),
    type: issue.issue_type === 'incident' ? 'Incident' : 'Issue',
    url: urls.web(`/${project.path_with_namespace}/-/issues/${issue.iid}`),
    ...timeTracking,
    assignee_ids: assigneeIds,
    assignee_id: assigneeIds[0] ?? null,
    labels: labels.map(labelHookAttrs),
    state: issue.state,
    severity: 'unknown',
    customer_relations_contacts: [],
  };
}

/** IssueBuilder::SAFE_HOOK_ATTRIBUTES (the keys `changes` may name). */
function issueAttributes(issue: IssueRow): Json {
  return {
    author_id: issue.author_id,
    closed_at: issue.closed_at,
    confidential: issue.confidential === 1,
    created_at: issue.created_at,
    description: issue.description,
    discussion_locked: issue.discussion_locked === 1 ? true : null,
    due_date: issue.due_date,
    id: issue.id,
    iid: issue.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    milestone_id: issue.milestone_id,
    moved_to_id: null,
    duplicated_to_id: null,
    project_id: issue.project_id,
    relative_position: null,
    state_id: ISSUE_STATE_ID[issue.state] ?? 1,
    time_estimate: 0,
    title: issue.title,
    updated_at: issue.updated_at,
    updated_by_id: null,
    weight: issue.weight,
    health_status: null,
  };
}

/** MergeRequestBuilder::SAFE_HOOK_ATTRIBUTES. */
function mergeRequestAttributes(mr: MergeRequestRow, assigneeIds: number[]): Json {
  return {
    assignee_id: assigneeIds[0] ?? null,
    author_id: mr.author_id,
    created_at: mr.created_at,
    description: mr.description,
    draft: mr.draft === 1,
    head_pipeline_id: null,
    id: mr.id,
    iid: mr.iid,
    last_edited_at: null,
    last_edited_by_id: null,
    merge_commit_sha: mr.merge_commit_sha,
    merge_error: mr.merge_error,
    merge_params: { force_remove_source_branch: mr.should_remove_source_branch === 1 ? '1' : '0' },
    merge_status: mr.merge_status,
    merge_user_id: mr.merged_by_id,
    merge_when_pipeline_succeeds: false,
    milestone_id: mr.milestone_id,
    source_branch: mr.source_branch,
    source_project_id: mr.source_project_id,
    state_id: MR_STATE_ID[mr.state] ?? 1,
    target_branch: mr.target_branch,
    target_project_id: mr.project_id,
    time_estimate: 0,
    title: mr.title,
    updated_at: mr.updated_at,
    updated_by_id: null,
    prepared_at: mr.created_at,
  };
}

/** Commit#hook_attrs of the project's commit `sha`; null when unknown. */
export async function lastCommitOf(db: Db, urls: UrlBuilder, project: ProjectRow, sha: string | null): Promise<Json | null> {
  if (!sha) return null;
  const commit = await selectCommit(db, project.id, sha);
  if (!commit) return null;
  return {
    id: commit.sha,
    message: commit.message,
    title: commit.title,
    timestamp: commit.committed_date,
    url: urls.web(`/${project.path_with_namespace}/-/commit/${commit.sha}`),
    author: { name: commit.author_name, email: commit.author_email },
  };
}

/** MergeRequestBuilder#build. */
export async function mergeRequestHookAttrs(
  db: Db,
  urls: UrlBuilder,
  project: ProjectRow,
  projectAttrs: Json,
  mr: MergeRequestRow,
  rel: { assigneeIds: number[]; reviewerIds: number[]; labels: LabelRow[]; detailedMergeStatus?: string },
): Promise<Json> {
  return {
    ...mergeRequestAttributes(mr, rel.assigneeIds),
    url: urls.web(`/${project.path_with_namespace}/-/merge_requests/${mr.iid}`),
    source: projectAttrs,
    target: projectAttrs,
    last_commit: await lastCommitOf(db, urls, project, mr.sha),
    work_in_progress: mr.draft === 1,
    ...timeTracking,
    assignee_ids: rel.assigneeIds,
    reviewer_ids: rel.reviewerIds,
    labels: rel.labels.map(labelHookAttrs),
    state: mr.state,
    blocking_discussions_resolved: true,
    first_contribution: false,
    // GitLab's DetailedMergeStatusService, computed by the merge requests (the caller passes it); a guess only where none was given.
    detailed_merge_status: rel.detailedMergeStatus ?? (mr.state === 'opened' ? (mr.draft === 1 ? 'draft_status' : 'mergeable') : 'not_open'),
  };
}

/** `changes`: each safe attribute that differs, `{previous, current}`. */
function diff(before: Json | null, after: Json, keys: string[]): Json {
  const out: Json = {};
  for (const k of keys) {
    const prev = before ? before[k] : null;
    const cur = after[k];
    if (JSON.stringify(prev ?? null) !== JSON.stringify(cur ?? null)) out[k] = { previous: prev ?? null, current: cur ?? null };
  }
  return out;
}

function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && [...a].sort().every((v, i) => v === [...b].sort()[i]);
}

async function usersAttrs(db: Db, ids: number[]): Promise<Json[]> {
  const users = await usersByIds(db, ids);
  return ids.map((id) => users.get(id)).filter((u): u is UserRow => u !== undefined).map(userHookAttrs);
}

export interface IssuePayloadInput {
  by: UserRow;
  project: ProjectRow;
  before: IssueRow | null;
  after: IssueRow;
  action: 'open' | 'update' | 'close' | 'reopen';
  previous?: { labelIds: number[]; assigneeIds: number[] };
}

/** Gitlab::DataBuilder::Issuable for an issue. */
export async function buildIssuePayload(db: Db, urls: UrlBuilder, input: IssuePayloadInput): Promise<Json> {
  const { project, before, after } = input;
  const projectAttrs = await projectHookAttrs(db, urls, project);
  const assigneeIds = await selectIssueAssigneeIds(db, after.id);
  const labels = (await selectLabelsOfTargets(db, 'Issue', [after.id])).get(after.id) ?? [];
  const attrs = issueHookAttrs(urls, project, after, assigneeIds, labels);
  const changes = diff(before ? issueAttributes(before) : null, issueAttributes(after), Object.keys(issueAttributes(after)));
  if (input.previous && !sameIds(input.previous.labelIds, labels.map((l) => l.id))) {
    changes.labels = { previous: (await selectLabelsByIds(db, input.previous.labelIds)).map(labelHookAttrs), current: labels.map(labelHookAttrs) };
  }
  if (input.previous && !sameIds(input.previous.assigneeIds, assigneeIds)) {
    changes.assignees = { previous: await usersAttrs(db, input.previous.assigneeIds), current: await usersAttrs(db, assigneeIds) };
  }
  const data: Json = {
    object_kind: 'issue',
    event_type: after.confidential === 1 ? 'confidential_issue' : 'issue',
    user: userHookAttrs(input.by),
    project: projectAttrs,
    object_attributes: { ...attrs, action: input.action },
    labels: labels.map(labelHookAttrs),
    changes,
    repository: repositoryOf(projectAttrs),
  };
  if (assigneeIds.length) data.assignees = await usersAttrs(db, assigneeIds);
  return data;
}

export interface MergeRequestPayloadInput {
  by: UserRow;
  project: ProjectRow;
  before: MergeRequestRow | null;
  after: MergeRequestRow;
  action: string;
  previous?: { labelIds: number[]; assigneeIds: number[]; reviewerIds: number[] };
  /** The merge request's `detailed_merge_status` (merge requests' detailedMergeStatusesOf). */
  detailedMergeStatus?: string;
}

/** Gitlab::DataBuilder::Issuable for a merge request. */
export async function buildMergeRequestPayload(db: Db, urls: UrlBuilder, input: MergeRequestPayloadInput): Promise<Json> {
  const { project, before, after } = input;
  const projectAttrs = await projectHookAttrs(db, urls, project);
  const assigneeIds = await selectMergeRequestUserIds(db, 'merge_request_assignees', after.id);
  const reviewerIds = await selectMergeRequestUserIds(db, 'merge_request_reviewers', after.id);
  const labels = (await selectLabelsOfTargets(db, 'MergeRequest', [after.id])).get(after.id) ?? [];
  const attrs = await mergeRequestHookAttrs(db, urls, project, projectAttrs, after, { assigneeIds, reviewerIds, labels, detailedMergeStatus: input.detailedMergeStatus });
  const safe = mergeRequestAttributes(after, assigneeIds);
  const changes =
    input.action === 'update' || input.action === 'open' || input.action === 'close' || input.action === 'reopen' || input.action === 'merge'
      ? diff(before ? mergeRequestAttributes(before, input.previous?.assigneeIds ?? assigneeIds) : null, safe, Object.keys(safe))
      : {};
  if (input.previous && !sameIds(input.previous.labelIds, labels.map((l) => l.id))) {
    changes.labels = { previous: (await selectLabelsByIds(db, input.previous.labelIds)).map(labelHookAttrs), current: labels.map(labelHookAttrs) };
  }
  if (input.previous && !sameIds(input.previous.assigneeIds, assigneeIds)) {
    changes.assignees = { previous: await usersAttrs(db, input.previous.assigneeIds), current: await usersAttrs(db, assigneeIds) };
  }
  if (input.previous && !sameIds(input.previous.reviewerIds, reviewerIds)) {
    changes.reviewers = { previous: await usersAttrs(db, input.previous.reviewerIds), current: await usersAttrs(db, reviewerIds) };
  }
  const data: Json = {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: userHookAttrs(input.by),
    project: projectAttrs,
    object_attributes: { ...attrs, action: input.action },
    labels: labels.map(labelHookAttrs),
    changes,
    repository: repositoryOf(projectAttrs),
  };
  if (assigneeIds.length) data.assignees = await usersAttrs(db, assigneeIds);
  if (reviewerIds.length) data.reviewers = await usersAttrs(db, reviewerIds);
  return data;
}

/** Snippet#hook_attrs. */
export function snippetHookAttrs(urls: UrlBuilder, project: ProjectRow, snippet: SnippetRow): Json {
  return {
    id: snippet.id,
    title: snippet.title,
    description: snippet.description,
    content: snippet.content,
    author_id: snippet.author_id,
    project_id: snippet.project_id,
    created_at: snippet.created_at,
    updated_at: snippet.updated_at,
    file_name: snippet.file_name,
    type: 'ProjectSnippet',
    visibility_level: VISIBILITY_LEVEL[snippet.visibility] ?? 0,
    url: urls.web(`/${project.path_with_namespace}/-/snippets/${snippet.id}`),
  };
}

/** Whether a note goes out as a confidential note (internal, or on a confidential issue). */
export async function noteIsConfidential(db: Db, note: NoteRow): Promise<boolean> {
  if (note.internal === 1) return true;
  if (note.noteable_type !== 'Issue') return false;
  const issue = await db.selectFrom('issues').select('confidential').where('id', '=', note.noteable_id).executeTakeFirst();
  return issue?.confidential === 1;
}

/** The URL of a noteable (issue, merge request or snippet) of `project`. */
export function noteableUrl(urls: UrlBuilder, project: ProjectRow, type: string, ref: number): string {
  const segment = type === 'Issue' ? 'issues' : type === 'MergeRequest' ? 'merge_requests' : 'snippets';
  return urls.web(`/${project.path_with_namespace}/-/${segment}/${ref}`);
}

/** Note#hook_attrs (Gitlab::HookData::NoteBuilder); `noteableRef` is the noteable's iid (issues, merge requests) or id (snippets). */
export function noteHookAttrs(urls: UrlBuilder, project: ProjectRow, note: NoteRow, noteableRef: number): Json {
  return {
    attachment: null,
    author_id: note.author_id,
    change_position: null,
    commit_id: null,
    created_at: note.created_at,
    discussion_id: createHash('sha1').update(`Note-${note.id}`).digest('hex'),
    id: note.id,
    line_code: null,
    note: note.body,
    noteable_id: note.noteable_id,
    noteable_type: note.noteable_type,
    original_position: null,
    position: null,
    project_id: note.project_id,
    resolved_at: null,
    resolved_by_id: null,
    resolved_by_push: null,
    st_diff: null,
    system: note.system === 1,
    type: null,
    updated_at: note.updated_at,
    updated_by_id: null,
    description: note.body,
    url: `${noteableUrl(urls, project, note.noteable_type, noteableRef)}#note_${note.id}`,
  };
}

/** A merge request's `detailed_merge_status`, computed by the merge requests for the caller's context. */
export type MergeStatusOf = (mr: MergeRequestRow) => Promise<string | undefined>;

/** The hook attributes of an issue, merge request or snippet of `project`, by type and id. */
export async function noteableHookAttrs(db: Db, urls: UrlBuilder, project: ProjectRow, projectAttrs: Json, type: string, id: number, statusOf?: MergeStatusOf): Promise<Json> {
  if (type === 'Issue') {
    const issue = await db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const labels = (await selectLabelsOfTargets(db, 'Issue', [issue.id])).get(issue.id) ?? [];
    return issueHookAttrs(urls, project, issue, await selectIssueAssigneeIds(db, issue.id), labels);
  }
  if (type === 'MergeRequest') {
    const mr = await db.selectFrom('merge_requests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const labels = (await selectLabelsOfTargets(db, 'MergeRequest', [mr.id])).get(mr.id) ?? [];
    return mergeRequestHookAttrs(db, urls, project, projectAttrs, mr, {
      assigneeIds: await selectMergeRequestUserIds(db, 'merge_request_assignees', mr.id),
      reviewerIds: await selectMergeRequestUserIds(db, 'merge_request_reviewers', mr.id),
      labels,
      detailedMergeStatus: statusOf ? await statusOf(mr) : undefined,
    });
  }
  const snippet = await db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return snippetHookAttrs(urls, project, snippet);
}

/** Gitlab::DataBuilder::Note. */
export async function buildNotePayload(
  db: Db,
  urls: UrlBuilder,
  input: { by: UserRow; note: NoteRow; noteable: Noteable; action: 'create' | 'update'; confidential: boolean; statusOf?: MergeStatusOf },
): Promise<Json> {
  const { note, noteable } = input;
  const project = noteable.project;
  const projectAttrs = await projectHookAttrs(db, urls, project);
  const data: Json = {
    object_kind: 'note',
    event_type: input.confidential ? 'confidential_note' : 'note',
    user: userHookAttrs(input.by),
    project_id: project.id,
    project: projectAttrs,
    object_attributes: { ...noteHookAttrs(urls, project, note, noteable.iid ?? noteable.id), action: input.action },
    repository: repositoryOf(projectAttrs),
  };
  const key = note.noteable_type === 'Issue' ? 'issue' : note.noteable_type === 'MergeRequest' ? 'merge_request' : 'snippet';
  data[key] = await noteableHookAttrs(db, urls, project, projectAttrs, note.noteable_type, note.noteable_id, input.statusOf);
  return data;
}
