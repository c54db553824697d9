/**
 * Noteables (issues, merge requests, snippets) and their notes, as the notes and reaction
 * routes address them. Each noteable's domain hands notes its finder through the wiring
 * (forge.ts), so notes, below them, never imports them.
 */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { Registry } from '../../kernel/hooks.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { AwardableFinder } from '../award-emoji/index.js';
import type { NoteRow } from './note.table.js';

export type NoteableType = 'Issue' | 'MergeRequest' | 'Snippet';

/** The path segment of each noteable kind: issues/:issue_iid, merge_requests/:merge_request_iid, snippets/:snippet_id. */
export const NOTEABLE_SEGMENTS = { issues: 'Issue', merge_requests: 'MergeRequest', snippets: 'Snippet' } as const;
export type NoteableSegment = keyof typeof NOTEABLE_SEGMENTS;

export interface Noteable {
  type: NoteableType;
  /** Database id (notes and reactions point at it). */
  id: number;
  project: ProjectRow;
  authorId: number;
  /** The iid of an issue or merge request; null for snippets. */
  iid: number | null;
  /** Issues and merge requests may lock their discussion (snippets never do). */
  discussionLocked: boolean;
}

/** `/projects/:id/<segment>/:ref` → the noteable when the caller can read it (404 otherwise, as the owner's finder answers). */
export type NoteableFinder = (ctx: Ctx, projectRef: string, ref: number) => Promise<Noteable>;

const finders = new Registry<NoteableSegment, NoteableFinder>('noteables');

/** Hands notes the finder of one noteable kind (forge.ts). */
export function registerNoteable(segment: NoteableSegment, finder: NoteableFinder): void {
  finders.register(segment, finder);
}

/** Resolves `/projects/:id/<segment>/:iid-or-id` to a readable noteable (404 otherwise). */
export function findNoteable(ctx: Ctx, projectRef: string, segment: NoteableSegment, ref: number): Promise<Noteable> {
  return finders.get(segment)(ctx, projectRef, ref);
}

/** A note of the noteable; internal notes need Reporter. 404 `Note Not Found`. */
export async function findNote(ctx: Ctx, noteable: Noteable, noteId: number): Promise<NoteRow> {
  const note = await ctx.db
    .selectFrom('notes')
    .selectAll()
    .where('noteable_type', '=', noteable.type)
    .where('noteable_id', '=', noteable.id)
    .where('id', '=', noteId)
    .executeTakeFirst();
  if (!note) throw new NotFoundError('Note');
  if (note.internal && !(await can(ctx, 'read_internal_note', { kind: 'project', project: noteable.project }))) throw new NotFoundError('Note');
  return note;
}

/** Reactions go on noteables and their notes: award emoji finds them here (wired in forge.ts). */
export const findAwardableNoteable: AwardableFinder = async (ctx, target) => {
  const noteable = await findNoteable(ctx, target.project, target.segment, target.ref);
  if (target.noteId === undefined) return { type: noteable.type, id: noteable.id };
  const note = await findNote(ctx, noteable, target.noteId);
  return { type: 'Note', id: note.id };
};
