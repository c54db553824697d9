/**
 * A milestone's issues and burndown events (`GET …/milestones/:milestone_id/issues` and
 * `…/burndown_events`): served by the issues domain, which knows issues, from the milestone the
 * milestones domain finds.
 */
import type { Ctx } from '../../access/context.js';
import { DomainError, type ErrorBody } from '../../kernel/errors.js';
import type { Page } from '../../kernel/pagination.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { findMilestone, findMilestoneParent, type MilestoneIssuablesInput, type MilestoneParentKind, type MilestoneRefInput } from '../milestones/index.js';
import type { IssueEntity } from './issue.entity.js';
import { listMilestoneIssues, selectMilestoneIssues } from './list-issues.js';

/** GET …/milestones/:milestone_id/issues: a group milestone's issues exclude subgroups' projects. */
export async function listIssuesOfMilestone(ctx: Ctx, kind: MilestoneParentKind, input: MilestoneIssuablesInput): Promise<Page<IssueEntity>> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'read_milestone');
  const milestone = await findMilestone(ctx, parent, input.milestone_id);
  const scope = parent.kind === 'project' ? { project: parent.project } : { group: parent.group, subgroups: false };
  return listMilestoneIssues(ctx, milestone.id, scope, input);
}

/** One point of a burndown chart (GitLab's Burndown#build_burndown_event). */
export interface BurndownEventEntity {
  created_at: string;
  weight: number | null;
  action: 'created' | 'closed' | 'reopened';
}

/** 405 `{"message":"Milestone does not support burndown chart"}`: GitLab's answer below Premium. */
export class BurndownUnsupportedError extends DomainError {
  readonly code = 'method_not_allowed';
  readonly body: ErrorBody = { message: 'Milestone does not support burndown chart' };
  constructor() {
    super('Milestone does not support burndown chart');
  }
}

const endOfDay = (date: string) => `${date}T23:59:59.999Z`;

/**
 * GET …/milestones/:milestone_id/burndown_events (Premium and Ultimate). As GitLab's
 * Burndown: nothing unless the milestone has both dates; the issues visible to the caller
 * (a group milestone's include subgroups, as Milestone#issues_visible_to_user) created by the
 * end date (the due date, or today if that is earlier), each with a `created` event, then
 * its close and reopen events up to that day (a repeated action is skipped), and a closed
 * issue without a close event counts as closed at its closed_at.
 */
export async function listBurndownEvents(ctx: Ctx, kind: MilestoneParentKind, input: MilestoneRefInput): Promise<BurndownEventEntity[]> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'read_milestone');
  const milestone = await findMilestone(ctx, parent, input.milestone_id);
  if (!tierAtLeast(ctx.config.tier, 'premium')) throw new BurndownUnsupportedError();
  if (!milestone.start_date || !milestone.due_date) return [];
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const end = endOfDay(milestone.due_date < today ? milestone.due_date : today);
  const scope = parent.kind === 'project' ? { project: parent.project } : { group: parent.group, subgroups: true };
  const issues = (await selectMilestoneIssues(ctx, milestone.id, scope)).filter((i) => i.created_at <= end);
  if (issues.length === 0) return [];
  const events = await ctx.db
    .selectFrom('resource_state_events')
    .select(['issue_id', 'state', 'created_at'])
    .where('issue_id', 'in', issues.map((i) => i.id))
    .where('state', 'in', ['closed', 'reopened'])
    .where('created_at', '<=', end)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const byIssue = new Map<number, typeof events>();
  for (const e of events) {
    const list = byIssue.get(e.issue_id!);
    if (list) list.push(e);
    else byIssue.set(e.issue_id!, [e]);
  }
  const out: BurndownEventEntity[] = [];
  for (const issue of issues) {
    out.push({ created_at: issue.created_at, weight: issue.weight, action: 'created' });
    let previous: string | null = null;
    let closedEvent = false;
    for (const e of byIssue.get(issue.id) ?? []) {
      if (e.state === previous) continue;
      previous = e.state;
      if (e.state === 'closed') closedEvent = true;
      out.push({ created_at: e.created_at, weight: issue.weight, action: e.state as 'closed' | 'reopened' });
    }
    if (issue.state === 'closed' && !closedEvent) {
      out.push({ created_at: issue.closed_at ?? `${milestone.start_date}T00:00:00.000Z`, weight: issue.weight, action: 'closed' });
    }
  }
  return out;
}
