import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import { NOTEABLE_SEGMENTS, type NoteableSegment } from './find-note.js';
import { CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput } from './note.schema.js';
import * as notes from './notes.js';

/** The five note routes of one noteable kind, as GitLab mounts them for each (`/projects/:id/issues/:noteable_id/notes` …). */
function noteableNoteRoutes(segment: NoteableSegment): Route[] {
  const base = `/projects/:id/${segment}/:noteable_id/notes`;
  const kind = NOTEABLE_SEGMENTS[segment];
  const tag = 'notes';
  return [
    route('GET', base, { auth: 'required', params: ListNotesInput, tag, summary: `List notes of a ${kind}` },
      async (ctx, input) => paged(await notes.listNotes(ctx, segment, input))),
    route('GET', `${base}/:note_id`, { auth: 'required', params: NoteRefInput, tag, summary: `Get a note of a ${kind}` },
      async (ctx, input) => ok(await notes.getNote(ctx, segment, input))),
    route('POST', base, { auth: 'required', params: CreateNoteInput, tag, summary: `Comment on a ${kind}` },
      async (ctx, input) => created(await notes.createNote(ctx, segment, input))),
    route('PUT', `${base}/:note_id`, { auth: 'required', params: UpdateNoteInput, tag, summary: `Edit a note of a ${kind}` },
      async (ctx, input) => ok(await notes.updateNote(ctx, segment, input))),
    route('DELETE', `${base}/:note_id`, { auth: 'required', params: NoteRefInput, tag, summary: `Delete a note of a ${kind}` },
      async (ctx, input) => {
        await notes.deleteNote(ctx, segment, input);
        return noContent();
      }),
  ];
}

export const noteRoutes: Route[] = (Object.keys(NOTEABLE_SEGMENTS) as NoteableSegment[]).flatMap(noteableNoteRoutes);
