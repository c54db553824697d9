/**
 * An epic's dates as GitLab's `Epics::UpdateDatesService` sources them: an epic whose start is
 * not fixed starts with the earliest of its issues' milestones and its child epics (their own
 * start, fixed or inherited); its due date is the latest of theirs. Forgelet computes them when
 * presenting, from the tree as it is, instead of keeping copies up to date.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { selectMilestoneDatesOfEpics } from './epic-issue.queries.js';
import { selectDescendants } from './epic.queries.js';
import type { EpicRow } from './epic.table.js';

/** One side (start or due) of an epic's dates. */
export interface DateSide {
  /** The date in effect: the fixed one when fixed, else the inherited one. */
  date: string | null;
  /** The earliest start (latest due) of the issues' milestones and the child epics. */
  inherited: string | null;
  /** `…_from_milestones` (deprecated): the date in effect, or when fixed the milestone that would source it. */
  fromMilestones: string | null;
}

export interface EpicDates {
  start: DateSide;
  due: DateSide;
}

type Pick2 = (a: string, b: string) => string;
const earliest: Pick2 = (a, b) => (a <= b ? a : b);
const latest: Pick2 = (a, b) => (a >= b ? a : b);

function combine(pick: Pick2, values: (string | null)[]): string | null {
  return values.reduce<string | null>((acc, v) => (v === null ? acc : acc === null ? v : pick(acc, v)), null);
}

/** The dates of `rows`, with a fixed number of queries (two) however deep their trees. */
export async function epicDatesOf(db: Kysely<Database>, rows: readonly EpicRow[]): Promise<Map<number, EpicDates>> {
  const descendants = await selectDescendants(db, rows.map((r) => r.id));
  const epics = new Map<number, EpicRow>([...descendants, ...rows].map((e) => [e.id, e]));
  const milestones = await selectMilestoneDatesOfEpics(db, [...epics.keys()]);
  const children = new Map<number, number[]>();
  for (const e of epics.values()) if (e.parent_id !== null && epics.has(e.parent_id)) children.set(e.parent_id, [...(children.get(e.parent_id) ?? []), e.id]);

  const memo = new Map<number, EpicDates>();
  const datesOf = (id: number, path: ReadonlySet<number>): EpicDates => {
    const known = memo.get(id);
    if (known) return known;
    const epic = epics.get(id)!;
    const kids = (children.get(id) ?? []).filter((c) => !path.has(c)).map((c) => datesOf(c, new Set([...path, c])));
    const fromIssues = milestones.get(id) ?? { start: null, due: null };
    const side = (fixed: boolean, fixedDate: string | null, milestone: string | null, childDates: (string | null)[], pick: Pick2): DateSide => {
      const inherited = combine(pick, [milestone, ...childDates]);
      // GitLab keeps the source (a milestone, else a child epic); ties go to the milestone.
      const sourcedByMilestone = milestone !== null && inherited === milestone;
      return {
        date: fixed ? fixedDate : inherited,
        inherited,
        fromMilestones: fixed ? (sourcedByMilestone ? milestone : null) : inherited,
      };
    };
    const dates = {
      start: side(epic.start_date_is_fixed === 1, epic.start_date_fixed, fromIssues.start, kids.map((k) => k.start.date), earliest),
      due: side(epic.due_date_is_fixed === 1, epic.due_date_fixed, fromIssues.due, kids.map((k) => k.due.date), latest),
    };
    memo.set(id, dates);
    return dates;
  };
  return new Map(rows.map((r) => [r.id, datesOf(r.id, new Set([r.id]))]));
}
