/**
 * GitLab's `ApprovalState` for merge requests, computed in batches (a fixed number of
 * queries for a page, plus one ancestry walk per merge request of projects that refuse
 * committers' approvals).
 *
 * - The rules are the merge request's own regular and any-approver rules when the project
 *   allows overriding and it has some ("overwritten"), else the project's rules that apply
 *   to the target branch. Below Premium no rule applies.
 * - A rule's approvers are its active users and its groups' direct members, without the
 *   author (unless `merge_requests_author_approval`) and the committers (when
 *   `merge_requests_disable_committers_approval`).
 * - A regular rule counts the approvals of its approvers; the any-approver rule counts every
 *   approval (author and committers still excluded). A rule is approved when nothing is
 *   left, or (regular) when none of its approvers is left to approve.
 * - approvals_required = max(sum over regular rules, the any-approver rule), and the same for
 *   approvals_left (CONVENTIONS §3.8).
 */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { GUEST } from '../../access/levels.js';
import { accessLevel, can } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { MergeRequestRow } from '../merge-requests/index.js';
import type { MergeRequestApprovalRow } from './approvals.table.js';
import {
  approverIdsOf,
  loadRuleIndex,
  loadRules,
  mergeRequestRuleRows,
  projectRuleRows,
  ruleAppliesToBranch,
  sortUserDefined,
  type LoadedRule,
  type RuleIndex,
} from './rules.js';
import { settingsOfProjects, type ApprovalSettings } from './settings.js';

type Db = Kysely<Database>;

export interface WrappedRule {
  rule: LoadedRule;
  /** Eligible approvers (author and committers filtered as the settings say). */
  approvers: number[];
  /** Users whose approvals count for this rule. */
  approvedApprovers: number[];
  approvalsLeft: number;
  approved: boolean;
}


export interface ApprovalState {
  mergeRequest: MergeRequestRow;
  settings: ApprovalSettings;
  /** The merge request's own rules replace the project's. */
  overwritten: boolean;
  /** User-defined rules in GitLab's order: any-approver first, then by id. */
  rules: WrappedRule[];
  approvals: MergeRequestApprovalRow[];
  approvalsRequired: number;
  approvalsLeft: number;
  approved: boolean;
  committers: Set<number>;
  /** Approvals reset and not yet synced by the queue (`approvals_syncing` when not approved). */
  temporarilyUnapproved: boolean;
  index: RuleIndex;
}

/**
 * Users who made commits on the source branch: commits reachable from the merge request's
 * head and not from the target branch's head (recursive walks over commit parents), matched
 * by recorded user or by author / committer email.
 */
export async function committersOf(db: Db, mr: MergeRequestRow): Promise<Set<number>> {
  const target = await db
    .selectFrom('repository_refs')
    .select('commit_sha')
    .where('project_id', '=', mr.project_id)
    .where('kind', '=', 'branch')
    .where('name', '=', mr.target_branch)
    .executeTakeFirst();
  const projectId = mr.source_project_id;
  const walk = (name: string) => sql`
    select p.parent_sha as sha from repository_commit_parents p
      join repository_commits c on c.id = p.commit_id
      join ${sql.table(name)} w on w.sha = c.sha
      where c.project_id = ${projectId}`;
  const targetHead = target?.commit_sha || '';
  const result = await sql<{ user_id: number | null; author_email: string; committer_email: string }>`
    with recursive src(sha) as (select cast(${mr.sha} as text) as sha union ${walk('src')}),
      tgt(sha) as (select cast(${targetHead} as text) as sha union ${walk('tgt')})
    select distinct c.user_id, c.author_email, c.committer_email from repository_commits c
      where c.project_id = ${projectId}
        and c.sha in (select sha from src)
        and c.sha not in (select sha from tgt)`.execute(db);
  const ids = new Set<number>();
  const emails = new Set<string>();
  for (const r of result.rows) {
    if (r.user_id !== null) ids.add(Number(r.user_id));
    if (r.author_email) emails.add(r.author_email.toLowerCase());
    if (r.committer_email) emails.add(r.committer_email.toLowerCase());
  }
  if (emails.size) {
    const byEmail = await db
      .selectFrom('users')
      .select('id')
      .where(sql`lower(email)`, 'in', [...emails])
      .execute();
    for (const u of byEmail) ids.add(u.id);
  }
  return ids;
}

function wrap(rule: LoadedRule, index: RuleIndex, approvals: MergeRequestApprovalRow[], exclude: (id: number) => boolean): WrappedRule {
  const approvers = approverIdsOf(rule, index).filter((id) => !exclude(id));
  const approvedIds = approvals.map((a) => a.user_id);
  const anyApprover = rule.row.rule_type === 'any_approver';
  const approvedApprovers = anyApprover ? approvedIds.filter((id) => !exclude(id)) : approvers.filter((id) => approvedIds.includes(id));
  const approvalsLeft = Math.max(rule.row.approvals_required - approvedApprovers.length, 0);
  const unactioned = approvers.filter((id) => !approvedApprovers.includes(id));
  const approved = anyApprover ? approvalsLeft <= 0 : approvalsLeft <= 0 || unactioned.length === 0;
  return { rule, approvers, approvedApprovers, approvalsLeft, approved };
}

