import type { Ctx } from '../../access/context.js';
import type { Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import type { NoteableSegment } from './find-note.js';
import { CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput } from './note.schema.js';
import * as notes from './notes.js';

/** `DELETE …/notes/:note_id`, the same under every noteable. */
const removeNote = (segment: NoteableSegment) => async (ctx: Ctx, input: Infer<typeof NoteRefInput>) => {
  await notes.deleteNote(ctx, segment, input);
  return noContent();
};

const tag = 'notes';

// The five note routes of each noteable kind, as GitLab mounts them for each.
export const noteRoutes: Route[] = [
  route('GET', '/projects/:id/issues/:noteable_id/notes', { auth: 'required', params: ListNotesInput, tag, summary: 'List notes of an issue' },
    async (ctx, input) => paged(await notes.listNotes(ctx, 'issues', input))),
  route('GET', '/projects/:id/issues/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Get a note of an issue' },
    async (ctx, input) => ok(await notes.getNote(ctx, 'issues', input))),
  route('POST', '/projects/:id/issues/:noteable_id/notes', { auth: 'required', params: CreateNoteInput, tag, summary: 'Comment on an issue' },
    async (ctx, input) => created(await notes.createNote(ctx, 'issues', input))),
  route('PUT', '/projects/:id/issues/:noteable_id/notes/:note_id', { auth: 'required', params: UpdateNoteInput, tag, summary: 'Edit a note of an issue' },
    async (ctx, input) => ok(await notes.updateNote(ctx, 'issues', input))),
  route('DELETE', '/projects/:id/issues/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Delete a note of an issue' },
    removeNote('issues')),

  route('GET', '/projects/:id/merge_requests/:noteable_id/notes', { auth: 'required', params: ListNotesInput, tag, summary: 'List notes of a merge request' },
    async (ctx, input) => paged(await notes.listNotes(ctx, 'merge_requests', input))),
  route('GET', '/projects/:id/merge_requests/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Get a note of a merge request' },
    async (ctx, input) => ok(await notes.getNote(ctx, 'merge_requests', input))),
  route('POST', '/projects/:id/merge_requests/:noteable_id/notes', { auth: 'required', params: CreateNoteInput, tag, summary: 'Comment on a merge request' },
    async (ctx, input) => created(await notes.createNote(ctx, 'merge_requests', input))),
  route('PUT', '/projects/:id/merge_requests/:noteable_id/notes/:note_id', { auth: 'required', params: UpdateNoteInput, tag, summary: 'Edit a note of a merge request' },
    async (ctx, input) => ok(await notes.updateNote(ctx, 'merge_requests', input))),
  route('DELETE', '/projects/:id/merge_requests/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Delete a note of a merge request' },
    removeNote('merge_requests')),

  route('GET', '/projects/:id/snippets/:noteable_id/notes', { auth: 'required', params: ListNotesInput, tag, summary: 'List notes of a snippet' },
    async (ctx, input) => paged(await notes.listNotes(ctx, 'snippets', input))),
  route('GET', '/projects/:id/snippets/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Get a note of a snippet' },
    async (ctx, input) => ok(await notes.getNote(ctx, 'snippets', input))),
  route('POST', '/projects/:id/snippets/:noteable_id/notes', { auth: 'required', params: CreateNoteInput, tag, summary: 'Comment on a snippet' },
    async (ctx, input) => created(await notes.createNote(ctx, 'snippets', input))),
  route('PUT', '/projects/:id/snippets/:noteable_id/notes/:note_id', { auth: 'required', params: UpdateNoteInput, tag, summary: 'Edit a note of a snippet' },
    async (ctx, input) => ok(await notes.updateNote(ctx, 'snippets', input))),
  route('DELETE', '/projects/:id/snippets/:noteable_id/notes/:note_id', { auth: 'required', params: NoteRefInput, tag, summary: 'Delete a note of a snippet' },
    removeNote('snippets')),
];
