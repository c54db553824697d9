import { renderDescription, textColorFor } from './label-format.js';
import type { LabelRow } from './label.table.js';

/** GitLab's GroupLabel entity. The counts are present on single labels and on lists with `with_counts=true`. */
export interface LabelEntity {
  id: number;
  name: string;
  color: string;
  text_color: string;
  description: string | null;
  description_html: string | null;
  open_issues_count?: number;
  closed_issues_count?: number;
  open_merge_requests_count?: number;
  subscribed: boolean;
  archived: boolean;
}

/** GitLab's ProjectLabel entity: a project's own or an ancestor group's label, seen from the project. */
export interface ProjectLabelEntity extends LabelEntity {
  /** The label's priority in this project; null when it has none. */
  priority: number | null;
  is_project_label: boolean;
}

export interface LabelCounts {
  open_issues_count: number;
  closed_issues_count: number;
  open_merge_requests_count: number;
}

export const NO_COUNTS: LabelCounts = { open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 };

export function toLabelEntity(
  row: LabelRow,
  extra: { subscribed: boolean; counts?: LabelCounts; asProject: boolean; priority?: number | null },
): LabelEntity | ProjectLabelEntity {
  const entity: LabelEntity = {
    id: row.id,
    name: row.title,
    color: row.color,
    text_color: textColorFor(row.color),
    description: row.description,
    description_html: renderDescription(row.description),
    ...extra.counts,
    subscribed: extra.subscribed,
    archived: Boolean(row.archived),
  };
  if (!extra.asProject) return entity;
  return { ...entity, priority: extra.priority ?? null, is_project_label: row.project_id !== null };
}
