/**
 * A milestone's merge requests (`GET …/milestones/:milestone_id/merge_requests`): served by the
 * merge-requests domain from the milestone the milestones domain finds.
 */
import type { Ctx } from '../../access/context.js';
import type { Page } from '../../kernel/pagination.js';
import { findMilestone, findMilestoneParent, type MilestoneIssuablesInput, type MilestoneParent, type MilestoneParentKind } from '../milestones/index.js';
import { listMilestoneMergeRequests } from './list-merge-requests.js';
import type { MergeRequestEntity } from './merge-request.entity.js';

function scopeOf(parent: MilestoneParent) {
  return parent.kind === 'project' ? { project: parent.project } : { group: parent.group };
}

/** GET …/milestones/:milestone_id/merge_requests */
export async function listMergeRequestsOfMilestone(ctx: Ctx, kind: MilestoneParentKind, input: MilestoneIssuablesInput): Promise<Page<MergeRequestEntity>> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'read_milestone');
  const milestone = await findMilestone(ctx, parent, input.milestone_id);
  return listMilestoneMergeRequests(ctx, milestone.id, scopeOf(parent), input);
}
