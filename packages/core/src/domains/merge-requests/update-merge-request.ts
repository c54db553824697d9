import type { Kysely } from 'kysely';
import { recordProjectActivity } from '../../access/project-activity.js';
import type { Ctx } from '../../access/context.js';
import { ConflictError } from '../../kernel/errors.js';
import { nowIso } from '../../access/context.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { bool } from '../../storage/dialect.js';
import type { ProjectRow } from '../../access/project.table.js';
import { applyLabelChanges, labelChangesOf, selectTargetLabelIds } from '../labels/index.js';
import { milestoneIdToAssign } from '../milestones/index.js';
import { recordStateEvent } from '../state-events/index.js';
import { duplicateMessage } from './create-merge-request.js';
import { findMergeRequest } from './find-merge-request.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import {
  replaceMergeRequestUsers,
  selectMergeRequestUserIds,
  selectOpenMergeRequestByBranches,
  updateMergeRequestById,
  type MergeRequestUserTableName,
} from './merge-request.queries.js';
import { checkDistinctBranches, checkMergeRequestFields, isDraftTitle } from './merge-request.rules.js';
import type { UpdateMergeRequestInput } from './merge-request.schema.js';
import type { MergeRequestRow, MergeRequestUpdate } from './merge-request.table.js';
import { eligibleUserIds } from './merge-request-users.js';
import { presentMergeRequest } from './present-merge-requests.js';
import { runMergeRequestChanged } from './merge-request-hooks.js';
import { refreshDiff } from './merge-request-diffs.js';
import { sourceBranchHead } from './source-branch.js';

/** May the actor edit this merge request? Its author may, besides Developers. */
async function authorizeUpdate(ctx: Ctx, project: ProjectRow, mr: MergeRequestRow): Promise<void> {
  const user = requireUser(ctx);
  if (mr.author_id === user.id) return;
  await authorize(ctx, 'update_merge_request', { kind: 'project', project });
}

/** May the actor edit the merge request (authorizeUpdate's rule, as a yes or no)? */
export async function mayUpdateMergeRequest(ctx: Ctx, projectRef: string, iid: number): Promise<boolean> {
  const user = ctx.actor.user;
  if (!user) return false;
  const { project, mergeRequest } = await findMergeRequest(ctx, projectRef, iid);
  return mergeRequest.author_id === user.id || can(ctx, 'update_merge_request', { kind: 'project', project });
}

/** The new state and its event for `state_event`; null when it changes nothing (closing a closed one, reopening a merged one). */
function stateChange(mr: MergeRequestRow, event: UpdateMergeRequestInput['state_event'], userId: number, now: string) {
  if (event === 'close' && (mr.state === 'opened' || mr.state === 'locked')) {
    return { set: { state: 'closed', closed_at: now, closed_by_id: userId } satisfies MergeRequestUpdate, event: 'closed' as const };
  }
  if (event === 'reopen' && mr.state === 'closed') {
    return { set: { state: 'opened', closed_at: null, closed_by_id: null } satisfies MergeRequestUpdate, event: 'reopened' as const };
  }
  return null;
}

/** Replaces assignees or reviewers when asked; true when they changed. */
async function syncUsers(trx: Kysely<Database>, table: MergeRequestUserTableName, mrId: number, next: number[] | undefined): Promise<boolean> {
  if (next === undefined) return false;
  const current = await selectMergeRequestUserIds(trx, table, mrId);
  if (current.length === next.length && [...next].sort((a, b) => a - b).every((id, i) => id === current[i])) return false;
  await replaceMergeRequestUsers(trx, table, mrId, next);
  return true;
}

/**
 * PUT /projects/:id/merge_requests/:merge_request_iid (author or Developer).
 * `state_event` close/reopen records a state event in the same transaction; a no-op records
 * nothing. Reopening while another open merge request joins the same branches leaves it
 * closed, as GitLab's failed transition does; changing the target onto such a pair is 409.
 */
