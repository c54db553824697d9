import type { Route } from '../../kernel/route.js';
import { noteRoutes } from './notes.routes.js';

/** Routes of this domain. */
export const notesRoutes: Route[] = [...noteRoutes];

export { listNotes, getNote, createNote, updateNote, deleteNote, MAX_NOTE_LENGTH } from './notes.js';
export { findNoteable, findNote, NOTEABLE_SEGMENTS, type Noteable, type NoteableSegment, type NoteableType } from './find-note.js';
/** For the wiring: each noteable's domain registers its finder; notes finds awardables for award emoji. */
export { registerNoteable, findAwardableNoteable, type NoteableFinder } from './find-note.js';
/**
 * For other domains: record an action as a system note, count user notes for a page of
 * noteables, drop the notes (and their reactions) of deleted noteables inside their transaction.
 */
export { insertSystemNote, countUserNotesOf, deleteNoteableNotes, noteablesInvolving } from './note.queries.js';
export type { NoteEntity } from './note.entity.js';
export type { CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput } from './note.schema.js';
export type { NoteRow } from './note.table.js';
/** For the wiring: reactions to comments (webhooks). */
export { registerNoteHooks, type NoteHooks, type NoteChange } from './note-hooks.js';
export { notesGraphql } from './notes.graphql.js';
