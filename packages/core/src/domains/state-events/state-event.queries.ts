import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { NewResourceStateEventRow, ResourceStateEventRow } from './state-event.table.js';

/**
 * Records a state change; call it in the transaction that changes the state (issues and
 * merge requests on close, reopen and merge; epics later).
 */
export async function insertStateEvent(trx: Kysely<Database>, values: Omit<NewResourceStateEventRow, 'id'>): Promise<void> {
  await trx.insertInto('resource_state_events').values(values).execute();
}

/** Which resource's events: exactly one target column. */
export type StateEventTarget = { column: 'issue_id' | 'merge_request_id' | 'epic_id'; id: number };

/** Events of one resource, oldest first (uses the state_events_* indexes). */
export function selectStateEventsOf(db: Kysely<Database>, target: StateEventTarget) {
  return db.selectFrom('resource_state_events').selectAll().where(target.column, '=', target.id).orderBy('id', 'asc');
}

export function selectStateEventById(db: Kysely<Database>, target: StateEventTarget, id: number): Promise<ResourceStateEventRow | undefined> {
  return selectStateEventsOf(db, target).where('id', '=', id).executeTakeFirst();
}
