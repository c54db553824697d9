/** Group epics and epic links (Premium; multi-level epics Ultimate). */
export { epicsRoutes } from './epics.routes.js';
export { listEpics, getEpic, deleteEpic, getIssueEpic } from './epics.js';
export { createEpic } from './create-epic.js';
export { listEpicStateEvents, getEpicStateEvent } from './epic-state-events.js';
export { updateEpic } from './update-epic.js';
export { listChildEpics, assignChildEpic, createChildEpic, reorderChildEpic, unassignChildEpic } from './epic-links.js';
export { listEpicIssues, assignEpicIssue, reorderEpicIssue, removeEpicIssue } from './epic-issues.js';
export { canReadEpic, findEpicGroup, EPICS_TIER, EPIC_LINKS_TIER } from './find-epic.js';
export { MAX_HIERARCHY_DEPTH, MAX_CHILDREN_COUNT } from './epic-tree.js';
export type { EpicEntity, LinkedEpicEntity } from './epic.entity.js';
export type { EpicIssueEntity, EpicIssueLinkEntity } from './epic-issue.entity.js';
export type {
  ListEpicsInput, CreateEpicInput, UpdateEpicInput, EpicPathInput, EpicLinkPathInput, CreateChildEpicInput, ReorderChildEpicInput,
  ListEpicIssuesInput, AssignEpicIssueInput, EpicIssuePathInput, ReorderEpicIssueInput,
} from './epic.schema.js';
export type { EpicRow, NewEpicRow, EpicIssueRow } from './epic.table.js';
export { epicsGraphql } from './epics.graphql.js';
