/** Turns a page of issue rows into entities with a fixed number of queries, whatever the page size. */
import { countClosingMergeRequests } from './closing-issue.queries.js';
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx, UrlBuilder } from '../../access/context.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import { countVotesOf } from '../award-emoji/index.js';
import { selectLabelsOfTargets } from '../labels/index.js';
import { milestonesByIdFor } from '../milestones/index.js';
import { countUserNotesOf, noteablesInvolving } from '../notes/index.js';
import { mentions } from '../../kernel/mentions.js';
import { toIssueEntity, type IssueEntity } from './issue.entity.js';
import { selectAssigneesOfIssues } from './issue.queries.js';
import type { IssueRow } from './issue.table.js';

/** A user row that is gone (deleted users' issues stay), shown as GitLab's ghost user. */
function ghost(id: number, urls: UrlBuilder): UserBasicEntity {
  return { id, username: 'ghost', name: 'Ghost User', state: 'active', locked: false, avatar_url: null, web_url: urls.web('/ghost') };
}

/**
 * What the caller of `presentIssues` already holds for issues it has just created in this
 * request: such an issue has no notes, votes or notes involving anyone yet, its assignees are
 * the users it was created with and its author is the caller, so none of that is read back.
 */
export interface JustCreated {
  /** The users assigned at creation (rows already read to check them). */
  assignees: readonly UserRow[];
  /** Whether labels were asked for (then they are read: creation may have made some). */
  labelled: boolean;
}

/**
 * Entities for issues, loading projects (unless given), users, assignees, labels, note and
 * vote counts for all of them at once (`created`: a single issue this request made, see JustCreated).
 */
export async function presentIssues(ctx: Ctx, rows: IssueRow[], knownProjects: ProjectRow[] = [], created?: JustCreated): Promise<IssueEntity[]> {
  if (rows.length === 0) return [];
  if (created && (rows.length !== 1 || rows[0]!.author_id !== ctx.actor.user?.id)) throw new Error('presentIssues: `created` describes one issue of the caller');
  const ids = rows.map((r) => r.id);
  const projects = new Map(knownProjects.map((p) => [p.id, p]));
  const missingProjects = [...new Set(rows.map((r) => r.project_id))].filter((id) => !projects.has(id));
  const viewer = ctx.actor.user;
  const none = new Map<number, never>();
  const [projectRows, assignees, labels, notes, votes, milestones, involved, closingMrs] = await Promise.all([
    missingProjects.length ? ctx.db.selectFrom('projects').selectAll().where('id', 'in', missingProjects).execute() : [],
    created ? new Map([[ids[0]!, created.assignees.map((u) => u.id).sort((a, b) => a - b)]]) : selectAssigneesOfIssues(ctx.db, ids),
    created && !created.labelled ? none : selectLabelsOfTargets(ctx.db, 'Issue', ids),
    created ? none : countUserNotesOf(ctx.db, 'Issue', ids),
    created ? none : countVotesOf(ctx.db, 'Issue', ids),
    milestonesByIdFor(ctx, rows.map((r) => r.milestone_id)),
    viewer && !created ? noteablesInvolving(ctx.db, 'Issue', ids, viewer) : new Set<number>(),
    created ? none : countClosingMergeRequests(ctx, ids),
  ]);
  // GitLab's participants: the author, the assignees, who is mentioned or wrote a note.
  const participates = (row: IssueRow) =>
    viewer !== null &&
    (row.author_id === viewer.id ||
      (assignees.get(row.id) ?? []).includes(viewer.id) ||
      involved.has(row.id) ||
      mentions(row.title, viewer.username) ||
      mentions(row.description, viewer.username));
  for (const p of projectRows) projects.set(p.id, p);
  const userIds = new Set<number>();
  for (const r of rows) {
    userIds.add(r.author_id);
    if (r.closed_by_id !== null) userIds.add(r.closed_by_id);
  }
  for (const list of assignees.values()) for (const id of list) userIds.add(id);
  const users = new Map<number, UserRow>(
    (created ? [viewer!, ...created.assignees] : await selectUsersByIds(ctx.db, userIds)).map((u) => [u.id, u]),
  );
  const basic = (id: number) => {
    const u = users.get(id);
    return u ? toUserBasicEntity(u, ctx.urls) : ghost(id, ctx.urls);
  };
  const showWeight = tierAtLeast(ctx.config.tier, 'premium');
  return rows.map((row) =>
    toIssueEntity(
      row,
      {
        project: projects.get(row.project_id)!,
        author: basic(row.author_id),
        closedBy: row.closed_by_id === null ? null : basic(row.closed_by_id),
        // assignees that were deleted as users are dropped by the cascade
        assignees: (assignees.get(row.id) ?? []).filter((id) => users.has(id)).map(basic),
        labels: (labels.get(row.id) ?? []).map((l) => l.title),
        milestone: row.milestone_id === null ? null : (milestones.get(row.milestone_id) ?? null),
        userNotesCount: notes.get(row.id) ?? 0,
        upvotes: votes.get(row.id)?.up ?? 0,
        downvotes: votes.get(row.id)?.down ?? 0,
        mergeRequestsCount: closingMrs.get(row.id) ?? 0,
        showWeight,
        subscribed: participates(row),
      },
      ctx.urls,
    ),
  );
}
