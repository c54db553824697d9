import { sql, type Kysely } from 'kysely';
import { mentions } from '../../kernel/mentions.js';
import type { Database } from '../../storage/database.js';
import { deleteAwardEmojiOf } from '../award-emoji/index.js';
import type { NewNoteRow, NoteRow } from './note.table.js';
import type { NoteableType } from './find-note.js';

export async function insertNote(db: Kysely<Database>, values: NewNoteRow): Promise<NoteRow> {
  return db.insertInto('notes').values(values).returningAll().executeTakeFirstOrThrow();
}

export interface SelectNotesOptions {
  orderBy: 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
  /** Leave out internal notes (callers below Reporter). */
  withoutInternal: boolean;
  /** `only_comments` (user notes) or `only_activity` (system notes). */
  system?: boolean;
}

/** Notes of one noteable, ordered with `id` as the tie-breaker in the same direction. */
export function selectNoteableNotes(db: Kysely<Database>, type: NoteableType, noteableId: number, options: SelectNotesOptions) {
  let q = db.selectFrom('notes').selectAll().where('noteable_type', '=', type).where('noteable_id', '=', noteableId);
  if (options.withoutInternal) q = q.where('internal', '=', 0);
  if (options.system !== undefined) q = q.where('system', '=', options.system ? 1 : 0);
  return q.orderBy(options.orderBy, options.sort).orderBy('id', options.sort);
}

export async function updateNoteById(db: Kysely<Database>, id: number, values: Pick<NoteRow, 'body' | 'updated_at'>): Promise<NoteRow> {
  return db.updateTable('notes').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a note with the reactions on it (nothing else points at notes by foreign key). Call in a transaction. */
export async function deleteNoteById(trx: Kysely<Database>, id: number): Promise<void> {
  await deleteAwardEmojiOf(trx, 'Note', [id]);
  await trx.deleteFrom('notes').where('id', '=', id).execute();
}

/** Removes every note of the given noteables, with the reactions on those notes (call in the transaction that deletes them). */
export async function deleteNoteableNotes(trx: Kysely<Database>, type: NoteableType, noteableIds: number[]): Promise<void> {
  if (noteableIds.length === 0) return;
  const noteIds = trx.selectFrom('notes').select('id').where('noteable_type', '=', type).where('noteable_id', 'in', noteableIds);
  await deleteAwardEmojiOf(trx, 'Note', noteIds);
  await trx.deleteFrom('notes').where('noteable_type', '=', type).where('noteable_id', 'in', noteableIds).execute();
}

/** Non-system notes per noteable (`user_notes_count`), for a page of them in one query. */
export async function countUserNotesOf(db: Kysely<Database>, type: NoteableType, noteableIds: readonly number[]): Promise<Map<number, number>> {
  if (noteableIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('notes')
    .select(['noteable_id', sql<number>`count(*)`.as('n')])
    .where('noteable_type', '=', type)
    .where('noteable_id', 'in', noteableIds)
    .where('system', '=', 0)
    .groupBy('noteable_id')
    .execute();
  return new Map(rows.map((r) => [r.noteable_id, Number(r.n)]));
}

/**
 * Of the noteables, those where the user takes part through the notes (GitLab's participants
 * from notes): they wrote a note, or a note mentions them (`@username`).
 */
export async function noteablesInvolving(
  db: Kysely<Database>,
  type: NoteableType,
  noteableIds: readonly number[],
  user: { id: number; username: string },
): Promise<Set<number>> {
  if (noteableIds.length === 0) return new Set();
  const like = `%@${user.username.toLowerCase()}%`;
  const rows = await db
    .selectFrom('notes')
    .select(['noteable_id', 'author_id', 'body'])
    .where('noteable_type', '=', type)
    .where('noteable_id', 'in', noteableIds)
    .where('system', '=', 0)
    .where((eb) => eb.or([eb('author_id', '=', user.id), eb(sql`lower(body)`, 'like', like)]))
    .execute();
  return new Set(rows.filter((r) => r.author_id === user.id || mentions(r.body, user.username)).map((r) => r.noteable_id));
}

/**
 * Records an action on an issue, merge request or snippet as a system note ("closed",
 * "changed the description"); users cannot edit or delete it. Call it inside the
 * transaction that performs the action.
 */
export async function insertSystemNote(
  trx: Kysely<Database>,
  input: { projectId: number; noteableType: NoteableType; noteableId: number; authorId: number; body: string; now: string },
): Promise<NoteRow> {
  return insertNote(trx, {
    project_id: input.projectId,
    noteable_type: input.noteableType,
    noteable_id: input.noteableId,
    body: input.body,
    author_id: input.authorId,
    system: 1,
    internal: 0,
    created_at: input.now,
    updated_at: input.now,
  });
}
