/**
 * Issue lists: `GET /projects/:id/issues`, `GET /groups/:id/issues`, `GET /issues`. Every
 * filter, the visibility of projects and of confidential issues, the order and the page are
 * decided in SQL.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { UnauthorizedError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { authorize, can } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { projectMembershipFilter, visibleProjectsFilter } from '../../access/visibility.queries.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { labelPriorityKey, normalizeLabelTitles } from '../labels/index.js';
import { milestoneFilter } from '../milestones/index.js';
import type { IssueRow } from './issue.table.js';
import type { IssueEntity } from './issue.entity.js';
import type { IssueFilters, ListGroupIssuesInput, ListIssuesInput, ListProjectIssuesInput } from './issue.schema.js';
import { presentIssues } from './present-issues.js';

type IssueEB = ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>;

const never = sql<SqlBool>`1 = 0`;

/** `%text%` for LIKE, with the caller's `%`, `_` and `\` taken literally. */
function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function labelOnIssue(eb: IssueEB, title?: string) {
  let q = eb
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .select(sql`1`.as('one'))
    .where('ll.target_type', '=', 'Issue')
    .whereRef('ll.target_id', '=', 'i.id');
  if (title !== undefined) q = q.where('l.title', '=', title);
  return eb.exists(q);
}

function assignedTo(eb: IssueEB, userId?: number) {
  let q = eb.selectFrom('issue_assignees as ia').select(sql`1`.as('one')).whereRef('ia.issue_id', '=', 'i.id');
  if (userId !== undefined) q = q.where('ia.user_id', '=', userId);
  return eb.exists(q);
}

/** The request's filters as one condition on `issues as i`. */
function filterCondition(ctx: Ctx, eb: IssueEB, input: IssueFilters): Expression<SqlBool> {
  const user = ctx.actor.user;
  const and: Expression<SqlBool>[] = [];
  if (input.state !== 'all') and.push(eb('i.state', '=', input.state));
  const scope = input.scope.replace(/-/g, '_');
  if (scope === 'created_by_me') and.push(user ? eb('i.author_id', '=', user.id) : never);
  if (scope === 'assigned_to_me') and.push(user ? assignedTo(eb, user.id) : never);
  if (input.labels) {
    const titles = normalizeLabelTitles(input.labels);
    const only = titles.length === 1 ? titles[0]!.toLowerCase() : '';
    if (only === 'none' || only === 'no label') and.push(eb.not(labelOnIssue(eb)));
    else if (only === 'any') and.push(labelOnIssue(eb));
    else for (const title of titles) and.push(labelOnIssue(eb, title));
  }
  if (input.milestone !== undefined) and.push(milestoneFilter('i.milestone_id', input.milestone, isoDate(ctx.clock.now())));
  if (input.iids) and.push(input.iids.length ? eb('i.iid', 'in', input.iids) : never);
  if (input.search) {
    const fields = (input.in ?? 'title,description').split(',').map((s) => s.trim());
    const like = containsPattern(input.search);
    const ors: Expression<SqlBool>[] = [];
    if (fields.includes('title')) ors.push(sql<SqlBool>`lower(i.title) like ${like} escape '\\'`);
    if (fields.includes('description')) ors.push(sql<SqlBool>`lower(i.description) like ${like} escape '\\'`);
    and.push(ors.length ? eb.or(ors) : never);
  }
  if (input.author_id !== undefined) and.push(eb('i.author_id', '=', input.author_id));
  if (input.author_username !== undefined) {
    const authors = eb.selectFrom('users as au').select('au.id').where(sql`lower(au.username)`, '=', input.author_username.toLowerCase());
    and.push(eb('i.author_id', 'in', authors));
  }
  if (input.assignee_id === 'None') and.push(eb.not(assignedTo(eb)));
  else if (input.assignee_id === 'Any') and.push(assignedTo(eb));
  else if (input.assignee_id !== undefined) and.push(assignedTo(eb, input.assignee_id));
  for (const username of input.assignee_username ?? []) {
    and.push(
      eb.exists(
        eb
          .selectFrom('issue_assignees as ia')
          .innerJoin('users as au', 'au.id', 'ia.user_id')
          .select(sql`1`.as('one'))
          .whereRef('ia.issue_id', '=', 'i.id')
          .where(sql`lower(au.username)`, '=', username.toLowerCase()),
      ),
    );
  }
  if (input.my_reaction_emoji !== undefined && user) {
    let reactions = eb
      .selectFrom('award_emoji as ae')
      .select(sql`1`.as('one'))
      .where('ae.awardable_type', '=', 'Issue')
      .whereRef('ae.awardable_id', '=', 'i.id')
      .where('ae.user_id', '=', user.id);
    const word = input.my_reaction_emoji.toLowerCase();
    if (word === 'none') and.push(eb.not(eb.exists(reactions)));
    else {
      if (word !== 'any') reactions = reactions.where('ae.name', '=', input.my_reaction_emoji);
      and.push(eb.exists(reactions));
    }
  }
  if (input.confidential !== undefined) and.push(eb('i.confidential', '=', input.confidential ? 1 : 0));
  if (input.issue_type !== undefined) and.push(eb('i.issue_type', '=', input.issue_type));
  if (input.created_after) and.push(eb('i.created_at', '>=', input.created_after.toISOString()));
  if (input.created_before) and.push(eb('i.created_at', '<=', input.created_before.toISOString()));
  if (input.updated_after) and.push(eb('i.updated_at', '>=', input.updated_after.toISOString()));
  if (input.updated_before) and.push(eb('i.updated_at', '<=', input.updated_before.toISOString()));
  return eb.and(and);
}

