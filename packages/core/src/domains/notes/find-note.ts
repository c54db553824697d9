/** Noteables (issues, merge requests, snippets) and their notes, as the notes and reaction routes address them. */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findIssue } from '../issues/index.js';
import { findMergeRequest } from '../merge-requests/index.js';
import { findSnippet } from '../snippets/index.js';
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

/** Resolves `/projects/:id/<segment>/:iid-or-id` to a readable noteable (404 otherwise). */
export async function findNoteable(ctx: Ctx, projectRef: string, segment: NoteableSegment, ref: number): Promise<Noteable> {
  if (segment === 'issues') {
    const { project, issue } = await findIssue(ctx, projectRef, ref);
    return { type: 'Issue', id: issue.id, project, authorId: issue.author_id, iid: issue.iid, discussionLocked: issue.discussion_locked === 1 };
  }
  if (segment === 'merge_requests') {
    const { project, mergeRequest } = await findMergeRequest(ctx, projectRef, ref);
    return {
      type: 'MergeRequest',
      id: mergeRequest.id,
      project,
      authorId: mergeRequest.author_id,
      iid: mergeRequest.iid,
      discussionLocked: mergeRequest.discussion_locked === 1,
    };
  }
  const { project, snippet } = await findSnippet(ctx, projectRef, ref);
  return { type: 'Snippet', id: snippet.id, project, authorId: snippet.author_id, iid: null, discussionLocked: false };
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
