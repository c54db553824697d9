import { sql, type Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { IssueRow, IssueUpdate, NewIssueRow } from './issue.table.js';

export async function insertIssue(trx: Kysely<Database>, values: NewIssueRow): Promise<IssueRow> {
  return trx.insertInto('issues').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function selectIssueById(db: Kysely<Database>, id: number): Promise<IssueRow> {
  return db.selectFrom('issues').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function updateIssueById(trx: Kysely<Database>, id: number, values: IssueUpdate): Promise<void> {
  await trx.updateTable('issues').set(values).where('id', '=', id).execute();
}

/** Closes an open issue; false when it was not open (nothing changed). */
export async function closeIssueById(trx: Kysely<Database>, id: number, userId: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('issues')
    .set({ state: 'closed', closed_at: now, closed_by_id: userId, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'opened')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Reopens a closed issue; false when it was not closed. */
export async function reopenIssueById(trx: Kysely<Database>, id: number, now: string): Promise<boolean> {
  const r = await trx
    .updateTable('issues')
    .set({ state: 'opened', closed_at: null, closed_by_id: null, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', 'closed')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function selectAssigneeIds(db: Kysely<Database>, issueId: number): Promise<number[]> {
  const rows = await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issueId).orderBy('user_id').execute();
  return rows.map((r) => r.user_id);
}

/** Makes the issue's assignees exactly `userIds`; true when that changed anything. */
export async function replaceAssignees(trx: Kysely<Database>, issueId: number, userIds: readonly number[]): Promise<boolean> {
  const current = new Set(await selectAssigneeIds(trx, issueId));
  const wanted = new Set(userIds);
  const removed = [...current].filter((id) => !wanted.has(id));
  const added = [...wanted].filter((id) => !current.has(id));
  if (removed.length) await trx.deleteFrom('issue_assignees').where('issue_id', '=', issueId).where('user_id', 'in', removed).execute();
  if (added.length) await trx.insertInto('issue_assignees').values(added.map((user_id) => ({ issue_id: issueId, user_id }))).execute();
  return removed.length > 0 || added.length > 0;
}

/** `issue_id → user ids` for a page of issues. */
export async function selectAssigneesOfIssues(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (issueIds.length === 0) return out;
  const rows = await db.selectFrom('issue_assignees').selectAll().where('issue_id', 'in', issueIds).orderBy('user_id').execute();
  for (const r of rows) {
    const list = out.get(r.issue_id);
    if (list) list.push(r.user_id);
    else out.set(r.issue_id, [r.user_id]);
  }
  return out;
}

/** Non-system notes per issue, for a page. */
export async function countUserNotesOfIssues(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, number>> {
  if (issueIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('notes')
    .select(['noteable_id', sql<number>`count(*)`.as('n')])
    .where('noteable_type', '=', 'Issue')
    .where('noteable_id', 'in', issueIds)
    .where('system', '=', 0)
    .groupBy('noteable_id')
    .execute();
  return new Map(rows.map((r) => [r.noteable_id, Number(r.n)]));
}

/** thumbsup / thumbsdown reactions per issue, for a page. */
export async function countVotesOfIssues(db: Kysely<Database>, issueIds: readonly number[]): Promise<Map<number, { up: number; down: number }>> {
  const out = new Map<number, { up: number; down: number }>();
  if (issueIds.length === 0) return out;
  const rows = await db
    .selectFrom('award_emoji')
    .select(['awardable_id', 'name', sql<number>`count(*)`.as('n')])
    .where('awardable_type', '=', 'Issue')
    .where('awardable_id', 'in', issueIds)
    .where('name', 'in', ['thumbsup', 'thumbsdown'])
    .groupBy(['awardable_id', 'name'])
    .execute();
  for (const r of rows) {
    const votes = out.get(r.awardable_id) ?? { up: 0, down: 0 };
    if (r.name === 'thumbsup') votes.up = Number(r.n);
    else votes.down = Number(r.n);
    out.set(r.awardable_id, votes);
  }
  return out;
}

/**
 * Deletes an issue with the notes and reactions that point at it without a foreign key
 * (reactions on the issue and on its notes). Assignees and state events go by cascade;
 * label links are the labels domain's (deleteTargetLabelLinks).
 */
export async function deleteIssueById(trx: Kysely<Database>, issueId: number): Promise<void> {
  const noteIds = trx.selectFrom('notes').select('id').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issueId);
  await trx
    .deleteFrom('award_emoji')
    .where((eb) =>
      eb.or([
        eb.and([eb('awardable_type', '=', 'Issue'), eb('awardable_id', '=', issueId)]),
        eb.and([eb('awardable_type', '=', 'Note'), eb('awardable_id', 'in', noteIds)]),
      ]),
    )
    .execute();
  await trx.deleteFrom('notes').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issueId).execute();
  await trx.deleteFrom('issues').where('id', '=', issueId).execute();
}
