/** Reads of `merge_request_closing_issues`: the merge requests that close an issue, as the caller may see them. */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { isoDate } from '../../kernel/clock.js';
import { visibleProjectsFilter } from '../../access/visibility.queries.js';
// The table's declaration (merged into storage/database.ts's Database).
import './closing-issue.table.js';

/** The merge requests closing `issueIds` in projects whose merge requests the caller may read (a query to select from). */
function visibleClosingMergeRequests(ctx: Ctx, issueIds: number[]) {
  const today = isoDate(ctx.clock.now());
  return ctx.db
    .selectFrom('merge_request_closing_issues as c')
    .innerJoin('merge_requests as mr', 'mr.id', 'c.merge_request_id')
    .innerJoin('projects as pr', 'pr.id', 'mr.project_id')
    .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
    .where('c.issue_id', 'in', issueIds)
    .where('pr.merge_requests_enabled', '=', 1)
    .where((eb) => visibleProjectsFilter(eb, ctx.actor, today));
}

/** Each issue's `merge_requests_count` (GitLab's MergeRequestsClosingIssues.count_for_issue), one grouped query. */
export async function countClosingMergeRequests(ctx: Ctx, issueIds: number[]): Promise<Map<number, number>> {
  if (!issueIds.length) return new Map();
  const rows = await visibleClosingMergeRequests(ctx, issueIds)
    .select(['c.issue_id', sql<number | string>`count(*)`.as('n')])
    .groupBy('c.issue_id')
    .execute();
  return new Map(rows.map((r) => [r.issue_id, Number(r.n)]));
}

/** The merge requests closing one issue, oldest first, for a page. */
export function closingMergeRequestsQuery(ctx: Ctx, issueId: number) {
  return visibleClosingMergeRequests(ctx, [issueId]).selectAll('mr').orderBy('mr.id', 'asc');
}
