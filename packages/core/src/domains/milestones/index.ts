/** Project and group milestones, and what issues and merge requests need of them (a milestone's own lists of them live in those domains). */
export { milestonesRoutes } from './milestones.routes.js';
export { listGroupMilestones, listProjectMilestones } from './list-milestones.js';
export { createMilestone, getMilestone, updateMilestone, deleteMilestone } from './write-milestones.js';
export { findMilestone, findMilestoneParent, milestoneIdToAssign, selectAssignableMilestone, type MilestoneParent, type MilestoneParentKind } from './find-milestone.js';
export { MilestoneIssuablesInput, MilestoneRefInput } from './milestone.schema.js';
export { milestoneFilter } from './milestone-filters.js';
export { milestonesByIdFor, presentMilestones } from './present-milestones.js';
export type { MilestoneEntity } from './milestone.entity.js';
export type { MilestoneRow } from './milestone.table.js';
export { registerMilestoneHooks, type MilestoneHooks, type MilestoneChange } from './milestone-hooks.js';
export type {
  CreateMilestoneInput,
  ListGroupMilestonesInput,
  ListProjectMilestonesInput,
  UpdateMilestoneInput,
} from './milestone.schema.js';
/** GraphQL: Milestone, Project.milestones, Group.milestones. */
export { milestonesGraphql } from './milestones.graphql.js';