/**
 * Confidential issues are for their author, their assignees, and those who may read
 * confidential issues of the project: Reporter and up (the policy's read_confidential_issues).
 */
function confidentialCondition(ctx: Ctx, eb: IssueEB, readsAll: 'all' | 'own' | 'by-project'): Expression<SqlBool> {
  if (ctx.actor.isAdmin || readsAll === 'all') return sql<SqlBool>`1 = 1`;
  const user = ctx.actor.user;
  if (!user) return eb('i.confidential', '=', 0);
  const ors: Expression<SqlBool>[] = [eb('i.confidential', '=', 0), eb('i.author_id', '=', user.id), assignedTo(eb, user.id)];
  if (readsAll === 'by-project') {
    const today = isoDate(ctx.clock.now());
    const reporterOf = ctx.db
      .selectFrom('projects as pr')
      .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
      .select('pr.id')
      .where((w) => projectMembershipFilter(w, user.id, today, REPORTER));
    ors.push(eb('i.project_id', 'in', reporterOf));
  }
  return eb.or(ors);
}

function issuesQuery(ctx: Ctx, input: IssueFilters) {
  let q = ctx.db.selectFrom('issues as i').selectAll('i').where((eb) => filterCondition(ctx, eb, input));
  const dir = input.sort;
  const nullsLast = (column: 'i.due_date' | 'i.weight') => sql`case when ${sql.ref(column)} is null then 1 else 0 end`;
  switch (input.order_by) {
    case 'title':
      q = q.orderBy(sql`lower(i.title)`, dir);
      break;
    case 'due_date':
      q = q.orderBy(nullsLast('i.due_date')).orderBy('i.due_date', dir);
      break;
    case 'weight':
      q = q.orderBy(nullsLast('i.weight')).orderBy('i.weight', dir);
      break;
    case 'popularity':
      q = q.orderBy(
        (eb) =>
          eb
            .selectFrom('award_emoji as ae')
            .select(sql<number>`count(*)`.as('n'))
            .where('ae.awardable_type', '=', 'Issue')
            .whereRef('ae.awardable_id', '=', 'i.id')
            .where('ae.name', '=', 'thumbsup'),
        dir,
      );
      break;
    default:
      q = q.orderBy(sql.ref(`i.${input.order_by}`), dir);
  }
  return q.orderBy('i.id', dir);
}

/** Projects whose issues the caller may list, as a subquery of ids. */
function readableProjectIds(ctx: Ctx, options: { traversalPrefix?: string; namespaceId?: number; nonArchived: boolean }) {
  const today = isoDate(ctx.clock.now());
  let q = ctx.db
    .selectFrom('projects as pr')
    .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
    .select('pr.id')
    .where('pr.issues_enabled', '=', 1)
    .where((eb) => visibleProjectsFilter(eb, ctx.actor, today));
  if (options.traversalPrefix !== undefined) q = q.where('ns.traversal', 'like', `${options.traversalPrefix}%`);
  if (options.namespaceId !== undefined) q = q.where('pr.namespace_id', '=', options.namespaceId);
  if (options.nonArchived) q = q.where('pr.archived', '=', 0);
  return q;
}

/**
 * The issues the caller may read in any project (projects they see with issues on;
 * confidential ones as the lists decide), for another domain to narrow and order in SQL.
 */
export function readableIssuesQuery(ctx: Ctx) {
  return ctx.db
    .selectFrom('issues as i')
    .selectAll('i')
    .where('i.project_id', 'in', readableProjectIds(ctx, { nonArchived: false }))
    .where((eb) => confidentialCondition(ctx, eb, 'by-project'));
}

