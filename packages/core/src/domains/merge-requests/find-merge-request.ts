/** The merge request lookup every work-item route shares. */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { authorize } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { MergeRequestRow } from './merge-request.table.js';

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
