/**
 * Project approval rules: `/projects/:id/approval_rules[/:approval_rule_id]`. Reading needs
 * what creating merge requests needs (Developer) or Maintainer; writing needs Maintainer
 * (`admin_project`), as GitLab's ProjectApprovalRulesHelpers.
 *
 * Create follows `ApprovalRules::CreateService`: without approvers and without `rule_type`
 * the rule is the any-approver rule; `report_approver` rules come from approval policies and
 * are refused here (after the model's own `report_type` presence check). With
 * `applies_to_all_protected_branches` the `protected_branch_ids` are ignored.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can } from '../../access/policy.js';
import { bool } from '../../storage/dialect.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CreateProjectRuleInput, ListRulesInput, ProjectRuleRefInput, UpdateProjectRuleInput } from './approvals.schema.js';
import type { ApprovalRuleType } from './approvals.table.js';
import {
  approversGiven,
  checkUnique,
  groupIdsParam,
  hiddenGroupsOf,
  replaceRuleLinks,
  resolveApproverUsers,
  resolveProtectedBranches,
  resolveVisibleGroups,
  selectRule,
  throwIfErrors,
  validateRuleFields,
} from './rule-writes.js';
import { presentProjectRules, type ProjectApprovalRuleEntity } from './rules.js';

const RULE_NOT_FOUND = () => new NotFoundError(null, { exact: '404 Not found' });

/** `authorize_read_project_approval_rule!`: Maintainer, or who may create merge requests. */
async function findReadableProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  const subject = { kind: 'project' as const, project };
  if (!(await can(ctx, 'admin_project', subject))) await authorize(ctx, 'create_merge_request', subject);
  return project;
}

async function findAdministeredProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  const project = await findProject(ctx, ref);
  await authorize(ctx, 'admin_project', { kind: 'project', project });
  return project;
}

async function presentOne(ctx: Ctx, id: number): Promise<ProjectApprovalRuleEntity> {
  const row = await ctx.db.selectFrom('approval_rules').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return (await presentProjectRules(ctx, [row]))[0]!;
}

/** GET /projects/:id/approval_rules (paginated; the any-approver rule first, then by id). */
export async function listProjectRules(ctx: Ctx, input: ListRulesInput): Promise<Page<ProjectApprovalRuleEntity>> {
  const project = await findReadableProject(ctx, input.id);
  const q = ctx.db
    .selectFrom('approval_rules')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('merge_request_id', 'is', null)
    .orderBy((eb) => eb.case().when('rule_type', '=', 'any_approver').then(0).else(1).end())
    .orderBy('id');
  return paginate(ctx.db, q, input, (rows) => presentProjectRules(ctx, rows));
}

/** GET /projects/:id/approval_rules/:approval_rule_id */
export async function getProjectRule(ctx: Ctx, input: ProjectRuleRefInput): Promise<ProjectApprovalRuleEntity> {
  const project = await findReadableProject(ctx, input.id);
  const row = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: null });
  if (!row) throw RULE_NOT_FOUND();
  return (await presentProjectRules(ctx, [row]))[0]!;
}

