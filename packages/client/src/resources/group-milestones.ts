import type { Requester } from '../infrastructure/requester.js';
import { ResourceMilestones, type ListGroupMilestonesParams } from '../templates/resource-milestones.js';

/** Group milestones: `/groups/:id/milestones` (`include_ancestors`, `include_descendants`). */
export class GroupMilestones extends ResourceMilestones<ListGroupMilestonesParams> {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
