/** Builds merge request entities for a page with one query per relation, never one per row. */
import type { Ctx } from '../../access/context.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import { countVotesOf } from '../award-emoji/index.js';
import { selectLabelsOfTargets } from '../labels/index.js';
import { milestonesByIdFor } from '../milestones/index.js';
import { countUserNotesOf, noteablesInvolving } from '../notes/index.js';
import { mentions } from '../../kernel/mentions.js';
import { approvalStatusesOf } from './approval-status.js';
import { presentPipeline, presentPipelineBasic } from '../ci/index.js';
import { headPipelineOf } from './merge-request-metrics.js';
import { latestDiffsOf, mergeBaseOf, startMergeabilityChecks } from './merge-request-diffs.js';
import { selectBranch } from '../repository/index.js';
import { isAncestor } from './rebase-commits.js';
import type { MergeRequestDiffRow } from './merge-request.table.js';
import {
  toMergeRequestDetailEntity,
  toMergeRequestEntity,
  type MergeRequestDetailEntity,
  type MergeRequestDetails,
  type MergeRequestEntity,
  type MergeRequestRelations,
} from './merge-request.entity.js';
import { selectUsersOfMergeRequests } from './merge-request.queries.js';
import { selectUsersByIds } from '../../access/users.js';
import type { MergeRequestRow } from './merge-request.table.js';

type From = MergeRequestRelations['from'];

