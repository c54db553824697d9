/** Builds merge request entities for a page with one query per relation, never one per row. */
import type { Ctx } from '../../kernel/context.js';
import { can } from '../../kernel/policy.js';
import type { ProjectRow } from '../accounts/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../accounts/user.entity.js';
import { countVotesOf } from '../award-emoji/index.js';
import { selectLabelsOfTargets } from '../labels/index.js';
import { milestonesByIdFor } from '../milestones/index.js';
import { countUserNotesOf } from '../notes/index.js';
import { approvalStatusesOf } from '../approvals/merge-status.js';
import {
  toMergeRequestDetailEntity,
  toMergeRequestEntity,
  type MergeRequestDetailEntity,
  type MergeRequestEntity,
  type MergeRequestRelations,
} from './merge-request.entity.js';
import { selectUsersByIds, selectUsersOfMergeRequests } from './merge-request.queries.js';
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
  const [assignees, reviewers, labels, notes, votes, milestones, approvals] = await Promise.all([
    selectUsersOfMergeRequests(ctx.db, 'merge_request_assignees', ids),
    selectUsersOfMergeRequests(ctx.db, 'merge_request_reviewers', ids),
    selectLabelsOfTargets(ctx.db, 'MergeRequest', ids),
    countUserNotesOf(ctx.db, 'MergeRequest', ids),
    countVotesOf(ctx.db, 'MergeRequest', ids),
    milestonesByIdFor(ctx, rows.map((r) => r.milestone_id)),
    approvalStatusesOf(ctx, rows),
  ]);
  const userIds = new Set<number>();
  for (const r of rows) for (const id of [r.author_id, r.merged_by_id, r.closed_by_id]) if (id !== null) userIds.add(id);
  for (const link of [...assignees, ...reviewers]) userIds.add(link.user_id);
  const users = new Map<number, UserBasicEntity>((await selectUsersByIds(ctx.db, [...userIds])).map((u) => [u.id, toUserBasicEntity(u, ctx.urls)]));
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
    approval: approvals.get(r.id) ?? { approved: true, sync: null },
  }));
}

/** List entities. `projects` may hold the one project of a project list; others are loaded. */
export async function presentMergeRequests(ctx: Ctx, rows: MergeRequestRow[], from: From, known: ProjectRow[] = []): Promise<MergeRequestEntity[]> {
  if (rows.length === 0) return [];
  const projects = new Map(known.map((p) => [p.id, p]));
  const missing = [...new Set(rows.map((r) => r.project_id))].filter((id) => !projects.has(id));
  if (missing.length) for (const p of await ctx.db.selectFrom('projects').selectAll().where('id', 'in', missing).execute()) projects.set(p.id, p);
  const relations = await loadRelations(ctx, rows, projects, from);
  return rows.map((r, i) => toMergeRequestEntity(r, relations[i]!, ctx.urls));
}

/** The single merge request shape, with whether the caller may merge it. */
export async function presentMergeRequest(ctx: Ctx, row: MergeRequestRow, project: ProjectRow): Promise<MergeRequestDetailEntity> {
  const [relations] = await loadRelations(ctx, [row], new Map([[project.id, project]]), { project: project.id });
  const canMerge = ctx.actor.user !== null && (await can(ctx, 'merge_merge_request', { kind: 'project', project }));
  return toMergeRequestDetailEntity(row, relations!, ctx.urls, { canMerge });
}