/** GET /projects/:id/issues */
export async function listProjectIssues(ctx: Ctx, input: ListProjectIssuesInput): Promise<Page<IssueEntity>> {
  const project = await findProject(ctx, input.id);
  const subject = { kind: 'project', project } as const;
  await authorize(ctx, 'read_issue', subject);
  const readsAll = (await can(ctx, 'read_confidential_issues', subject)) ? 'all' : 'own';
  let q = issuesQuery(ctx, input)
    .where('i.project_id', '=', project.id)
    .where((eb) => confidentialCondition(ctx, eb, readsAll));
  if (!project.issues_enabled) q = q.where(never);
  return paginate(ctx.db, q, input, (rows) => presentIssues(ctx, rows, [project]));
}

/** GET /groups/:id/issues: issues of readable projects in the group and its subgroups. */
export async function listGroupIssues(ctx: Ctx, input: ListGroupIssuesInput): Promise<Page<IssueEntity>> {
  const group = await findGroup(ctx, input.id);
  const projects = readableProjectIds(ctx, { traversalPrefix: group.traversal, nonArchived: input.non_archived });
  const q = issuesQuery(ctx, input)
    .where('i.project_id', 'in', projects)
    .where((eb) => confidentialCondition(ctx, eb, 'by-project'));
  return paginate(ctx.db, q, input, (rows) => presentIssues(ctx, rows));
}

/** GET /issues: the caller's issues (`scope`), across every project they can read. */
export async function listIssues(ctx: Ctx, input: ListIssuesInput): Promise<Page<IssueEntity>> {
  if (!ctx.actor.user && input.scope !== 'all') throw new UnauthorizedError();
  const projects = readableProjectIds(ctx, { nonArchived: input.non_archived });
  const q = issuesQuery(ctx, input)
    .where('i.project_id', 'in', projects)
    .where((eb) => confidentialCondition(ctx, eb, 'by-project'));
  return paginate(ctx.db, q, input, (rows) => presentIssues(ctx, rows));
}


/** Where a milestone's issues are looked for: one project, or a group's projects (with or without subgroups). */
export type MilestoneIssuesScope = { project: ProjectRow } | { group: NamespaceRow; subgroups: boolean };

/** Issues carrying the milestone that the caller may read, in the scope. */
async function milestoneIssuesQuery(ctx: Ctx, milestoneId: number, scope: MilestoneIssuesScope) {
  let q = ctx.db.selectFrom('issues as i').selectAll('i').where('i.milestone_id', '=', milestoneId);
  if ('project' in scope) {
    const subject = { kind: 'project', project: scope.project } as const;
    if (!scope.project.issues_enabled || !(await can(ctx, 'read_issue', subject))) return q.where(never);
    const readsAll = (await can(ctx, 'read_confidential_issues', subject)) ? 'all' : 'own';
    return q.where('i.project_id', '=', scope.project.id).where((eb) => confidentialCondition(ctx, eb, readsAll));
  }
  const projects = readableProjectIds(
    ctx,
    scope.subgroups ? { traversalPrefix: scope.group.traversal, nonArchived: false } : { namespaceId: scope.group.id, nonArchived: false },
  );
  q = q.where('i.project_id', 'in', projects).where((eb) => confidentialCondition(ctx, eb, 'by-project'));
  return q;
}

/**
 * `GET /{projects,groups}/:id/milestones/:milestone_id/issues`: a group milestone lists the
 * issues of the projects directly in the group, not of its subgroups (GitLab's IssuesFinder
 * with `group_id`), sorted as GitLab's `label_priority`: the best priority of their labels in
 * their project first (none last), then id descending.
 */
export async function listMilestoneIssues(
  ctx: Ctx,
  milestoneId: number,
  scope: MilestoneIssuesScope,
  page: PageRequest,
): Promise<Page<IssueEntity>> {
  const priority = labelPriorityKey('Issue', 'i.id', 'i.project_id');
  const q = (await milestoneIssuesQuery(ctx, milestoneId, scope))
    .orderBy(sql`case when ${priority} is null then 1 else 0 end`)
    .orderBy(priority)
    .orderBy('i.id', 'desc');
  return paginate(ctx.db, q, page, (rows) => presentIssues(ctx, rows, 'project' in scope ? [scope.project] : []));
}

/** Every issue of the milestone the caller may read in the scope (burndown charts), oldest first. */
export async function selectMilestoneIssues(ctx: Ctx, milestoneId: number, scope: MilestoneIssuesScope): Promise<IssueRow[]> {
  return (await milestoneIssuesQuery(ctx, milestoneId, scope)).orderBy('i.id', 'asc').execute();
}
