import type { Ctx } from '../../access/context.js';
import { findIssue } from './find-issue.js';
import type { IssueEntity } from './issue.entity.js';
import { presentIssues } from './present-issues.js';

/** GET /projects/:id/issues/:issue_iid: 404 `Issue Not Found` also for a confidential issue the caller may not see. */
export async function getIssue(ctx: Ctx, projectRef: string, iid: number): Promise<IssueEntity> {
  const { project, issue } = await findIssue(ctx, projectRef, iid);
  const [entity] = await presentIssues(ctx, [issue], [project]);
  return entity!;
}
