import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { StateEventResourceType } from './state-event.entity.js';
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

/**
 * Records that `userId` closed, reopened or merged the resource at `now`. Call it in the
 * transaction that changes the state, and only when the state did change.
 */
export async function recordStateEvent(
  trx: Kysely<Database>,
  resource: { type: StateEventResourceType; id: number },
  state: 'closed' | 'reopened' | 'merged',
  userId: number,
  now: string,
  /** What closed it, when not a person: a commit on the default branch or a merged merge request ("Closes #N"). */
  source: { commit?: string; mergeRequestId?: number } = {},
): Promise<void> {
  await insertStateEvent(trx, {
    user_id: userId,
    issue_id: resource.type === 'Issue' ? resource.id : null,
    merge_request_id: resource.type === 'MergeRequest' ? resource.id : null,
    epic_id: resource.type === 'Epic' ? resource.id : null,
    state,
    source_commit: source.commit ?? null,
    source_merge_request_id: source.mergeRequestId ?? null,
    created_at: now,
  });
}

/** Events of one resource, oldest first (uses the state_events_* indexes). */
export function selectStateEventsOf(db: Kysely<Database>, target: StateEventTarget) {
  return db.selectFrom('resource_state_events').selectAll().where(target.column, '=', target.id).orderBy('id', 'asc');
}

export function selectStateEventById(db: Kysely<Database>, target: StateEventTarget, id: number): Promise<ResourceStateEventRow | undefined> {
  return selectStateEventsOf(db, target).where('id', '=', id).executeTakeFirst();
}
