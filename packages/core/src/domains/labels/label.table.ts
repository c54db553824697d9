import type { Generated, Selectable } from 'kysely';

/**
 * Project and group labels. Work items attach them by title (an unknown title on an issue
 * creates a project label, as GitLab does); the planning domain adds the label API.
 */
export interface LabelTable {
  id: Generated<number>;
  /** Exactly one of project_id / group_id is set. */
  project_id: number | null;
  group_id: number | null;
  title: string;
  color: string; // #RRGGBB or #RGB as given; CSS color names are stored as #RRGGBB
  description: string | null;
  archived: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type LabelRow = Selectable<LabelTable>;

export interface LabelSubscriptionTable {
  id: Generated<number>;
  label_id: number;
  user_id: number;
  created_at: string;
}

/** A label on an issue or merge request. */
export interface LabelLinkTable {
  id: Generated<number>;
  label_id: number;
  target_type: string; // Issue | MergeRequest
  target_id: number;
  created_at: string;
}

/** A label's priority in one project (GitLab's label_priorities; lower sorts first). */
export interface LabelPriorityTable {
  id: Generated<number>;
  project_id: number;
  label_id: number;
  priority: number;
  created_at: string;
  updated_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    labels: LabelTable;
    label_links: LabelLinkTable;
    label_subscriptions: LabelSubscriptionTable;
    label_priorities: LabelPriorityTable;
  }
}
