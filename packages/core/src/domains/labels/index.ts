/** Labels: on issues and merge requests by title (label-links), and the group and project label API. */
export {
  DEFAULT_LABEL_COLOR,
  applyLabelChanges,
  deleteTargetLabelLinks,
  findOrCreateLabels,
  labelChangesOf,
  labelScopeOf,
  normalizeLabelTitles,
  replaceTargetLabels,
  selectAvailableLabelsByTitle,
  selectLabelsOfTargets,
  selectTargetLabelIds,
  selectLabelsByIds,
  type LabelChanges,
  type LabelScope,
  type LabelTargetType,
} from './label-links.js';
export type { LabelRow } from './label.table.js';
export { labelsRoutes } from './labels.routes.js';
export { listGroupLabels, listProjectLabels, getGroupLabel, getProjectLabel } from './labels.js';
export { createLabel, updateLabel, deleteLabel, setLabelSubscription } from './write-labels.js';
export { parseColor, textColorFor } from './label-format.js';
export type { LabelEntity, ProjectLabelEntity } from './label.entity.js';
export type { LabelParentKind } from './find-label.js';
export type {
  CreateLabelInput,
  CreateProjectLabelInput,
  GetGroupLabelInput,
  GetProjectLabelInput,
  LabelChangesInput,
  ListGroupLabelsInput,
  ListProjectLabelsInput,
  UpdateLabelByNameInput,
  UpdateLabelInput,
} from './label.schema.js';
// for other domains
export { renderDescription } from './label-format.js';
export { labelPriorityKey } from './label.queries.js';
/** GraphQL: Label, Project.labels/label, Group.labels/label; a project's label by title for issues and merge requests. */
export { labelsGraphql, projectLabelByTitle } from './labels.graphql.js';
