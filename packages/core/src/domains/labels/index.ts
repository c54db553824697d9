/** Labels on issues and merge requests, by title; the label API itself comes with the planning domain. */
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
  type LabelChanges,
  type LabelScope,
  type LabelTargetType,
} from './label-links.js';
export type { LabelRow } from './label.table.js';
export { labelsRoutes } from './labels.routes.js';
