import type { Requester } from '../infrastructure/requester.js';
import { ResourceMilestones, type ListProjectMilestonesParams } from '../templates/resource-milestones.js';

/** Project milestones: `/projects/:id/milestones` (`include_ancestors` adds the project's groups' milestones). */
export class ProjectMilestones extends ResourceMilestones<ListProjectMilestonesParams> {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
