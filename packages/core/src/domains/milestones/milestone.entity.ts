/** GitLab's `Entities::Milestone`: lists, single milestones, and the `milestone` of issues and merge requests. */
import type { UrlBuilder } from '../../access/context.js';
import type { MilestoneRow } from './milestone.table.js';

/** A project milestone carries `project_id`, a group milestone `group_id` (GitLab exposes only the one that is set). */
export interface MilestoneEntity {
  id: number;
  iid: number;
  project_id?: number;
  group_id?: number;
  title: string;
  description: string | null;
  state: string;
  created_at: string;
  updated_at: string;
  due_date: string | null;
  start_date: string | null;
  expired: boolean;
  web_url: string;
}

/** What an entity needs besides its row: where it lives (for `web_url`) and today's date (for `expired`). */
export interface MilestoneParent {
  /** `groups/<full_path>` for group milestones, `<path_with_namespace>` for project milestones. */
  webPath: string;
  /** `YYYY-MM-DD` from the injected clock. */
  today: string;
}

export function toMilestoneEntity(row: MilestoneRow, parent: MilestoneParent, urls: UrlBuilder): MilestoneEntity {
  const owner = row.project_id !== null ? { project_id: row.project_id } : { group_id: row.group_id! };
  return {
    id: row.id,
    iid: row.iid,
    ...owner,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    due_date: row.due_date,
    start_date: row.start_date,
    // Timebox#expired?: due_date.past?, i.e. before today; no due date never expires
    expired: row.due_date !== null && row.due_date < parent.today,
    web_url: urls.web(`/${parent.webPath}/-/milestones/${row.iid}`),
  };
}
