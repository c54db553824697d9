import type { Generated, Selectable } from 'kysely';

export interface IterationCadenceTable {
  id: Generated<number>;
  group_id: number;
  title: string;
  description: string | null;
  start_date: string; // YYYY-MM-DD
  duration_in_weeks: number | null;
  iterations_in_advance: number | null;
  automatic: Generated<number>;
  active: Generated<number>;
  roll_over: Generated<number>;
  created_at: string;
  updated_at: string;
}
export type IterationCadenceRow = Selectable<IterationCadenceTable>;

/** State is not stored: upcoming, current or closed follow from the dates and the clock. */
export interface IterationTable {
  id: Generated<number>;
  group_id: number;
  iteration_cadence_id: number;
  iid: number;
  sequence: number;
  title: string | null;
  description: string | null;
  start_date: string;
  due_date: string;
  created_at: string;
  updated_at: string;
}
export type IterationRow = Selectable<IterationTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    iteration_cadences: IterationCadenceTable;
    iterations: IterationTable;
  }
}
