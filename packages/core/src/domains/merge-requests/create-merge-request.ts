import type { Ctx } from '../../access/context.js';
import { recordProjectActivity } from '../../access/project-activity.js';
import { nowIso } from '../../access/context.js';
import { ConflictError, ForbiddenError, UnprocessableError } from '../../kernel/errors.js';
import { nextIid } from '../../kernel/ids.js';
import { authorize, canRead, requireUser } from '../../access/policy.js';
import { bool } from '../../storage/dialect.js';
import { findProject, selectProjectByRef } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { applyLabelChanges, labelChangesOf } from '../labels/index.js';
import { milestoneIdToAssign } from '../milestones/index.js';
import type { MergeRequestDetailEntity } from './merge-request.entity.js';
import { insertMergeRequest, replaceMergeRequestUsers, selectOpenMergeRequestByBranches } from './merge-request.queries.js';
import { checkDistinctBranches, checkMergeRequestFields, isDraftTitle } from './merge-request.rules.js';
import type { CreateMergeRequestInput } from './merge-request.schema.js';
import { eligibleUserIds } from './merge-request-users.js';
import { runMergeRequestChanged } from './merge-request-hooks.js';
import { presentMergeRequest } from './present-merge-requests.js';
import { sourceBranchHead } from './source-branch.js';
import { recordDiffVersion } from './merge-request-diffs.js';

/** GitLab's message when an open merge request already joins the same branches. */
export function duplicateMessage(iid: number): string {
  return `Another open merge request already exists for this source branch: !${iid}`;
}

/**
 * Only same-project merge requests exist (no forks): another project the caller can see is
 * refused as GitLab refuses a non-fork target (422); one it cannot see is ignored, as
 * GitLab's target finder then falls back to the source project.
 */
async function checkTargetProject(ctx: Ctx, project: ProjectRow, targetProjectId: number | undefined): Promise<void> {
  if (targetProjectId === undefined || targetProjectId === project.id) return;
  const target = await selectProjectByRef(ctx, targetProjectId);
  if (target && (await canRead(ctx, { kind: 'project', project: target }))) {
    throw new UnprocessableError(['Source project is not a fork of the target project']);
  }
}

/**
 * POST /projects/:id/merge_requests (Developer). `sha` is the source branch's head; a source
 * branch that does not exist yet is accepted, as GitLab does (`sha` null until commits land
 * on it). Unknown label titles become project labels.
 * source == target → 422; an open merge request for the same branches → 409.
 */
export async function createMergeRequest(ctx: Ctx, input: CreateMergeRequestInput): Promise<MergeRequestDetailEntity> {
  const user = requireUser(ctx);
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'create_merge_request', { kind: 'project', project });
  if (!project.merge_requests_enabled) throw new ForbiddenError();
  await checkTargetProject(ctx, project, input.target_project_id);
  const title = input.title.trim();
  checkDistinctBranches(input.source_branch, input.target_branch);
  checkMergeRequestFields({ title, description: input.description, source_branch: input.source_branch, target_branch: input.target_branch });

  const assigneeIds = await eligibleUserIds(ctx, project, input.assignee_ids ?? (input.assignee_id !== undefined ? [input.assignee_id] : []));
  const reviewerIds = await eligibleUserIds(ctx, project, input.reviewer_ids ?? []);
  const labels = await labelChangesOf(ctx, project, input);
  const milestoneId = (await milestoneIdToAssign(ctx, project, input.milestone_id)) ?? null;
  const now = nowIso(ctx);

  const row = await ctx.db.transaction().execute(async (trx) => {
    // Taking the iid first locks the project's counter row until commit (PostgreSQL), so two
    // creators of the same branches cannot both pass the duplicate check.
    const iid = await nextIid(trx, 'merge_requests', String(project.id));
    const open = await selectOpenMergeRequestByBranches(trx, project.id, input.source_branch, input.target_branch);
    if (open) throw new ConflictError([duplicateMessage(open.iid)]);
    const mr = await insertMergeRequest(trx, {
      project_id: project.id,
      iid,
      title,
      description: input.description ?? null,
      state: 'opened',
      source_branch: input.source_branch,
      target_branch: input.target_branch,
      source_project_id: project.id,
      author_id: user.id,
      milestone_id: milestoneId,
      sha: await sourceBranchHead(trx, project.id, input.source_branch),
      merge_commit_sha: null,
      squash_commit_sha: null,
      draft: bool(isDraftTitle(title)),
      squash: bool(input.squash),
      should_remove_source_branch: bool(input.remove_source_branch),
      discussion_locked: 0,
      merged_at: null,
      merged_by_id: null,
      closed_at: null,
      closed_by_id: null,
      created_at: now,
      updated_at: now,
    });
    // Its first diff version (GitLab's MergeRequests::AfterCreateService#prepare_merge_request).
    await recordDiffVersion(trx, ctx, mr, now);
    await replaceMergeRequestUsers(trx, 'merge_request_assignees', mr.id, assigneeIds);
    await replaceMergeRequestUsers(trx, 'merge_request_reviewers', mr.id, reviewerIds);
    if (labels) await applyLabelChanges(trx, 'MergeRequest', mr.id, labels, now);
    await recordProjectActivity(trx, project, now);
    await runMergeRequestChanged(trx, { action: 'open', by: ctx, before: null, after: mr });
    return mr;
  });
  return presentMergeRequest(ctx, row, project);
}
