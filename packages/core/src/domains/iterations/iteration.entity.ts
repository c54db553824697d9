import type { UrlBuilder } from '../../access/context.js';
import type { IterationCadenceRow, IterationRow } from './iteration.table.js';

/** GitLab's `state_enum`: the state is computed from the dates and today's date, never stored. */
export const ITERATION_STATE = { upcoming: 1, current: 2, closed: 3 } as const;
export type IterationState = (typeof ITERATION_STATE)[keyof typeof ITERATION_STATE];

export interface IterationEntity {
  id: number;
  iid: number;
  sequence: number;
  group_id: number;
  title: string | null;
  description: string | null;
  /** 1 upcoming, 2 current, 3 closed. */
  state: IterationState;
  created_at: string;
  updated_at: string;
  start_date: string;
  due_date: string;
  web_url: string;
}

export interface IterationCadenceEntity {
  id: number;
  title: string;
  description: string | null;
  start_date: string;
  duration_in_weeks: number | null;
  iterations_in_advance: number | null;
  automatic: boolean;
  active: boolean;
  roll_over: boolean;
  group_id: number;
  created_at: string;
  updated_at: string;
}

/** `today` is `YYYY-MM-DD` (UTC, from the injected clock). */
export function iterationState(row: Pick<IterationRow, 'start_date' | 'due_date'>, today: string): IterationState {
  if (row.start_date > today) return ITERATION_STATE.upcoming;
  if (row.due_date < today) return ITERATION_STATE.closed;
  return ITERATION_STATE.current;
}

/** `groupPath` is the full path of the iteration's own group (it may be an ancestor of the one listed). */
export function toIterationEntity(row: IterationRow, groupPath: string, today: string, urls: UrlBuilder): IterationEntity {
  return {
    id: row.id,
    iid: row.iid,
    sequence: row.sequence,
    group_id: row.group_id,
    title: row.title,
    description: row.description,
    state: iterationState(row, today),
    created_at: row.created_at,
    updated_at: row.updated_at,
    start_date: row.start_date,
    due_date: row.due_date,
    web_url: urls.web(`/groups/${groupPath}/-/iterations/${row.id}`),
  };
}

export function toIterationCadenceEntity(row: IterationCadenceRow): IterationCadenceEntity {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    start_date: row.start_date,
    duration_in_weeks: row.duration_in_weeks,
    iterations_in_advance: row.iterations_in_advance,
    automatic: row.automatic === 1,
    active: row.active === 1,
    roll_over: row.roll_over === 1,
    group_id: row.group_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
