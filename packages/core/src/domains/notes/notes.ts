/** Notes (comments) on issues, merge requests and snippets: `/projects/:id/<noteables>/:noteable_id/notes[/:note_id]`. */
import { usersByIds } from '../../access/users.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can, requireUser, type Ability, type Subject } from '../../access/policy.js';
import { findNote, findNoteable, type Noteable, type NoteableSegment } from './find-note.js';
import { toNoteEntity, type NoteEntity } from './note.entity.js';
import { deleteNoteById, insertNote, selectNoteableNotes, updateNoteById } from './note.queries.js';
import type { CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput } from './note.schema.js';
import type { NoteRow } from './note.table.js';
import { runNoteChanged } from './note-hooks.js';

/** GitLab's Note validation: `validates :note, length: { maximum: 1_000_000 }`. */
export const MAX_NOTE_LENGTH = 1_000_000;

/** Reading and writing internal notes: Reporter (GitLab's `read_internal_note` / `mark_note_as_internal`). */
const INTERNAL_NOTES: Ability = 'read_internal_note';
/** Commenting on a locked discussion: Reporter here (GitLab lets project members in). */
const LOCKED_DISCUSSION: Ability = 'create_note_on_locked_discussion';
/** Back-dating a note: Owner or admin (GitLab's `set_note_created_at`; the policy has no such ability yet). */
const SET_CREATED_AT: Ability = 'set_note_created_at';

const subjectOf = (noteable: Noteable): Subject => ({ kind: 'project', project: noteable.project });

/** A Note model error, as GitLab's `bad_request!("Note #{note.errors.messages}")` writes it (Ruby hash inspect). */
function noteError(field: string, message: string): BadRequestError {
  return new BadRequestError(`Note {:${field}=>[${JSON.stringify(message)}]}`);
}

function checkBody(body: string): void {
  if (body.trim() === '') throw noteError('note', "can't be blank");
  // Rails counts characters (code points), not UTF-16 units.
  if (body.length > MAX_NOTE_LENGTH && [...body].length > MAX_NOTE_LENGTH) {
    throw noteError('note', `is too long (maximum is ${MAX_NOTE_LENGTH} characters)`);
  }
}

/** Entities for notes of one noteable, with one query for their authors. */
async function presentNotes(ctx: Ctx, noteable: Noteable, rows: NoteRow[]): Promise<NoteEntity[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((r) => r.author_id))];
  const authors = await usersByIds(ctx.db, ids);
  return rows.map((r) => toNoteEntity(r, authors.get(r.author_id)!, noteable.iid, ctx.urls));
}

async function presentNote(ctx: Ctx, noteable: Noteable, row: NoteRow): Promise<NoteEntity> {
  return (await presentNotes(ctx, noteable, [row]))[0]!;
}

/** `…/<segment>/:noteable_id/notes/:note_id`: the readable noteable and its note (404 otherwise). */
async function findNoteAt(ctx: Ctx, segment: NoteableSegment, input: NoteRefInput): Promise<{ noteable: Noteable; note: NoteRow }> {
  const noteable = await findNoteable(ctx, input.id, segment, input.noteable_id);
  return { noteable, note: await findNote(ctx, noteable, input.note_id) };
}

/** GET …/notes: newest first by default; internal notes only for Reporters, filtered in SQL. */
export async function listNotes(ctx: Ctx, segment: NoteableSegment, input: ListNotesInput): Promise<Page<NoteEntity>> {
  const noteable = await findNoteable(ctx, input.id, segment, input.noteable_id);
  const query = selectNoteableNotes(ctx.db, noteable.type, noteable.id, {
    orderBy: input.order_by,
    sort: input.sort,
    withoutInternal: !(await can(ctx, INTERNAL_NOTES, subjectOf(noteable))),
    system: input.activity_filter === 'all_notes' ? undefined : input.activity_filter === 'only_activity',
  });
  return paginate(ctx.db, query, input, (rows) => presentNotes(ctx, noteable, rows));
}

/** GET …/notes/:note_id */
export async function getNote(ctx: Ctx, segment: NoteableSegment, input: NoteRefInput): Promise<NoteEntity> {
  const { noteable, note } = await findNoteAt(ctx, segment, input);
  return presentNote(ctx, noteable, note);
}

/**
 * POST …/notes: Guest on the project (`create_note`) and a readable noteable. A locked
 * discussion takes Reporter. `internal` is kept only for Reporters on issues and merge
 * requests (GitLab drops it silently otherwise); `created_at` only for Owners and admins.
 */
export async function createNote(ctx: Ctx, segment: NoteableSegment, input: CreateNoteInput): Promise<NoteEntity> {
  const user = requireUser(ctx);
  const noteable = await findNoteable(ctx, input.id, segment, input.noteable_id);
  const subject = subjectOf(noteable);
  await authorize(ctx, 'create_note', subject);
  if (noteable.discussionLocked && !(await can(ctx, LOCKED_DISCUSSION, subject))) throw new ForbiddenError();
  checkBody(input.body);
  const wantsInternal = Boolean(input.internal || input.confidential) && noteable.type !== 'Snippet';
  const internal = wantsInternal && (await can(ctx, INTERNAL_NOTES, subject));
  const now = nowIso(ctx);
  const createdAt = input.created_at && (await can(ctx, SET_CREATED_AT, subject)) ? input.created_at.toISOString() : now;
  const row = await ctx.db.transaction().execute(async (trx) => {
    const note = await insertNote(trx, {
      project_id: noteable.project.id,
      noteable_type: noteable.type,
      noteable_id: noteable.id,
      body: input.body,
      author_id: user.id,
      system: 0,
      internal: internal ? 1 : 0,
      created_at: createdAt,
      updated_at: createdAt,
    });
    await recordProjectActivity(trx, noteable.project, now); // a comment is a project event
    await runNoteChanged(trx, { action: 'create', by: ctx, note, noteable });
    return note;
  });
  return presentNote(ctx, noteable, row);
}

/** PUT …/notes/:note_id: only the author (or an admin) edits a note; system notes never. */
export async function updateNote(ctx: Ctx, segment: NoteableSegment, input: UpdateNoteInput): Promise<NoteEntity> {
  const user = requireUser(ctx);
  const { noteable, note } = await findNoteAt(ctx, segment, input);
  if (note.system || (note.author_id !== user.id && !ctx.actor.isAdmin)) throw new ForbiddenError();
  if (input.confidential !== undefined && input.confidential !== (note.internal === 1)) {
    throw noteError('confidential', 'can not be changed for existing notes');
  }
  if (input.body === undefined || input.body === note.body) return presentNote(ctx, noteable, note);
  checkBody(input.body);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await updateNoteById(trx, note.id, { body: input.body!, updated_at: nowIso(ctx) });
    await runNoteChanged(trx, { action: 'update', by: ctx, note: updated, noteable });
    return updated;
  });
  return presentNote(ctx, noteable, row);
}

/** DELETE …/notes/:note_id: the author or a Maintainer (`admin_note`); system notes stay. */
export async function deleteNote(ctx: Ctx, segment: NoteableSegment, input: NoteRefInput): Promise<void> {
  const user = requireUser(ctx);
  const { noteable, note } = await findNoteAt(ctx, segment, input);
  if (note.system) throw new ForbiddenError();
  if (note.author_id !== user.id && !(await can(ctx, 'admin_note', subjectOf(noteable)))) throw new ForbiddenError();
  await ctx.db.transaction().execute((trx) => deleteNoteById(trx, note.id));
}
