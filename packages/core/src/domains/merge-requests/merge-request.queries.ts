/** The queries of the merge request tables. Writers take the caller's transaction. */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { MergeRequestRow, MergeRequestUpdate, NewMergeRequestRow } from './merge-request.table.js';

export type MergeRequestUserTableName = 'merge_request_assignees' | 'merge_request_reviewers';

export async function insertMergeRequest(trx: Kysely<Database>, values: NewMergeRequestRow): Promise<MergeRequestRow> {
  return trx.insertInto('merge_requests').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateMergeRequestById(trx: Kysely<Database>, id: number, set: MergeRequestUpdate): Promise<MergeRequestRow> {
  return trx.updateTable('merge_requests').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/**
 * Marks an open merge request with head `sha` merged; undefined when another request
 * merged, closed or moved it first (the conditions make concurrent merges safe).
 */
export async function updateOpenMergeRequestToMerged(trx: Kysely<Database>, id: number, sha: string, set: MergeRequestUpdate): Promise<MergeRequestRow | undefined> {
  return trx
    .updateTable('merge_requests')
    .set({ ...set, state: 'merged' })
    .where('id', '=', id)
    .where('state', '=', 'opened')
    .where('draft', '=', 0)
    .where('sha', '=', sha)
    .returningAll()
    .executeTakeFirst();
}

/** The open merge request from `source` into `target` of a project, other than `exceptId`. */
export async function selectOpenMergeRequestByBranches(
  trx: Kysely<Database>,
  projectId: number,
  source: string,
  target: string,
  exceptId = 0,
): Promise<Pick<MergeRequestRow, 'id' | 'iid'> | undefined> {
  return trx
    .selectFrom('merge_requests')
    .select(['id', 'iid'])
    .where('project_id', '=', projectId)
    .where('source_project_id', '=', projectId)
    .where('source_branch', '=', source)
    .where('target_branch', '=', target)
    .where('state', '=', 'opened')
    .where('id', '!=', exceptId)
    .orderBy('id')
    .executeTakeFirst();
}

/** Replaces the assignees or reviewers of a merge request (they are listed by user id). */
export async function replaceMergeRequestUsers(trx: Kysely<Database>, table: MergeRequestUserTableName, mergeRequestId: number, userIds: number[]) {
  await trx.deleteFrom(table).where('merge_request_id', '=', mergeRequestId).execute();
  if (userIds.length) await trx.insertInto(table).values(userIds.map((user_id) => ({ merge_request_id: mergeRequestId, user_id }))).execute();
}

export async function selectMergeRequestUserIds(db: Kysely<Database>, table: MergeRequestUserTableName, mergeRequestId: number): Promise<number[]> {
  const rows = await db.selectFrom(table).select('user_id').where('merge_request_id', '=', mergeRequestId).orderBy('user_id').execute();
  return rows.map((r) => r.user_id);
}

/**
 * Deletes the merge request row; assignees, reviewers and state events go with it by cascade.
 * Notes, reactions and label links have no foreign key: their domains delete them first.
 */
export async function deleteMergeRequestById(trx: Kysely<Database>, id: number): Promise<void> {
  await trx.deleteFrom('merge_requests').where('id', '=', id).execute();
}

// Batch loads for a page of merge requests.

export async function selectUsersOfMergeRequests(db: Kysely<Database>, table: MergeRequestUserTableName, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom(table).select(['merge_request_id', 'user_id']).where('merge_request_id', 'in', ids).orderBy('user_id').execute();
}
