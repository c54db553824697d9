import type { Generated, Insertable, Selectable } from 'kysely';

/** Project or group milestones (exactly one of project_id / group_id is set). */
export interface MilestoneTable {
  id: Generated<number>;
  project_id: number | null;
  group_id: number | null;
  iid: number;
  title: string;
  description: string | null;
  state: Generated<string>; // active | closed
  start_date: string | null; // YYYY-MM-DD
  due_date: string | null;
  created_at: string;
  updated_at: string;
}
export type MilestoneRow = Selectable<MilestoneTable>;
export type NewMilestoneRow = Insertable<MilestoneTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    milestones: MilestoneTable;
  }
}