function groupBy<T>(rows: T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

async function loadRelations(ctx: Ctx, rows: MergeRequestRow[], projects: Map<number, ProjectRow>, from: From): Promise<MergeRequestRelations[]> {
  const ids = rows.map((r) => r.id);
  const [assignees, reviewers, labels, notes, votes, milestones, approvals, diffs] = await Promise.all([
    selectUsersOfMergeRequests(ctx.db, 'merge_request_assignees', ids),
    selectUsersOfMergeRequests(ctx.db, 'merge_request_reviewers', ids),
    selectLabelsOfTargets(ctx.db, 'MergeRequest', ids),
    countUserNotesOf(ctx.db, 'MergeRequest', ids),
    countVotesOf(ctx.db, 'MergeRequest', ids),
    milestonesByIdFor(ctx, rows.map((r) => r.milestone_id)),
    approvalStatusesOf(ctx, rows),
    latestDiffsOf(ctx.db, ids),
  ]);
  const needRebase = await needingRebase(ctx, rows, projects, diffs);
  const userIds = new Set<number>();
  for (const r of rows) for (const id of [r.author_id, r.merged_by_id, r.closed_by_id]) if (id !== null) userIds.add(id);
  for (const link of [...assignees, ...reviewers]) userIds.add(link.user_id);
  const users = new Map<number, UserBasicEntity>((await selectUsersByIds(ctx.db, userIds)).map((u) => [u.id, toUserBasicEntity(u, ctx.urls)]));
  const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
  const assigneesOf = groupBy(assignees, (a) => a.merge_request_id);
  const reviewersOf = groupBy(reviewers, (a) => a.merge_request_id);
  return rows.map((r) => ({
    project: projects.get(r.project_id)!,
    from,
    author: user(r.author_id),
    mergedBy: user(r.merged_by_id),
    closedBy: user(r.closed_by_id),
    assignees: (assigneesOf.get(r.id) ?? []).map((a) => user(a.user_id)).filter((u): u is UserBasicEntity => u !== null),
    reviewers: (reviewersOf.get(r.id) ?? []).map((a) => user(a.user_id)).filter((u): u is UserBasicEntity => u !== null),
    labels: (labels.get(r.id) ?? []).map((l) => l.title).sort(),
    milestone: r.milestone_id === null ? null : (milestones.get(r.milestone_id) ?? null),
    userNotesCount: notes.get(r.id) ?? 0,
    upvotes: votes.get(r.id)?.up ?? 0,
    downvotes: votes.get(r.id)?.down ?? 0,
    approval: approvals.get(r.id) ?? { approved: true, temporarilyUnapproved: false },
    // No version yet (a merge request from before versions): a source head counts as commits.
    hasCommits: Boolean(r.sha) && (diffs.get(r.id)?.commits_count ?? 1) > 0,
    needRebase: needRebase.has(r.id),
  }));
}

/**
 * GitLab's should_be_rebased? for a page: the open merge requests of `rebase_merge` and `ff`
 * projects whose source lacks the target head. Diff versions follow both branches (a target
 * move that changes the merge base records one), so the source contains the target head
 * exactly when the newest version's base is that head; one query for the heads, and git only
 * for a merge request without a version.
 */
async function needingRebase(ctx: Ctx, rows: MergeRequestRow[], projects: Map<number, ProjectRow>, diffs: Map<number, MergeRequestDiffRow>): Promise<Set<number>> {
  const out = new Set<number>();
  const candidates = rows.filter((r) => r.state === 'opened' && r.sha && (projects.get(r.project_id)?.merge_method ?? 'merge') !== 'merge');
  if (!candidates.length) return out;
  const refs = await ctx.db
    .selectFrom('repository_refs')
    .select(['project_id', 'name', 'commit_sha'])
    .where('kind', '=', 'branch')
    .where((eb) => eb.or(candidates.map((r) => eb.and([eb('project_id', '=', r.project_id), eb('name', '=', r.target_branch)]))))
    .execute();
  const heads = new Map(refs.map((ref) => [`${ref.project_id}\0${ref.name}`, ref.commit_sha]));
  for (const r of candidates) {
    const target = heads.get(`${r.project_id}\0${r.target_branch}`);
    if (!target) continue; // no target: the merge request cannot be merged anyway (a conflict)
    const diff = diffs.get(r.id);
    const contains = diff?.head_commit_sha === r.sha ? diff.base_commit_sha === target : await isAncestor(ctx.git, r.project_id, target, r.sha).catch(() => false);
    if (!contains) out.add(r.id);
  }
  return out;
}

/**
 * GitLab's DetailedMergeStatusService for merge requests outside a page (webhook payloads):
 * their `detailed_merge_status`, read through `ctx.db` (the caller's transaction).
 */
export async function detailedMergeStatusesOf(ctx: Ctx, rows: MergeRequestRow[]): Promise<Map<number, MergeRequestEntity['detailed_merge_status']>> {
  const out = new Map<number, MergeRequestEntity['detailed_merge_status']>();
  if (!rows.length) return out;
  const projects = new Map((await ctx.db.selectFrom('projects').selectAll().where('id', 'in', [...new Set(rows.map((r) => r.project_id))]).execute()).map((p) => [p.id, p]));
  const relations = await loadRelations(ctx, rows, projects, null);
  rows.forEach((r, i) => out.set(r.id, toMergeRequestEntity(r, relations[i]!, ctx.urls).detailed_merge_status));
  return out;
}

/** List entities. `projects` may hold the one project of a project list; others are loaded. */
export async function presentMergeRequests(ctx: Ctx, given: MergeRequestRow[], from: From, known: ProjectRow[] = []): Promise<MergeRequestEntity[]> {
  if (given.length === 0) return [];
  const rows = await startMergeabilityChecks(ctx, given);
  const projects = new Map(known.map((p) => [p.id, p]));
  const missing = [...new Set(rows.map((r) => r.project_id))].filter((id) => !projects.has(id));
  if (missing.length) for (const p of await ctx.db.selectFrom('projects').selectAll().where('id', 'in', missing).execute()) projects.set(p.id, p);
  const relations = await loadRelations(ctx, rows, projects, from);
  return rows.map((r, i) => toMergeRequestEntity(r, relations[i]!, ctx.urls));
}

/**
 * The single merge request shape: whether the caller may merge it, its diff, its CI fields
 * (metrics pipeline and head pipeline) and, for GET, whether it is its author's first
 * contribution.
 */
export async function presentMergeRequest(
  ctx: Ctx,
  given: MergeRequestRow,
  project: ProjectRow,
  /** `rebaseInProgress`: shown as `rebase_in_progress` when given (GET with include_rebase_in_progress). */
  options: { firstContribution?: boolean; rebaseInProgress?: boolean } = {},
): Promise<MergeRequestDetailEntity> {
  const [row] = (await startMergeabilityChecks(ctx, [given])) as [MergeRequestRow];
  const subject = { kind: 'project', project } as const;
  const viewer = ctx.actor.user;
  const [[relations], canMerge, diff, readPipelines, firstContribution, involved] = await Promise.all([
    loadRelations(ctx, [row], new Map([[project.id, project]]), { project: project.id }),
    ctx.actor.user !== null ? can(ctx, 'merge_merge_request', subject) : false,
    diffOf(ctx, row),
    project.jobs_enabled === 1 ? can(ctx, 'read_pipeline', subject) : false,
    options.firstContribution ? isFirstContribution(ctx, row) : undefined,
    viewer ? noteablesInvolving(ctx.db, 'MergeRequest', [row.id], viewer) : new Set<number>(),
  ]);
  // GitLab's participants: the author, assignees, reviewers, who is mentioned or wrote a note.
  const subscribed =
    viewer !== null &&
    (row.author_id === viewer.id ||
      [...relations!.assignees, ...relations!.reviewers].some((u) => u.id === viewer.id) ||
      involved.has(row.id) ||
      mentions(row.title, viewer.username) ||
      mentions(row.description, viewer.username));
  const details: MergeRequestDetails = { canMerge, subscribed, changesCount: diff.changes_count, diffRefs: diff.diff_refs, ci: null, firstContribution };
  if (options.rebaseInProgress !== undefined) details.rebaseInProgress = options.rebaseInProgress;
  if (project.jobs_enabled === 1) {
    const source =
      row.source_project_id === project.id ? project : await ctx.db.selectFrom('projects').selectAll().where('id', '=', row.source_project_id).executeTakeFirst();
    const metrics = row.metrics_pipeline_id === null ? undefined : await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', row.metrics_pipeline_id).executeTakeFirst();
    details.ci = { pipeline: metrics && source ? presentPipelineBasic(ctx, source, metrics) : null };
    if (readPipelines) {
      const head = source ? await headPipelineOf(ctx.db, row) : undefined;
      if (head && source) {
        const { name: _name, ...entity } = await presentPipeline(ctx, source, head);
        details.headPipeline = entity;
      } else details.headPipeline = null;
    }
  }
  return toMergeRequestDetailEntity(row, relations!, ctx.urls, details);
}

/**
 * `diff_refs` and `changes_count` (GitLab's `real_size`) of the newest diff version; a merge
 * request without one (its source branch never existed, or it predates versions) shows the
 * refs git gives now and no count.
 */
async function diffOf(ctx: Ctx, row: MergeRequestRow): Promise<{ diff_refs: MergeRequestDetailEntity['diff_refs']; changes_count: string | null }> {
  const latest: MergeRequestDiffRow | undefined = (await latestDiffsOf(ctx.db, [row.id])).get(row.id);
  if (latest) return { diff_refs: { base_sha: latest.base_commit_sha, head_sha: latest.head_commit_sha, start_sha: latest.start_commit_sha }, changes_count: latest.real_size };
  const head = row.sha || null;
  const start = (await selectBranch(ctx.db, row.project_id, row.target_branch))?.commit_sha || null;
  // A head git does not have (rows written without git, e.g. an import) has no base.
  const base = start && head ? await mergeBaseOf(ctx.git, row.project_id, start, head).catch(() => null) : null;
  return { diff_refs: { base_sha: base, head_sha: head, start_sha: start }, changes_count: null };
}

/**
 * GitLab's MergeRequest#first_contribution?: the author has no merged merge request in the
 * project; for a merged one, none merged before it (what GitLab records when it merges).
 */
async function isFirstContribution(ctx: Ctx, row: MergeRequestRow): Promise<boolean> {
  let q = ctx.db
    .selectFrom('merge_requests')
    .select('id')
    .where('project_id', '=', row.project_id)
    .where('author_id', '=', row.author_id)
    .where('state', '=', 'merged')
    .where('id', '<>', row.id);
  if (row.state === 'merged' && row.merged_at) {
    const mergedAt = row.merged_at;
    q = q.where((eb) => eb.or([eb('merged_at', '<', mergedAt), eb.and([eb('merged_at', '=', mergedAt), eb('id', '<', row.id)])]));
  }
  return (await q.limit(1).executeTakeFirst()) === undefined;
}
