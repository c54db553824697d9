/** Parameters of the notes endpoints, as GitLab's `notes.rb` declares them (`:noteable_id` is an iid for issues and merge requests). */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

export const NOTES_ACTIVITY_FILTERS = ['all_notes', 'only_comments', 'only_activity'] as const;

const noteable = { id: p.string(), noteable_id: p.integer() };

export const ListNotesInput = params({
  ...noteable,
  order_by: p.enum(['created_at', 'updated_at']).default('created_at'),
  sort: p.enum(['asc', 'desc']).default('desc'),
  activity_filter: p.enum(NOTES_ACTIVITY_FILTERS).default('all_notes'),
  ...paginationParams,
});
export type ListNotesInput = InferShape<typeof ListNotesInput.shape>;

export const NoteRefInput = params({ ...noteable, note_id: p.integer() });
export type NoteRefInput = InferShape<typeof NoteRefInput.shape>;

export const CreateNoteInput = params({
  ...noteable,
  body: p.string(),
  internal: p.boolean().optional(),
  confidential: p.boolean().optional().describe('Renamed to `internal` in GitLab 15.5; still accepted.'),
  created_at: p.datetime().optional().describe('Kept only when the caller is an administrator or project Owner.'),
  merge_request_diff_head_sha: p.string().optional(),
});
export type CreateNoteInput = InferShape<typeof CreateNoteInput.shape>;

export const UpdateNoteInput = params({
  ...noteable,
  note_id: p.integer(),
  body: p.string().nonBlank().optional(),
  confidential: p.boolean().optional().describe('Deprecated: an existing note\'s confidentiality cannot change.'),
});
export type UpdateNoteInput = InferShape<typeof UpdateNoteInput.shape>;
