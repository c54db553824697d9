/** The three merge request lists: a project's, a group's (with subgroups), and the caller's. */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import { isoDate } from '../../kernel/clock.js';
import type { Actor, Ctx } from '../../access/context.js';
import { ForbiddenError, UnauthorizedError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { authorize, can } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { projectMembershipFilter } from '../../access/visibility.queries.js';
import { milestoneFilter } from '../milestones/index.js';
import { labelPriorityKey } from '../labels/index.js';
import type { MergeRequestEntity } from './merge-request.entity.js';
import type {
  ListGroupMergeRequestsInput,
  ListMergeRequestsInput,
  ListProjectMergeRequestsInput,
  MergeRequestFilters,
} from './merge-request.schema.js';
import { presentMergeRequests } from './present-merge-requests.js';

type ProjEB = ExpressionBuilder<Database & { pr: Database['projects']; ns: Database['namespaces'] }, 'pr' | 'ns'>;
type MrEB = ExpressionBuilder<Database & { mr: Database['merge_requests'] }, 'mr'>;

/**
 * Projects `pr` whose merge requests the actor may read: those it can see, except that a
 * private project's need Reporter (the policy's read_merge_request, decided in SQL).
 */
function readableMergeRequestsFilter(eb: ProjEB, actor: Actor, today: string): Expression<SqlBool> {
  if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
  if (!actor.user) return eb('pr.visibility', '=', 'public');
  const open = actor.user.external ? ['public'] : ['public', 'internal'];
  return eb.or([eb('pr.visibility', 'in', open), projectMembershipFilter(eb, actor.user.id, today, REPORTER)]);
}

function readableProjectIds(ctx: Ctx, within?: { traversal: string; nonArchived: boolean } | { namespaceId: number }) {
  let q = ctx.db
    .selectFrom('projects as pr')
    .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
    .select('pr.id')
    .where('pr.merge_requests_enabled', '=', 1)
    .where((eb) => readableMergeRequestsFilter(eb, ctx.actor, isoDate(ctx.clock.now())));
  if (within && 'namespaceId' in within) q = q.where('pr.namespace_id', '=', within.namespaceId);
  else if (within) {
    q = q.where('ns.traversal', 'like', `${within.traversal}%`);
    if (within.nonArchived) q = q.where('pr.archived', '=', 0);
  }
  return q;
}

const NONE = sql<SqlBool>`1 = 0`;

/** `None`, `Any` or a user id against the assignee or reviewer table. */
function userLinkFilter(eb: MrEB, table: 'merge_request_assignees' | 'merge_request_reviewers', value: string): Expression<SqlBool> {
  const links = eb.selectFrom(table).select(sql`1`.as('one')).whereRef(`${table}.merge_request_id`, '=', 'mr.id');
  const word = value.toLowerCase();
  if (word === 'none') return eb.not(eb.exists(links));
  if (word === 'any') return eb.exists(links);
  return eb.exists(links.where(`${table}.user_id`, '=', Number(value)));
}

function usernameFilter(eb: MrEB, table: 'merge_request_assignees' | 'merge_request_reviewers', username: string): Expression<SqlBool> {
  return eb.exists(
    eb
      .selectFrom(table)
      .innerJoin('users', 'users.id', `${table}.user_id`)
      .select(sql`1`.as('one'))
      .whereRef(`${table}.merge_request_id`, '=', 'mr.id')
      .where(sql`lower(users.username)`, '=', username.toLowerCase()),
  );
}

/** Labels by title: every one must be present; `None` = no labels, `Any` = at least one. */
function labelsFilter(eb: MrEB, titles: string[]): Expression<SqlBool> {
  const links = () => eb.selectFrom('label_links as ll').select(sql`1`.as('one')).where('ll.target_type', '=', 'MergeRequest').whereRef('ll.target_id', '=', 'mr.id');
  if (titles.length === 1 && titles[0]!.toLowerCase() === 'none') return eb.not(eb.exists(links()));
  if (titles.length === 1 && titles[0]!.toLowerCase() === 'any') return eb.exists(links());
  return eb.and(titles.map((title) => eb.exists(links().innerJoin('labels as l', 'l.id', 'll.label_id').where('l.title', '=', title))));
}

function filteredQuery(ctx: Ctx, input: MergeRequestFilters) {
  let q = ctx.db.selectFrom('merge_requests as mr').selectAll('mr');
  if (input.state !== 'all') q = q.where('mr.state', '=', input.state);
  const labels = (input.labels ?? []).map((t) => t.trim()).filter(Boolean);
  if (labels.length) q = q.where((eb) => labelsFilter(eb, labels));
  if (input.milestone !== undefined) q = q.where(milestoneFilter('mr.milestone_id', input.milestone, isoDate(ctx.clock.now())));
  if (input.author_id !== undefined) q = q.where('mr.author_id', '=', input.author_id);
  if (input.author_username !== undefined) {
    q = q.where('mr.author_id', 'in', ctx.db.selectFrom('users').select('id').where(sql`lower(username)`, '=', input.author_username.toLowerCase()));
  }
  if (input.assignee_id !== undefined) q = q.where((eb) => userLinkFilter(eb, 'merge_request_assignees', input.assignee_id!));
  if (input.reviewer_id !== undefined) q = q.where((eb) => userLinkFilter(eb, 'merge_request_reviewers', input.reviewer_id!));
  if (input.reviewer_username !== undefined) q = q.where((eb) => usernameFilter(eb, 'merge_request_reviewers', input.reviewer_username!));
  if (input.source_branch !== undefined) q = q.where('mr.source_branch', '=', input.source_branch);
  if (input.target_branch !== undefined) q = q.where('mr.target_branch', '=', input.target_branch);
  if (input.search) {
    const like = `%${input.search.toLowerCase()}%`;
    const fields = (input.in ?? 'title,description').split(',').map((f) => f.trim());
    q = q.where((eb) => eb.or(fields.map((f) => eb(sql`lower(${sql.ref(`mr.${f}`)})`, 'like', like))));
  }
  const draft = input.wip !== undefined ? input.wip === 'yes' : input.draft;
  if (draft !== undefined) q = q.where('mr.draft', '=', draft ? 1 : 0);
  if (input.created_after) q = q.where('mr.created_at', '>=', input.created_after.toISOString());
  if (input.created_before) q = q.where('mr.created_at', '<=', input.created_before.toISOString());
  if (input.updated_after) q = q.where('mr.updated_at', '>=', input.updated_after.toISOString());
  if (input.updated_before) q = q.where('mr.updated_at', '<=', input.updated_before.toISOString());
  const scope = input.scope?.replace(/-/g, '_');
  if (scope && scope !== 'all') {
    const user = ctx.actor.user;
    if (!user) q = q.where(NONE);
    else if (scope === 'created_by_me') q = q.where('mr.author_id', '=', user.id);
    else q = q.where((eb) => userLinkFilter(eb, scope === 'assigned_to_me' ? 'merge_request_assignees' : 'merge_request_reviewers', String(user.id)));
  }
  return q.orderBy(sql.ref(`mr.${input.order_by}`), input.sort).orderBy('mr.id', input.sort);
}

/** GET /projects/:id/merge_requests. Private projects need Reporter (Guests get 403). */
export async function listProjectMergeRequests(ctx: Ctx, input: ListProjectMergeRequestsInput): Promise<Page<MergeRequestEntity>> {
  const project = await findProject(ctx, input.id);
  await authorize(ctx, 'read_merge_request', { kind: 'project', project });
  if (!project.merge_requests_enabled) throw new ForbiddenError();
  let q = filteredQuery(ctx, input).where('mr.project_id', '=', project.id);
  if (input.iids?.length) q = q.where('mr.iid', 'in', input.iids);
  return paginate(ctx.db, q, input, (rows) => presentMergeRequests(ctx, rows, { project: project.id }, [project]));
}

/** GET /groups/:id/merge_requests: the group's and its subgroups' projects the caller may read (non-archived by default). */
export async function listGroupMergeRequests(ctx: Ctx, input: ListGroupMergeRequestsInput): Promise<Page<MergeRequestEntity>> {
  const group = await findGroup(ctx, input.id);
  const q = filteredQuery(ctx, input).where('mr.project_id', 'in', readableProjectIds(ctx, { traversal: group.traversal, nonArchived: input.non_archived }));
  return paginate(ctx.db, q, input, (rows) => presentMergeRequests(ctx, rows, { group: group.id }));
}

/** GET /merge_requests: the caller's (scope created_by_me by default); anonymous callers only with scope=all. */
export async function listMergeRequests(ctx: Ctx, input: ListMergeRequestsInput): Promise<Page<MergeRequestEntity>> {
  if (!ctx.actor.user && input.scope !== 'all') throw new UnauthorizedError();
  const q = filteredQuery(ctx, input).where('mr.project_id', 'in', readableProjectIds(ctx));
  return paginate(ctx.db, q, input, (rows) => presentMergeRequests(ctx, rows, null));
}

/**
 * `GET /{projects,groups}/:id/milestones/:milestone_id/merge_requests`: the readable merge
 * requests carrying the milestone, of the project or of the projects directly in the group
 * (MergeRequestsFinder with `group_id`, no subgroups), sorted as GitLab's `label_priority`:
 * the best priority of their labels in their project first (none last), then id descending.
 */
export async function listMilestoneMergeRequests(
  ctx: Ctx,
  milestoneId: number,
  scope: { project: ProjectRow } | { group: NamespaceRow },
  page: PageRequest,
): Promise<Page<MergeRequestEntity>> {
  let q = ctx.db.selectFrom('merge_requests as mr').selectAll('mr').where('mr.milestone_id', '=', milestoneId);
  if ('project' in scope) {
    const readable = scope.project.merge_requests_enabled && (await can(ctx, 'read_merge_request', { kind: 'project', project: scope.project }));
    q = readable ? q.where('mr.project_id', '=', scope.project.id) : q.where(NONE);
  } else {
    q = q.where('mr.project_id', 'in', readableProjectIds(ctx, { namespaceId: scope.group.id }));
  }
  const from = 'project' in scope ? { project: scope.project.id } : { group: scope.group.id };
  const priority = labelPriorityKey('MergeRequest', 'mr.id', 'mr.project_id');
  q = q.orderBy(sql`case when ${priority} is null then 1 else 0 end`).orderBy(priority).orderBy('mr.id', 'desc');
  return paginate(ctx.db, q, page, (rows) => presentMergeRequests(ctx, rows, from, 'project' in scope ? [scope.project] : []));
}
