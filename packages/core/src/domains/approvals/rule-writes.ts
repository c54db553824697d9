/**
 * What project and merge request rule writes share (GitLab's `ApprovalRules::Updater` and
 * the rule models' validations): approvers are resolved from `user_ids` and `usernames`
 * together and kept only when they are members of the project; groups only when the caller
 * can see them; protected branches only the project's. Model errors answer 400
 * `{"message":{"field":["..."]}}`.
 */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { MINIMAL_ACCESS } from '../../access/levels.js';
import { BadRequestError } from '../../kernel/errors.js';
import { canRead, namespaceOf, traversalIds } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { ApprovalRuleRow, ApprovalRuleType } from './approvals.table.js';

type Db = Kysely<Database>;

export const NAME_LENGTH_LIMIT = 1024;
export const APPROVALS_REQUIRED_MAX = 100;

/** `user_ids` (or GitLab's internal `users`), `group_ids` (or `groups`), `usernames`. */
export interface ApproverParams {
  user_ids?: number[];
  users?: number[];
  group_ids?: number[];
  groups?: number[];
  usernames?: string[];
}

export const userIdsParam = (p: ApproverParams) => p.user_ids ?? p.users;
export const groupIdsParam = (p: ApproverParams) => p.group_ids ?? p.groups;

/** Were approvers (users or groups) given at all? Keys given empty still replace the lists. */
export function approversGiven(p: ApproverParams): { users: boolean; groups: boolean } {
  return { users: userIdsParam(p) !== undefined || p.usernames !== undefined, groups: groupIdsParam(p) !== undefined };
}

/** Users named by ids or usernames who are members of the project (`Project#members_among`). */
export async function resolveApproverUsers(ctx: Ctx, project: ProjectRow, p: ApproverParams): Promise<number[]> {
  const ids = userIdsParam(p) ?? [];
  const names = (p.usernames ?? []).map((n) => n.toLowerCase());
  if (!ids.length && !names.length) return [];
  const users = await ctx.db
    .selectFrom('users')
    .select('id')
    .where((eb) => {
      const ors = [];
      if (ids.length) ors.push(eb('id', 'in', ids));
      if (names.length) ors.push(eb(sql`lower(username)`, 'in', names));
      return eb.or(ors);
    })
    .execute();
  const candidates = users.map((u) => u.id);
  if (!candidates.length) return [];
  const today = ctx.clock.now().toISOString().slice(0, 10);
  const namespace = await namespaceOf(ctx, project.namespace_id);
  const groups = namespace.kind === 'group' ? traversalIds(namespace.traversal) : [];
  const members = await ctx.db
    .selectFrom('members')
    .select('user_id')
    .distinct()
    .where('user_id', 'in', candidates)
    .where('access_level', '>', MINIMAL_ACCESS)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
    .where((eb) => {
      const ors = [eb.and([eb('source_kind', '=', 'project'), eb('source_id', '=', project.id)])];
      if (groups.length) ors.push(eb.and([eb('source_kind', '=', 'namespace'), eb('source_id', 'in', groups)]));
      return eb.or(ors);
    })
    .execute();
  const out = new Set(members.map((m) => m.user_id));
  if (namespace.kind === 'user' && namespace.owner_id !== null && candidates.includes(namespace.owner_id)) out.add(namespace.owner_id);
  return [...out].sort((a, b) => a - b);
}

/** Groups among `ids` the caller can see (`Group.accessible_to_user`). */
export async function resolveVisibleGroups(ctx: Ctx, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await ctx.db.selectFrom('namespaces').selectAll().where('id', 'in', [...new Set(ids)]).where('kind', '=', 'group').execute();
  const out: number[] = [];
  for (const group of rows) if (await canRead(ctx, { kind: 'group', group })) out.push(group.id);
  return out.sort((a, b) => a - b);
}

/** Protected branches among `ids` that belong to the project. */
export async function resolveProtectedBranches(db: Db, projectId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom('protected_branches').select('id').where('project_id', '=', projectId).where('id', 'in', [...new Set(ids)]).orderBy('id').execute();
  return rows.map((r) => r.id);
}