/** Approval states of merge requests (their projects' rows are passed in). */
export async function approvalStatesOf(ctx: Ctx, mrs: MergeRequestRow[]): Promise<Map<number, ApprovalState>> {
  const out = new Map<number, ApprovalState>();
  if (!mrs.length) return out;
  const db = ctx.db;
  const mrIds = mrs.map((m) => m.id);
  const rulesAvailable = tierAtLeast(ctx.config.tier, 'premium');
  const [settings, projectRows, mrRows, approvals, syncs] = await Promise.all([
    settingsOfProjects(db, mrs.map((m) => m.project_id)),
    rulesAvailable ? projectRuleRows(db, mrs.map((m) => m.project_id)) : [],
    rulesAvailable ? mergeRequestRuleRows(db, mrIds) : [],
    db.selectFrom('merge_request_approvals').selectAll().where('merge_request_id', 'in', mrIds).orderBy('id').execute(),
    db.selectFrom('merge_request_approval_syncs').selectAll().where('merge_request_id', 'in', mrIds).execute(),
  ]);
  const loaded = await loadRules(db, [...projectRows, ...mrRows]);
  const index = await loadRuleIndex(
    db,
    loaded,
    ctx.clock.now().toISOString().slice(0, 10),
    approvals.map((a) => a.user_id),
  );
  for (const mr of mrs) {
    const s = settings.get(mr.project_id)!;
    const own = loaded.filter((r) => r.row.merge_request_id === mr.id && (r.row.rule_type === 'regular' || r.row.rule_type === 'any_approver'));
    const overwritten = !s.disable_overriding_approvers_per_merge_request && own.length > 0;
    const chosen = overwritten
      ? sortUserDefined(own)
      : loaded.filter((r) => r.row.merge_request_id === null && r.row.project_id === mr.project_id && ruleAppliesToBranch(r, index, mr.target_branch));
    const committers = s.merge_requests_disable_committers_approval ? await committersOf(db, mr) : new Set<number>();
    const exclude = (id: number) => (!s.merge_requests_author_approval && id === mr.author_id) || committers.has(id);
    const mrApprovals = approvals.filter((a) => a.merge_request_id === mr.id);
    const rules = chosen.map((r) => wrap(r, index, mrApprovals, exclude));
    const regular = rules.filter((r) => r.rule.row.rule_type !== 'any_approver');
    const any = rules.filter((r) => r.rule.row.rule_type === 'any_approver');
    const sum = (list: WrappedRule[], f: (r: WrappedRule) => number) => list.reduce((n, r) => n + f(r), 0);
    const maxOf = (list: WrappedRule[], f: (r: WrappedRule) => number) => list.reduce((n, r) => Math.max(n, f(r)), 0);
    const sync = syncs.find((x) => x.merge_request_id === mr.id);
    out.set(mr.id, {
      mergeRequest: mr,
      settings: s,
      overwritten,
      rules,
      approvals: mrApprovals,
      approvalsRequired: Math.max(sum(regular, (r) => r.rule.row.approvals_required), maxOf(any, (r) => r.rule.row.approvals_required)),
      approvalsLeft: Math.max(sum(regular, (r) => r.approvalsLeft), maxOf(any, (r) => r.approvalsLeft)),
      approved: rules.every((r) => r.approved),
      committers,
      temporarilyUnapproved: sync !== undefined,
      index,
    });
  }
  return out;
}

export async function approvalStateOf(ctx: Ctx, mr: MergeRequestRow): Promise<ApprovalState> {
  return (await approvalStatesOf(ctx, [mr])).get(mr.id)!;
}

/**
 * GitLab's `approve_merge_request` ability: `update_merge_request` (Developer, or Guest who
 * authored or is assigned the merge request) and membership of the project.
 */
export async function mayApprove(ctx: Ctx, project: ProjectRow, mr: MergeRequestRow): Promise<boolean> {
  const user = ctx.actor.user;
  if (!user) return false;
  // Members only (an administrator who is not one cannot approve, as in GitLab).
  const level = await accessLevel(ctx, { kind: 'project', project });
  if (level < GUEST) return false;
  // Developers, and members whose custom role has `admin_merge_request`, through the policy.
  if (await can(ctx, 'approve_merge_request', { kind: 'project', project })) return true;
  if (mr.author_id === user.id) return true;
  const assigned = await ctx.db
    .selectFrom('merge_request_assignees')
    .select('user_id')
    .where('merge_request_id', '=', mr.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return Boolean(assigned);
}

/**
 * `ApprovalState#eligible_for_approval_by?` once the ability is known: not yet approved,
 * not the author unless authors may approve, not a committer when committers may not.
 */
export function eligibleToApprove(state: ApprovalState, userId: number): boolean {
  if (state.approvals.some((a) => a.user_id === userId)) return false;
  if (!state.settings.merge_requests_author_approval && state.mergeRequest.author_id === userId) return false;
  if (state.committers.has(userId)) return false;
  return true;
}
