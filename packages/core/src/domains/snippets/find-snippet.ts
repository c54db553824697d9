/** The project snippet lookup shared by snippets, notes and reactions. */
import { GUEST } from '../../access/levels.js';
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { accessLevel, authorize } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { selectSnippetById } from './snippet.queries.js';
import type { SnippetRow } from './snippet.table.js';
import type { NoteableFinder } from '../notes/index.js';

/** A private snippet is for project members; internal ones for signed-in users; public for all who see the project. */
export async function canReadSnippet(ctx: Ctx, project: ProjectRow, snippet: SnippetRow): Promise<boolean> {
  if (ctx.actor.isAdmin || snippet.visibility === 'public') return true;
  if (snippet.visibility === 'internal' && ctx.actor.user && !ctx.actor.user.external) return true;
  return (await accessLevel(ctx, { kind: 'project', project })) >= GUEST;
}

/** The snippet visibilities the actor may read in the project, by the rules of `canReadSnippet` (lists filter on them in SQL). */
export async function readableSnippetVisibilities(ctx: Ctx, project: ProjectRow): Promise<string[]> {
  if (ctx.actor.isAdmin || (await accessLevel(ctx, { kind: 'project', project })) >= GUEST) return ['private', 'internal', 'public'];
  if (ctx.actor.user && !ctx.actor.user.external) return ['internal', 'public'];
  return ['public'];
}

/** The project's snippet `id`, if the actor may read it: 404 `Snippet Not Found` otherwise. */
export async function readableSnippet(ctx: Ctx, project: ProjectRow, id: number): Promise<SnippetRow> {
  const snippet = await selectSnippetById(ctx.db, project.id, id);
  if (!snippet || !(await canReadSnippet(ctx, project, snippet))) throw new NotFoundError('Snippet');
  return snippet;
}

/** `/projects/:id/snippets/:snippet_id`: 404 `Snippet Not Found` when missing or hidden. */
export async function findSnippet(ctx: Ctx, projectRef: string, id: number): Promise<{ project: ProjectRow; snippet: SnippetRow }> {
  const project = await findProject(ctx, projectRef);
  await authorize(ctx, 'read_snippet', { kind: 'project', project });
  if (!project.snippets_enabled) throw new NotFoundError('Snippet');
  return { project, snippet: await readableSnippet(ctx, project, id) };
}

/** The snippet as a noteable, for the notes and reaction routes under it (registered in forge.ts). */
export const snippetNoteable: NoteableFinder = async (ctx, projectRef, id) => {
  const { project, snippet } = await findSnippet(ctx, projectRef, id);
  return { type: 'Snippet', id: snippet.id, project, authorId: snippet.author_id, iid: null, discussionLocked: false };
};
