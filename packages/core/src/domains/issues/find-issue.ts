/** The issue lookup every work-item route shares (notes, reactions, state events use it). */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { authorize, can } from '../../access/policy.js';
import { findProject, selectProjectByRef } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { IssueRow } from './issue.table.js';
import type { NoteableFinder } from '../notes/index.js';

/** May the actor see this (possibly confidential) issue? Reporters, the author and assignees may. */
export async function canReadIssue(ctx: Ctx, project: ProjectRow, issue: IssueRow): Promise<boolean> {
  if (!issue.confidential) return true;
  const user = ctx.actor.user;
  if (!user) return false;
  if (user.id === issue.author_id) return true;
  if (await can(ctx, 'read_confidential_issues', { kind: 'project', project })) return true;
  const assigned = await ctx.db
    .selectFrom('issue_assignees')
    .select('user_id')
    .where('issue_id', '=', issue.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return Boolean(assigned);
}

/** `/projects/:id/issues/:issue_iid`: the project (404 when hidden) and the issue (404 `Issue Not Found`). */
export async function findIssue(ctx: Ctx, projectRef: string, iid: number): Promise<{ project: ProjectRow; issue: IssueRow }> {
  const project = await findProject(ctx, projectRef);
  await authorize(ctx, 'read_issue', { kind: 'project', project });
  if (!project.issues_enabled) throw new NotFoundError('Issue');
  const issue = await ctx.db.selectFrom('issues').selectAll().where('project_id', '=', project.id).where('iid', '=', iid).executeTakeFirst();
  if (!issue || !(await canReadIssue(ctx, project, issue))) throw new NotFoundError('Issue');
  return { project, issue };
}

/**
 * GitLab's `admin_issue_relation` (putting the issue in an epic, taking it out): Guest on its
 * project, with issues on, and able to read the issue.
 */
export async function canAdminIssueRelation(ctx: Ctx, issue: IssueRow): Promise<boolean> {
  const project = await selectProjectByRef(ctx, issue.project_id);
  if (!project?.issues_enabled) return false;
  const subject = { kind: 'project', project } as const;
  return (await can(ctx, 'admin_issue_relation', subject)) && (await can(ctx, 'read_issue', subject)) && canReadIssue(ctx, project, issue);
}

/** The issue as a noteable, for the notes and reaction routes under it (registered in forge.ts). */
export const issueNoteable: NoteableFinder = async (ctx, projectRef, iid) => {
  const { project, issue } = await findIssue(ctx, projectRef, iid);
  return { type: 'Issue', id: issue.id, project, authorId: issue.author_id, iid: issue.iid, discussionLocked: issue.discussion_locked === 1 };
};
