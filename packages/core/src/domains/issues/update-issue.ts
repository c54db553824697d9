import type { Ctx } from '../../access/context.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import { nowIso } from '../../access/context.js';
import { ForbiddenError } from '../../kernel/errors.js';
import { can, requireUser } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { bool } from '../../storage/dialect.js';
import { applyLabelChanges, labelChangesOf, selectTargetLabelIds, type LabelChanges } from '../labels/index.js';
import { milestoneIdToAssign } from '../milestones/index.js';
import { recordStateEvent } from '../state-events/index.js';
import { findIssue } from './find-issue.js';
import type { IssueEntity } from './issue.entity.js';
import { assignableUsers, checkIssueText, requestedAssignees } from './issue-fields.js';
import {
  closeIssueById, countOpenIssueChange, lockIssueById, reopenIssueById, replaceAssignees, selectAssigneeIds, selectIssueById, updateIssueById,
} from './issue.queries.js';
import type { UpdateIssueInput } from './issue.schema.js';
import type { IssueUpdate } from './issue.table.js';
import { presentIssues } from './present-issues.js';
import { issueChanged } from './issue-hooks.js';

/**
 * PUT /projects/:id/issues/:issue_iid. Reporters (admin_issue) change anything; the author
 * and assignees may change the title and description and close or reopen, while the
 * metadata they send (labels, assignees, confidentiality ...) is dropped, as GitLab does.
 * Others get 403. A close or reopen that changes the state records a state event in the
 * same transaction; one that doesn't (closing a closed issue) records nothing.
 */
/** The author and the assignees may edit an issue's title and description, close and reopen it. */
async function isOwnIssue(ctx: Ctx, userId: number, issue: { id: number; author_id: number }): Promise<boolean> {
  return issue.author_id === userId || (await selectAssigneeIds(ctx.db, issue.id)).includes(userId);
}

/** May the actor update (and close or reopen) the issue? Reporters (`admin_issue`), its author and its assignees: updateIssue's rule. */
export async function mayUpdateIssue(ctx: Ctx, projectRef: string, iid: number): Promise<boolean> {
  const user = ctx.actor.user;
  if (!user) return false;
  const { project, issue } = await findIssue(ctx, projectRef, iid);
  return (await can(ctx, 'admin_issue', { kind: 'project', project })) || isOwnIssue(ctx, user.id, issue);
}

export async function updateIssue(ctx: Ctx, input: UpdateIssueInput): Promise<IssueEntity> {
  const user = requireUser(ctx);
  const { project, issue } = await findIssue(ctx, input.id, input.issue_iid);
  const admin = await can(ctx, 'admin_issue', { kind: 'project', project });
  if (!admin && !(await isOwnIssue(ctx, user.id, issue))) throw new ForbiddenError();
  checkIssueText(input);

  const set: IssueUpdate = {};
  if (input.title !== undefined && input.title !== issue.title) set.title = input.title;
  if (input.description !== undefined && input.description !== issue.description) set.description = input.description;
  let assignees: number[] | undefined;
  let labels: LabelChanges | undefined;
  if (admin) {
    if (input.confidential !== undefined && bool(input.confidential) !== issue.confidential) set.confidential = bool(input.confidential);
    if (input.discussion_locked !== undefined && bool(input.discussion_locked) !== issue.discussion_locked) {
      set.discussion_locked = bool(input.discussion_locked);
    }
    if (input.issue_type !== undefined && input.issue_type !== issue.issue_type) set.issue_type = input.issue_type;
    if (input.due_date !== undefined && input.due_date !== issue.due_date) set.due_date = input.due_date;
    if (input.weight !== undefined && input.weight !== issue.weight && tierAtLeast(ctx.config.tier, 'premium')) set.weight = input.weight;
    const requested = requestedAssignees(input);
    if (requested) assignees = (await assignableUsers(ctx, project, requested)).map((u) => u.id);
    labels = await labelChangesOf(ctx, project, input);
    const milestoneId = await milestoneIdToAssign(ctx, project, input.milestone_id);
    if (milestoneId !== undefined && milestoneId !== issue.milestone_id) set.milestone_id = milestoneId;
  }
  const now = nowIso(ctx);

  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = (await lockIssueById(trx, issue.id)) ?? issue;
    const previous = { labelIds: await selectTargetLabelIds(trx, 'Issue', issue.id), assigneeIds: await selectAssigneeIds(trx, issue.id) };
    let touched = Object.keys(set).length > 0;
    if (labels && (await applyLabelChanges(trx, 'Issue', issue.id, labels, now))) touched = true;
    if (assignees && (await replaceAssignees(trx, issue.id, assignees))) touched = true;
    if (input.state_event === 'close' && (await closeIssueById(trx, issue.id, user.id, now))) {
      await recordStateEvent(trx, { type: 'Issue', id: issue.id }, 'closed', user.id, now);
      await recordProjectActivity(trx, project, now);
      touched = true;
    }
    if (input.state_event === 'reopen' && (await reopenIssueById(trx, issue.id, now))) {
      await recordStateEvent(trx, { type: 'Issue', id: issue.id }, 'reopened', user.id, now);
      await recordProjectActivity(trx, project, now);
      touched = true;
    }
    if (touched) await updateIssueById(trx, issue.id, { ...set, updated_at: now });
    const after = await selectIssueById(trx, issue.id);
    await countOpenIssueChange(trx, before, after); // closed, reopened, made confidential or public
    return issueChanged(trx, before, after, { by: ctx, previous }); // other domains follow (DORA: incident closed, reopened or retyped)
  });
  const [entity] = await presentIssues(ctx, [row], [project]);
  return entity!;
}
