/** SQL conditions shared by milestone lists and the `milestone` filter of issue and merge request lists. */
import { sql, type Expression, type SqlBool } from 'kysely';

/**
 * Timebox.within_timeframe: milestones with at least one date whose (open-ended) range
 * overlaps [from, to]. `containing_date` is the range [d, d].
 */
export function withinTimeframe(table: string, from: string, to: string): Expression<SqlBool> {
  const start = sql.ref(`${table}.start_date`);
  const due = sql.ref(`${table}.due_date`);
  return sql<SqlBool>`((${start} is not null or ${due} is not null) and (${start} is null or ${start} <= ${to}) and (${due} is null or ${due} >= ${from}))`;
}

/**
 * The `milestone` filter of issue and merge request lists, on `column` (e.g. `i.milestone_id`):
 * `None`/`Any` (any case), `Upcoming` (the earliest active milestone due after today in its
 * project or group), `Started` (active and started on or before today), else an exact title.
 */
export function milestoneFilter(column: string, value: string, today: string): Expression<SqlBool> {
  const ref = sql.ref(column);
  const word = value.trim().toLowerCase();
  if (word === 'none') return sql<SqlBool>`${ref} is null`;
  if (word === 'any') return sql<SqlBool>`${ref} is not null`;
  if (value === 'Started') {
    return sql<SqlBool>`${ref} in (select m.id from milestones m where m.state = 'active' and m.start_date is not null and m.start_date <= ${today})`;
  }
  if (value === 'Upcoming') {
    return sql<SqlBool>`${ref} in (
      select m.id from milestones m
      where m.state = 'active' and m.due_date > ${today}
        and not exists (
          select 1 from milestones e
          where e.state = 'active' and e.due_date > ${today} and e.due_date < m.due_date
            and ((m.project_id is not null and e.project_id = m.project_id) or (m.group_id is not null and e.group_id = m.group_id))))`;
  }
  return sql<SqlBool>`${ref} in (select m.id from milestones m where m.title = ${value})`;
}
