/** The merge request lookup every work-item route shares. */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { authorize } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { MergeRequestRow } from './merge-request.table.js';
import type { NoteableFinder } from '../notes/index.js';

/** `/projects/:id/merge_requests/:merge_request_iid`: 404 `Merge Request Not Found` when missing. */
export async function findMergeRequest(ctx: Ctx, projectRef: string, iid: number): Promise<{ project: ProjectRow; mergeRequest: MergeRequestRow }> {
  const project = await findProject(ctx, projectRef);
  await authorize(ctx, 'read_merge_request', { kind: 'project', project });
  if (!project.merge_requests_enabled) throw new NotFoundError('Merge Request');
  const mergeRequest = await ctx.db
    .selectFrom('merge_requests')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('iid', '=', iid)
    .executeTakeFirst();
  if (!mergeRequest) throw new NotFoundError('Merge Request');
  return { project, mergeRequest };
}

/** The merge request as a noteable, for the notes and reaction routes under it (registered in forge.ts). */
export const mergeRequestNoteable: NoteableFinder = async (ctx, projectRef, iid) => {
  const { project, mergeRequest } = await findMergeRequest(ctx, projectRef, iid);
  return { type: 'MergeRequest', id: mergeRequest.id, project, authorId: mergeRequest.author_id, iid: mergeRequest.iid, discussionLocked: mergeRequest.discussion_locked === 1 };
};
