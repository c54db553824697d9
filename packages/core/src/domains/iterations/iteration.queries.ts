/** The iteration domain's queries: cadences, iterations and the cadence's scheduling job. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { IterationCadenceRow, IterationCadenceTable, IterationRow, IterationTable } from './iteration.table.js';
import type { Insertable, Updateable } from 'kysely';

export const SCHEDULE_JOB = 'iterations.schedule';

/** At most one pending scheduling job per cadence. */
export const scheduleJobKey = (cadenceId: number) => `${SCHEDULE_JOB}:${cadenceId}`;

/** `YYYY-MM-DD` plus `days`. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function selectCadenceInGroup(db: Kysely<Database>, groupId: number, cadenceId: number): Promise<IterationCadenceRow | undefined> {
  return db.selectFrom('iteration_cadences').selectAll().where('group_id', '=', groupId).where('id', '=', cadenceId).executeTakeFirst();
}

/**
 * Locks the cadence for the rest of the transaction and returns it: a no-op UPDATE takes
 * the row lock on PostgreSQL and the write lock on SQLite, so scheduling runs, manual
 * creations and updates of one cadence never interleave.
 */
export async function lockCadence(trx: Kysely<Database>, cadenceId: number): Promise<IterationCadenceRow | undefined> {
  return trx
    .updateTable('iteration_cadences')
    .set({ active: sql`active` })
    .where('id', '=', cadenceId)
    .returningAll()
    .executeTakeFirst();
}

export function insertCadence(db: Kysely<Database>, row: Insertable<IterationCadenceTable>): Promise<IterationCadenceRow> {
  return db.insertInto('iteration_cadences').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateCadenceById(db: Kysely<Database>, id: number, set: Updateable<IterationCadenceTable>): Promise<IterationCadenceRow> {
  return db.updateTable('iteration_cadences').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCadenceById(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('iterations').where('iteration_cadence_id', '=', id).execute();
  await db.deleteFrom('iteration_cadences').where('id', '=', id).execute();
}

/** A cadence's iterations, earliest first. */
export function selectCadenceIterations(db: Kysely<Database>, cadenceId: number): Promise<IterationRow[]> {
  return db.selectFrom('iterations').selectAll().where('iteration_cadence_id', '=', cadenceId).orderBy('start_date').orderBy('id').execute();
}

export function insertIteration(db: Kysely<Database>, row: Insertable<IterationTable>): Promise<IterationRow> {
  return db.insertInto('iterations').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateIterationDates(db: Kysely<Database>, id: number, startDate: string, dueDate: string, now: string): Promise<void> {
  await db.updateTable('iterations').set({ start_date: startDate, due_date: dueDate, updated_at: now }).where('id', '=', id).execute();
}

/** `sequence` = position by start date within the cadence (1-based), as GitLab keeps it. */
export async function renumberSequences(db: Kysely<Database>, cadenceId: number): Promise<void> {
  const rows = await selectCadenceIterations(db, cadenceId);
  for (const [i, row] of rows.entries()) {
    if (row.sequence !== i + 1) await db.updateTable('iterations').set({ sequence: i + 1 }).where('id', '=', row.id).execute();
  }
}

/**
 * Makes the cadence's pending scheduling job due now (it may be waiting for the next
 * iteration's start), unless a worker holds it. Call before enqueueing, which is ignored
 * while a pending job with the same key exists.
 */
export async function pullScheduleForward(db: Kysely<Database>, cadenceId: number, now: string): Promise<void> {
  await db
    .updateTable('queue_jobs')
    .set({ run_at: now })
    .where('unique_key', '=', scheduleJobKey(cadenceId))
    .where('status', '=', 'pending')
    .where('run_at', '>', now)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
    .execute();
}

/** Drops the pending scheduling job of a deleted cadence (a job a worker holds finds nothing to do). */
export async function deletePendingSchedule(db: Kysely<Database>, cadenceId: number): Promise<void> {
  await db
    .deleteFrom('queue_jobs')
    .where('unique_key', '=', scheduleJobKey(cadenceId))
    .where('status', '=', 'pending')
    .where('lease_owner', 'is', null)
    .execute();
}
