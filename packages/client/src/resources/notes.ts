/**
 * Notes (comments) of issues, merge requests and project snippets: one template mounted
 * under `projects/:id/{issues|merge_requests|snippets}/:noteable_id/notes`.
 */
// Type-only, from the core contract (@forgelet/core does not list the notes domain's types yet).
import type { CreateNoteInput, ListNotesInput, NoteEntity, UpdateNoteInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListNotesParams = ListParams<Omit<ListNotesInput, 'noteable_id'>>;
/** `internal` (Reporters, issues and merge requests); `created_at` is kept for admins and project Owners. */
export type CreateNoteParams = Omit<CreateNoteInput, 'id' | 'noteable_id' | 'body' | 'created_at'> & { created_at?: Date | string };
export type EditNoteParams = Omit<UpdateNoteInput, 'id' | 'noteable_id' | 'note_id'>;

export class ResourceNotes {
  constructor(
    private readonly requester: Requester,
    private readonly noteables: 'issues' | 'merge_requests' | 'snippets',
  ) {}

  /** Notes of the noteable (an iid for issues and merge requests, an id for snippets); newest first unless `sort: 'asc'`. */
  all(projectId: ResourceId, noteableId: number, params: ListNotesParams = {}): Paginated<NoteEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/${this.noteables}/${noteableId}/notes`, params);
  }

  show(projectId: ResourceId, noteableId: number, noteId: number): Promise<NoteEntity> {
    return this.requester.get(endpoint`projects/${projectId}/${this.noteables}/${noteableId}/notes/${noteId}`);
  }

  create(projectId: ResourceId, noteableId: number, body: string, params: CreateNoteParams = {}): Promise<NoteEntity> {
    const created_at = params.created_at instanceof Date ? params.created_at.toISOString() : params.created_at;
    return this.requester.post(endpoint`projects/${projectId}/${this.noteables}/${noteableId}/notes`, { ...params, body, created_at });
  }

  /** Only the author (or an admin) may edit a note. */
  edit(projectId: ResourceId, noteableId: number, noteId: number, params: EditNoteParams): Promise<NoteEntity> {
    return this.requester.put(endpoint`projects/${projectId}/${this.noteables}/${noteableId}/notes/${noteId}`, params);
  }

  /** The author or a Maintainer. */
  remove(projectId: ResourceId, noteableId: number, noteId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/${this.noteables}/${noteableId}/notes/${noteId}`);
  }
}

/** `projects/:id/issues/:issue_iid/notes`. */
export class IssueNotes extends ResourceNotes {
  constructor(requester: Requester) {
    super(requester, 'issues');
  }
}

/** `projects/:id/merge_requests/:merge_request_iid/notes`. */
export class MergeRequestNotes extends ResourceNotes {
  constructor(requester: Requester) {
    super(requester, 'merge_requests');
  }
}

/** `projects/:id/snippets/:snippet_id/notes`. */
export class ProjectSnippetNotes extends ResourceNotes {
  constructor(requester: Requester) {
    super(requester, 'snippets');
  }
}