/** POST /projects/:id/approval_rules */
export async function createProjectRule(ctx: Ctx, input: CreateProjectRuleInput): Promise<ProjectApprovalRuleEntity> {
  const project = await findAdministeredProject(ctx, input.id);
  const given = approversGiven(input);
  const named = Boolean(input.user_ids?.length || input.users?.length || input.usernames?.length || groupIdsParam(input)?.length);
  const ruleType: ApprovalRuleType = input.rule_type ?? (named ? 'regular' : 'any_approver');
  const errors = validateRuleFields({ name: input.name, approvals_required: input.approvals_required });
  if (ruleType === 'report_approver') {
    if (!input.report_type) (errors.report_type ??= []).push("can't be blank");
    else (errors.rule_type ??= []).push('report_approver rules are created from approval policies and cannot be created with this endpoint');
  }
  throwIfErrors(errors);
  const userIds = given.users ? await resolveApproverUsers(ctx, project, input) : [];
  const groupIds = given.groups ? await resolveVisibleGroups(ctx, groupIdsParam(input) ?? []) : [];
  const appliesToAll = input.applies_to_all_protected_branches;
  const branchIds = appliesToAll ? [] : await resolveProtectedBranches(ctx.db, project.id, input.protected_branch_ids ?? []);
  const now = nowIso(ctx);
  const id = await ctx.db.transaction().execute(async (trx) => {
    const unique = {};
    await checkUnique(trx, { projectId: project.id, mergeRequestId: null }, { name: input.name, rule_type: ruleType }, unique);
    throwIfErrors(unique);
    const rule = await trx
      .insertInto('approval_rules')
      .values({
        project_id: project.id,
        merge_request_id: null,
        name: input.name,
        rule_type: ruleType,
        report_type: ruleType === 'report_approver' ? (input.report_type ?? null) : null,
        approvals_required: input.approvals_required,
        applies_to_all_protected_branches: bool(appliesToAll),
        source_rule_id: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceRuleLinks(trx, 'approval_rule_users', rule.id, userIds);
    await replaceRuleLinks(trx, 'approval_rule_groups', rule.id, groupIds);
    await replaceRuleLinks(trx, 'approval_rule_protected_branches', rule.id, branchIds);
    return rule.id;
  });
  return presentOne(ctx, id);
}

/**
 * PUT /projects/:id/approval_rules/:approval_rule_id: users and groups are replaced when
 * given (hidden groups stay unless `remove_hidden_groups`); `applies_to_all_protected_branches`
 * is set on every update (false when absent, as GitLab's declared default makes it).
 */
export async function updateProjectRule(ctx: Ctx, input: UpdateProjectRuleInput): Promise<ProjectApprovalRuleEntity> {
  const project = await findAdministeredProject(ctx, input.id);
  const current = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: null });
  if (!current) throw RULE_NOT_FOUND();
  throwIfErrors(validateRuleFields({ name: input.name, approvals_required: input.approvals_required }));
  const given = approversGiven(input);
  const userIds = given.users ? await resolveApproverUsers(ctx, project, input) : undefined;
  let groupIds: number[] | undefined;
  if (given.groups) {
    groupIds = await resolveVisibleGroups(ctx, groupIdsParam(input) ?? []);
    if (!input.remove_hidden_groups) groupIds = [...new Set([...groupIds, ...(await hiddenGroupsOf(ctx, current.id))])];
  }
  const appliesToAll = input.applies_to_all_protected_branches;
  const branchIds = appliesToAll
    ? []
    : input.protected_branch_ids !== undefined
      ? await resolveProtectedBranches(ctx.db, project.id, input.protected_branch_ids)
      : undefined;
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const name = input.name ?? current.name;
    const unique = {};
    await checkUnique(trx, { projectId: project.id, mergeRequestId: null }, { name, rule_type: current.rule_type, exceptId: current.id }, unique);
    throwIfErrors(unique);
    await trx
      .updateTable('approval_rules')
      .set({
        name,
        approvals_required: input.approvals_required ?? current.approvals_required,
        applies_to_all_protected_branches: bool(appliesToAll),
        updated_at: now,
      })
      .where('id', '=', current.id)
      .execute();
    if (userIds) await replaceRuleLinks(trx, 'approval_rule_users', current.id, userIds);
    if (groupIds) await replaceRuleLinks(trx, 'approval_rule_groups', current.id, groupIds);
    if (branchIds) await replaceRuleLinks(trx, 'approval_rule_protected_branches', current.id, branchIds);
  });
  return presentOne(ctx, current.id);
}

/** DELETE /projects/:id/approval_rules/:approval_rule_id (204). */
export async function deleteProjectRule(ctx: Ctx, input: ProjectRuleRefInput): Promise<void> {
  const project = await findAdministeredProject(ctx, input.id);
  const current = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: null });
  if (!current) throw RULE_NOT_FOUND();
  await ctx.db.deleteFrom('approval_rules').where('id', '=', current.id).execute();
}
