/**
 * Merge request approval rules: `/projects/:id/merge_requests/:merge_request_iid/approval_rules`.
 * Reading needs the merge request; writing needs GitLab's `update_approvers` (may update the
 * merge request, and the project allows overriding approvers: 403 otherwise). Once a merge
 * request has rules of its own they replace the project's in its approval state.
 * `approval_project_rule_id` copies a project rule's name, users and groups.
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findMergeRequest } from '../merge-requests/index.js';
import type { MergeRequestRow } from '../merge-requests/index.js';
import { mayApprove } from './approval-state.js';
import type {
  CreateMergeRequestRuleInput,
  ListMergeRequestRulesInput,
  MergeRequestRuleRefInput,
  UpdateMergeRequestRuleInput,
} from './approvals.schema.js';
import {
  approversGiven,
  checkUnique,
  groupIdsParam,
  hiddenGroupsOf,
  replaceRuleLinks,
  resolveApproverUsers,
  resolveVisibleGroups,
  selectRule,
  throwIfErrors,
  validateRuleFields,
} from './rule-writes.js';
import { loadRules, presentMergeRequestRules, type MergeRequestApprovalRuleEntity } from './rules.js';
import { settingsOf } from './settings.js';

const RULE_NOT_FOUND = () => new NotFoundError(null, { exact: '404 Not found' });

/** `update_approvers`: `update_merge_request` and `can_override_approvers`. */
async function findEditable(ctx: Ctx, ref: string, iid: number): Promise<{ project: ProjectRow; mergeRequest: MergeRequestRow }> {
  const found = await findMergeRequest(ctx, ref, iid);
  // `update_merge_request`: Developer (admins too), or the author / an assignee with Guest.
  const updates = (await can(ctx, 'update_merge_request', { kind: 'project', project: found.project })) || (await mayApprove(ctx, found.project, found.mergeRequest));
  if (!updates) throw new ForbiddenError();
  if ((await settingsOf(ctx.db, found.project.id)).disable_overriding_approvers_per_merge_request) throw new ForbiddenError();
  return found;
}

async function presentOne(ctx: Ctx, id: number): Promise<MergeRequestApprovalRuleEntity> {
  const row = await ctx.db.selectFrom('approval_rules').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return (await presentMergeRequestRules(ctx, [row]))[0]!;
}

/** GET …/approval_rules (paginated, by id). */
export async function listMergeRequestRules(ctx: Ctx, input: ListMergeRequestRulesInput): Promise<Page<MergeRequestApprovalRuleEntity>> {
  const { mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const q = ctx.db.selectFrom('approval_rules').selectAll().where('merge_request_id', '=', mergeRequest.id).orderBy('id');
  return paginate(ctx.db, q, input, (rows) => presentMergeRequestRules(ctx, rows));
}

/** GET …/approval_rules/:approval_rule_id */
export async function getMergeRequestRule(ctx: Ctx, input: MergeRequestRuleRefInput): Promise<MergeRequestApprovalRuleEntity> {
  const { project, mergeRequest } = await findMergeRequest(ctx, input.id, input.merge_request_iid);
  const row = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: mergeRequest.id });
  if (!row) throw RULE_NOT_FOUND();
  return (await presentMergeRequestRules(ctx, [row]))[0]!;
}

/** POST …/approval_rules: a regular rule of the merge request. */
export async function createMergeRequestRule(ctx: Ctx, input: CreateMergeRequestRuleInput): Promise<MergeRequestApprovalRuleEntity> {
  const { project, mergeRequest } = await findEditable(ctx, input.id, input.merge_request_iid);
  throwIfErrors(validateRuleFields({ name: input.name, approvals_required: input.approvals_required }));
  let name = input.name;
  let userIds: number[];
  let groupIds: number[];
  let sourceId: number | null = null;
  const source =
    input.approval_project_rule_id === undefined ? undefined : await selectRule(ctx.db, input.approval_project_rule_id, { projectId: project.id, mergeRequestId: null });
  if (source) {
    const [loaded] = await loadRules(ctx.db, [source]);
    name = source.name;
    userIds = loaded!.userIds;
    groupIds = loaded!.groupIds;
    sourceId = source.id;
  } else {
    const given = approversGiven(input);
    userIds = given.users ? await resolveApproverUsers(ctx, project, input) : [];
    groupIds = given.groups ? await resolveVisibleGroups(ctx, groupIdsParam(input) ?? []) : [];
  }
  const now = nowIso(ctx);
  const id = await ctx.db.transaction().execute(async (trx) => {
    const unique = {};
    await checkUnique(trx, { projectId: project.id, mergeRequestId: mergeRequest.id }, { name, rule_type: 'regular' }, unique);
    throwIfErrors(unique);
    const rule = await trx
      .insertInto('approval_rules')
      .values({
        project_id: project.id,
        merge_request_id: mergeRequest.id,
        name,
        rule_type: 'regular',
        report_type: null,
        approvals_required: input.approvals_required,
        applies_to_all_protected_branches: 0,
        source_rule_id: sourceId,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceRuleLinks(trx, 'approval_rule_users', rule.id, userIds);
    await replaceRuleLinks(trx, 'approval_rule_groups', rule.id, groupIds);
    return rule.id;
  });
  return presentOne(ctx, id);
}

/** PUT …/approval_rules/:approval_rule_id */
export async function updateMergeRequestRule(ctx: Ctx, input: UpdateMergeRequestRuleInput): Promise<MergeRequestApprovalRuleEntity> {
  const { project, mergeRequest } = await findEditable(ctx, input.id, input.merge_request_iid);
  const current = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: mergeRequest.id });
  if (!current) throw RULE_NOT_FOUND();
  throwIfErrors(validateRuleFields({ name: input.name, approvals_required: input.approvals_required }));
  const given = approversGiven(input);
  const userIds = given.users ? await resolveApproverUsers(ctx, project, input) : undefined;
  let groupIds: number[] | undefined;
  if (given.groups) {
    groupIds = await resolveVisibleGroups(ctx, groupIdsParam(input) ?? []);
    if (!input.remove_hidden_groups) groupIds = [...new Set([...groupIds, ...(await hiddenGroupsOf(ctx, current.id))])];
  }
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    const name = input.name ?? current.name;
    const unique = {};
    await checkUnique(trx, { projectId: project.id, mergeRequestId: mergeRequest.id }, { name, rule_type: current.rule_type, exceptId: current.id }, unique);
    throwIfErrors(unique);
    await trx
      .updateTable('approval_rules')
      .set({ name, approvals_required: input.approvals_required ?? current.approvals_required, updated_at: now })
      .where('id', '=', current.id)
      .execute();
    if (userIds) await replaceRuleLinks(trx, 'approval_rule_users', current.id, userIds);
    if (groupIds) await replaceRuleLinks(trx, 'approval_rule_groups', current.id, groupIds);
  });
  return presentOne(ctx, current.id);
}

/** DELETE …/approval_rules/:approval_rule_id (204). */
export async function deleteMergeRequestRule(ctx: Ctx, input: MergeRequestRuleRefInput): Promise<void> {
  const { project, mergeRequest } = await findEditable(ctx, input.id, input.merge_request_iid);
  const current = await selectRule(ctx.db, input.approval_rule_id, { projectId: project.id, mergeRequestId: mergeRequest.id });
  if (!current) throw RULE_NOT_FOUND();
  await ctx.db.deleteFrom('approval_rules').where('id', '=', current.id).execute();
}