type Errors = Record<string, string[]>;

function add(errors: Errors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

/** The rule models' own validations (`ApprovalRuleLike`). */
export function validateRuleFields(fields: { name?: string; approvals_required?: number }, errors: Errors = {}): Errors {
  if (fields.name !== undefined) {
    if (!fields.name.trim()) add(errors, 'name', "can't be blank");
    else if (fields.name.length > NAME_LENGTH_LIMIT) add(errors, 'name', `is too long (maximum is ${NAME_LENGTH_LIMIT} characters)`);
  }
  if (fields.approvals_required !== undefined) {
    if (fields.approvals_required < 0) add(errors, 'approvals_required', 'must be greater than or equal to 0');
    else if (fields.approvals_required > APPROVALS_REQUIRED_MAX) add(errors, 'approvals_required', `must be less than or equal to ${APPROVALS_REQUIRED_MAX}`);
  }
  return errors;
}

export function throwIfErrors(errors: Errors): void {
  if (Object.keys(errors).length) throw new BadRequestError(errors);
}

/**
 * Uniqueness, checked inside the writing transaction: the name among the container's rules
 * of the same type, and one any-approver rule per project.
 */
export async function checkUnique(
  trx: Db,
  container: { projectId: number; mergeRequestId: number | null },
  rule: { name: string; rule_type: ApprovalRuleType; exceptId?: number },
  errors: Errors,
): Promise<void> {
  const base = () => trx.selectFrom('approval_rules').select('id').where('project_id', '=', container.projectId).where('id', '!=', rule.exceptId ?? 0);
  const scope = (q: ReturnType<typeof base>) =>
    container.mergeRequestId === null ? q.where('merge_request_id', 'is', null) : q.where('merge_request_id', '=', container.mergeRequestId);
  const sameName = await scope(base()).where('rule_type', '=', rule.rule_type).where('name', '=', rule.name).executeTakeFirst();
  if (sameName) add(errors, 'name', 'has already been taken');
  if (rule.rule_type === 'any_approver' && container.mergeRequestId === null) {
    const other = await scope(base()).where('rule_type', '=', 'any_approver').executeTakeFirst();
    if (other) add(errors, 'rule_type', 'any-approver for the project already exists');
  }
}

/** Replaces one of a rule's lists. */
export async function replaceRuleLinks(
  trx: Db,
  table: 'approval_rule_users' | 'approval_rule_groups' | 'approval_rule_protected_branches',
  ruleId: number,
  ids: number[],
): Promise<void> {
  await trx.deleteFrom(table).where('rule_id', '=', ruleId).execute();
  if (!ids.length) return;
  const unique = [...new Set(ids)];
  if (table === 'approval_rule_users') await trx.insertInto(table).values(unique.map((user_id) => ({ rule_id: ruleId, user_id }))).execute();
  else if (table === 'approval_rule_groups') await trx.insertInto(table).values(unique.map((group_id) => ({ rule_id: ruleId, group_id }))).execute();
  else await trx.insertInto(table).values(unique.map((protected_branch_id) => ({ rule_id: ruleId, protected_branch_id }))).execute();
}

/** The groups of a rule the caller cannot see: kept on update unless `remove_hidden_groups`. */
export async function hiddenGroupsOf(ctx: Ctx, ruleId: number): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom('approval_rule_groups')
    .innerJoin('namespaces', 'namespaces.id', 'approval_rule_groups.group_id')
    .selectAll('namespaces')
    .where('approval_rule_groups.rule_id', '=', ruleId)
    .execute();
  const out: number[] = [];
  for (const group of rows) if (!(await canRead(ctx, { kind: 'group', group }))) out.push(group.id);
  return out;
}

export async function selectRule(db: Db, id: number, container: { projectId: number; mergeRequestId: number | null }): Promise<ApprovalRuleRow | undefined> {
  let q = db.selectFrom('approval_rules').selectAll().where('id', '=', id).where('project_id', '=', container.projectId);
  q = container.mergeRequestId === null ? q.where('merge_request_id', 'is', null) : q.where('merge_request_id', '=', container.mergeRequestId);
  return q.executeTakeFirst();
}
