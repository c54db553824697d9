import type { Ctx } from '../../access/context.js';
import { authorize } from '../../access/policy.js';
import { deleteAwardEmojiOf } from '../award-emoji/index.js';
import { deleteTargetLabelLinks } from '../labels/index.js';
import { deleteNoteableNotes } from '../notes/index.js';
import { findIssue } from './find-issue.js';
import { countOpenIssueChange, deleteIssueById, lockIssueById } from './issue.queries.js';
import { issueChanged } from './issue-hooks.js';

/** DELETE /projects/:id/issues/:issue_iid: Owners and admins (destroy_issue), with the issue's notes, reactions and label links. */
export async function deleteIssue(ctx: Ctx, projectRef: string, iid: number): Promise<void> {
  const { project, issue } = await findIssue(ctx, projectRef, iid);
  await authorize(ctx, 'destroy_issue', { kind: 'project', project });
  await ctx.db.transaction().execute(async (trx) => {
    const before = await lockIssueById(trx, issue.id);
    if (!before) return; // deleted meanwhile
    await deleteNoteableNotes(trx, 'Issue', [issue.id]);
    await deleteAwardEmojiOf(trx, 'Issue', [issue.id]);
    await deleteTargetLabelLinks(trx, 'Issue', issue.id);
    await deleteIssueById(trx, issue.id);
    await countOpenIssueChange(trx, before, null);
    await issueChanged(trx, before, null, { by: ctx }); // other domains follow (DORA: a deleted incident no longer counts)
  });
}
