import type { Kysely } from 'kysely';
import { selectIssueMilestoneDates } from '../issues/index.js';
import type { Database } from '../../storage/database.js';
import type { EpicIssueRow } from './epic.table.js';

/** The association `id` when it belongs to `epicId`. */
export function selectEpicIssueOfEpic(db: Kysely<Database>, epicId: number, id: number): Promise<EpicIssueRow | undefined> {
  return db.selectFrom('epic_issues').selectAll().where('id', '=', id).where('epic_id', '=', epicId).executeTakeFirst();
}

/** The association of an issue: an issue is in at most one epic. */
export function selectEpicIssueByIssueId(db: Kysely<Database>, issueId: number): Promise<EpicIssueRow | undefined> {
  return db.selectFrom('epic_issues').selectAll().where('issue_id', '=', issueId).executeTakeFirst();
}

/** Puts an issue in an epic at `position`, moving it (the same association) when it is in another. */
export function upsertEpicIssue(trx: Kysely<Database>, values: { epic_id: number; issue_id: number; relative_position: number; now: string }): Promise<EpicIssueRow> {
  const { now, ...row } = values;
  return trx
    .insertInto('epic_issues')
    .values({ ...row, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('issue_id').doUpdateSet({ epic_id: row.epic_id, relative_position: row.relative_position, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteEpicIssueById(trx: Kysely<Database>, id: number): Promise<void> {
  await trx.deleteFrom('epic_issues').where('id', '=', id).execute();
}

/** Ids of epics (among `ids`) holding at least one issue. */
export async function selectIdsWithIssues(db: Kysely<Database>, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('epic_issues').select('epic_id').distinct().where('epic_id', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.epic_id));
}

/** For each of the epics `ids` with issues in milestones: the earliest milestone start and the latest milestone due date. */
export async function selectMilestoneDatesOfEpics(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, { start: string | null; due: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('epic_issues as ei')
    .innerJoin(selectIssueMilestoneDates(db).as('imd'), 'imd.issue_id', 'ei.issue_id')
    .select((eb) => ['ei.epic_id', eb.fn.min('imd.start_date').as('start'), eb.fn.max('imd.due_date').as('due')])
    .where('ei.epic_id', 'in', [...ids])
    .groupBy('ei.epic_id')
    .execute();
  return new Map(rows.map((r) => [r.epic_id, { start: r.start, due: r.due }]));
}
