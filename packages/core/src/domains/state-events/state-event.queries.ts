import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { NewResourceStateEventRow } from './state-event.table.js';

/**
 * Records a state change; call it in the transaction that changes the state (issues and
 * merge requests on close, reopen and merge; epics later).
 */
export async function insertStateEvent(trx: Kysely<Database>, values: Omit<NewResourceStateEventRow, 'id'>): Promise<void> {
  await trx.insertInto('resource_state_events').values(values).execute();
}
