/** The queries of the merge request tables. Writers take the caller's transaction. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { UserRow } from '../accounts/user.table.js';
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

/** The head recorded by the newest merge request from a source branch, if any. */
export async function selectSourceBranchHead(trx: Kysely<Database>, projectId: number, branch: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('merge_requests')
    .select('sha')
    .where('source_project_id', '=', projectId)
    .where('source_branch', '=', branch)
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row?.sha;
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

/** Deletes a merge request and what points at it without a foreign key (labels, notes, reactions). */
export async function deleteMergeRequestById(trx: Kysely<Database>, id: number): Promise<void> {
  const noteIds = trx.selectFrom('notes').select('id').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', id);
  await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'Note').where('awardable_id', 'in', noteIds).execute();
  await trx.deleteFrom('award_emoji').where('awardable_type', '=', 'MergeRequest').where('awardable_id', '=', id).execute();
  await trx.deleteFrom('notes').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', id).execute();
  await trx.deleteFrom('label_links').where('target_type', '=', 'MergeRequest').where('target_id', '=', id).execute();
  await trx.deleteFrom('merge_requests').where('id', '=', id).execute();
}

// Batch loads for a page of merge requests.

export async function selectUsersByIds(db: Kysely<Database>, ids: number[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
}

export async function selectUsersOfMergeRequests(db: Kysely<Database>, table: MergeRequestUserTableName, ids: number[]) {
  if (ids.length === 0) return [];
  return db.selectFrom(table).select(['merge_request_id', 'user_id']).where('merge_request_id', 'in', ids).orderBy('user_id').execute();
}

export async function selectLabelTitlesOfMergeRequests(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(['ll.target_id', 'l.title'])
    .where('ll.target_type', '=', 'MergeRequest')
    .where('ll.target_id', 'in', ids)
    .execute();
}

/** Non-system notes per merge request. */
export async function countUserNotes(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('notes')
    .select(['noteable_id', sql<number>`count(*)`.as('n')])
    .where('noteable_type', '=', 'MergeRequest')
    .where('noteable_id', 'in', ids)
    .where('system', '=', 0)
    .groupBy('noteable_id')
    .execute();
}

/** thumbsup / thumbsdown reactions per merge request. */
export async function countVotes(db: Kysely<Database>, ids: number[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('award_emoji')
    .select(['awardable_id', 'name', sql<number>`count(*)`.as('n')])
    .where('awardable_type', '=', 'MergeRequest')
    .where('awardable_id', 'in', ids)
    .where('name', 'in', ['thumbsup', 'thumbsdown'])
    .groupBy(['awardable_id', 'name'])
    .execute();
}
