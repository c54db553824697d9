import type { Ctx } from '../../access/context.js';
import { projectActivityDue, recordProjectActivity } from '../../access/project-activity.js';
import { nowIso } from '../../access/context.js';
import { ForbiddenError } from '../../kernel/errors.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { bool } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import { applyLabelChanges, labelChangesOf } from '../labels/index.js';
import { milestoneIdToAssign } from '../milestones/index.js';
import type { IssueEntity } from './issue.entity.js';
import { assignableUsers, checkIssueText, requestedAssignees } from './issue-fields.js';
import { insertNewIssue, insertNewIssueAlone, replaceAssignees } from './issue.queries.js';
import type { CreateIssueInput } from './issue.schema.js';
import { presentIssues } from './present-issues.js';
import { issueChanged, issueCreationQuiet } from './issue-hooks.js';

/**
 * POST /projects/:id/issues. Needs create_issue (Guest); a new issue's author may set its
 * labels, assignees and confidentiality (GitLab lets Guests set metadata on creation).
 * Unknown label titles become project labels in the same transaction. `created_at` is
 * honoured for admins and owners only; an incident by someone below Reporter is an issue.
 */
export async function createIssue(ctx: Ctx, input: CreateIssueInput): Promise<IssueEntity> {
  const user = requireUser(ctx);
  const project = await findProject(ctx, input.id);
  const subject = { kind: 'project', project } as const;
  await authorize(ctx, 'create_issue', subject);
  if (!project.issues_enabled) throw new ForbiddenError();
  checkIssueText(input);
  const issueType = input.issue_type === 'incident' && !(await can(ctx, 'admin_issue', subject)) ? 'issue' : (input.issue_type ?? 'issue');
  const mayBackdate = input.created_at !== undefined && (await can(ctx, 'set_issue_created_at', subject));
  const requested = requestedAssignees(input);
  const assignees = requested ? await assignableUsers(ctx, project, requested) : [];
  const labels = await labelChangesOf(ctx, project, input);
  const milestoneId = (await milestoneIdToAssign(ctx, project, input.milestone_id)) ?? null;
  const now = nowIso(ctx);
  const values = {
    project_id: project.id,
    title: input.title,
    description: input.description ?? null,
    state: 'opened',
    issue_type: issueType,
    confidential: bool(input.confidential),
    discussion_locked: bool(input.discussion_locked),
    author_id: user.id,
    milestone_id: milestoneId,
    due_date: input.due_date ?? null,
    weight: tierAtLeast(ctx.config.tier, 'premium') ? (input.weight ?? null) : null,
    closed_at: null,
    closed_by_id: null,
    created_at: mayBackdate ? input.created_at!.toISOString() : now,
    updated_at: now,
  };
  // Nothing but the issue to write (no labels, assignees, project activity, or reaction that
  // would act): the insert commits alone, in one round trip on PostgreSQL.
  const alone = !labels && !assignees.length && !projectActivityDue(project, now) && (await issueCreationQuiet(ctx.db, values));
  const row = alone
    ? await insertNewIssueAlone(ctx.db, values)
    : await ctx.db.transaction().execute(async (trx) => {
        const issue = await insertNewIssue(trx, values);
        if (labels) await applyLabelChanges(trx, 'Issue', issue.id, labels, now);
        if (assignees.length) await replaceAssignees(trx, issue.id, assignees.map((u) => u.id));
        await recordProjectActivity(trx, project, now);
        return issueChanged(trx, null, issue, { by: ctx }); // other domains follow (DORA: an incident counts on the day it opens)
      });
  const [entity] = await presentIssues(ctx, [row], [project], { assignees, labelled: labels !== undefined });
  return entity!;
}