export async function updateMergeRequest(ctx: Ctx, input: UpdateMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const { project, mergeRequest: mr } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  await authorizeUpdate(ctx, project, mr);
  const user = requireUser(ctx);
  const title = input.title?.trim();
  const targetBranch = input.target_branch ?? mr.target_branch;
  if (input.target_branch !== undefined) checkDistinctBranches(mr.source_branch, input.target_branch);
  checkMergeRequestFields({ title, description: input.description, target_branch: input.target_branch });

  const assigneeIds =
    input.assignee_ids !== undefined || input.assignee_id !== undefined
      ? await eligibleUserIds(ctx, project, input.assignee_ids ?? [input.assignee_id!])
      : undefined;
  const reviewerIds = input.reviewer_ids !== undefined ? await eligibleUserIds(ctx, project, input.reviewer_ids) : undefined;
  const labels = await labelChangesOf(ctx, project, input);
  const milestoneId = await milestoneIdToAssign(ctx, project, input.milestone_id);
  const now = nowIso(ctx);

  const set: MergeRequestUpdate = {};
  if (title !== undefined && title !== mr.title) Object.assign(set, { title, draft: bool(isDraftTitle(title)) });
  if (input.description !== undefined && input.description !== mr.description) set.description = input.description;
  if (targetBranch !== mr.target_branch) set.target_branch = targetBranch;
  if (milestoneId !== undefined && milestoneId !== mr.milestone_id) set.milestone_id = milestoneId;
  if (input.discussion_locked !== undefined && bool(input.discussion_locked) !== mr.discussion_locked) set.discussion_locked = bool(input.discussion_locked);
  if (input.squash !== undefined && bool(input.squash) !== mr.squash) set.squash = bool(input.squash);
  if (input.remove_source_branch !== undefined && bool(input.remove_source_branch) !== mr.should_remove_source_branch) {
    set.should_remove_source_branch = bool(input.remove_source_branch);
  }

  const row = await ctx.db.transaction().execute(async (trx) => {
    let change = stateChange(mr, input.state_event, user.id, now);
    const staysOpen = change ? change.set.state === 'opened' : mr.state === 'opened';
    if (staysOpen && (set.target_branch !== undefined || change)) {
      const open = await selectOpenMergeRequestByBranches(trx, project.id, mr.source_branch, targetBranch, mr.id);
      if (open && set.target_branch !== undefined) throw new ConflictError([duplicateMessage(open.iid)]);
      if (open) change = null;
    }
    let touched = Object.keys(set).length > 0 || change !== null;
    const previous = {
      labelIds: await selectTargetLabelIds(trx, 'MergeRequest', mr.id),
      assigneeIds: await selectMergeRequestUserIds(trx, 'merge_request_assignees', mr.id),
      reviewerIds: await selectMergeRequestUserIds(trx, 'merge_request_reviewers', mr.id),
    };
    touched = (await syncUsers(trx, 'merge_request_assignees', mr.id, assigneeIds)) || touched;
    touched = (await syncUsers(trx, 'merge_request_reviewers', mr.id, reviewerIds)) || touched;
    if (labels) touched = (await applyLabelChanges(trx, 'MergeRequest', mr.id, labels, now)) || touched;
    if (!touched) return mr;
    let updated = await updateMergeRequestById(trx, mr.id, { ...set, ...change?.set, updated_at: now });
    // A new target (GitLab's reload_diff_if_branch_changed) or reopening (ReopenService's
    // reload_diff): a new diff version, mergeability to check again.
    if (updated.state === 'opened' && (set.target_branch !== undefined || change?.event === 'reopened')) {
      // A closed merge request's head does not follow its branch: reopening takes the branch's head.
      const head = await sourceBranchHead(trx, project.id, mr.source_branch);
      if (change?.event === 'reopened' && head !== updated.sha) updated = await updateMergeRequestById(trx, mr.id, { sha: head });
      await refreshDiff(trx, ctx, updated, now);
      updated = await trx.selectFrom('merge_requests').selectAll().where('id', '=', mr.id).executeTakeFirstOrThrow();
    }
    if (change) {
      await recordStateEvent(trx, { type: 'MergeRequest', id: mr.id }, change.event, user.id, now);
      await recordProjectActivity(trx, project, now);
    }
    const action = change ? (change.event === 'closed' ? 'close' : 'reopen') : 'update';
    await runMergeRequestChanged(trx, { action, by: ctx, before: mr, after: updated, previous });
    return updated;
  });
  return presentMergeRequest(ctx, row, project);
}

