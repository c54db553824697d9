/** Project and group milestones, and what issues and merge requests need of them. */
export { milestonesRoutes } from './milestones.routes.js';
export { listGroupMilestones, listProjectMilestones } from './list-milestones.js';
export { createMilestone, getMilestone, updateMilestone, deleteMilestone } from './write-milestones.js';
export { listIssuesOfMilestone, listMergeRequestsOfMilestone, listBurndownEvents, BurndownUnsupportedError } from './milestone-issuables.js';
export { milestoneIdToAssign, selectAssignableMilestone, type MilestoneParentKind } from './find-milestone.js';
export { milestoneFilter } from './milestone-filters.js';
export { milestonesByIdFor, presentMilestones } from './present-milestones.js';
export type { MilestoneEntity } from './milestone.entity.js';
export type { BurndownEventEntity } from './milestone-issuables.js';
export type { MilestoneRow } from './milestone.table.js';
export type {
  CreateMilestoneInput,
  ListGroupMilestonesInput,
  ListProjectMilestonesInput,
  MilestoneIssuablesInput,
  MilestoneRefInput,
  UpdateMilestoneInput,
} from './milestone.schema.js';
