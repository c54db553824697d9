/**
 * Epic issues (GitLab's `ee/lib/api/epic_issues.rb`, Premium): the issues of an epic, in the
 * order they share with its child epics. Every call is authenticated; the group must be
 * readable (404), epics licensed (403) and the epic readable (403, also for an unknown iid).
 * An issue is in at most one epic: assigning it elsewhere moves it, to the start. Changing an
 * issue's epic needs `admin_issue_relation` on the issue (Guest on its project, able to read it).
 */
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { can, requireUser } from '../../access/policy.js';
import { selectNamespaceById, selectProjectByRef } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../../kernel/errors.js';
import { paginate, type Page, type PageRequest } from '../../kernel/pagination.js';
import { canAdminIssueRelation, presentIssues, readableIssuesQuery, toIssueBasicEntity, type IssueRow } from '../issues/index.js';
import { toEpicIssueEntity, toEpicIssueLinkEntity, type EpicIssueEntity, type EpicIssueLinkEntity } from './epic-issue.entity.js';
import { deleteEpicIssueById, selectEpicIssueByIssueId, selectEpicIssueOfEpic, upsertEpicIssue } from './epic-issue.queries.js';
import { countTreeNodes } from './epic.queries.js';
import type { AssignEpicIssueInput, EpicIssuePathInput, ListEpicIssuesInput, ReorderEpicIssueInput } from './epic.schema.js';
import type { EpicIssueRow, EpicRow } from './epic.table.js';
import { MAX_CHILDREN_COUNT, moveBetween, startPosition } from './epic-tree.js';
import { findEpic, findEpicGroup } from './find-epic.js';
import { presentEpic } from './present-epics.js';

const NOT_FOUND = '404 Not found';
const NO_MATCHING_ISSUE = 'No matching issue found. Make sure that you are adding a valid issue URL.';

async function findEpicOf(ctx: Ctx, groupRef: string, iid: number): Promise<{ group: NamespaceRow; epic: EpicRow }> {
  requireUser(ctx);
  const group = await findEpicGroup(ctx, groupRef);
  return { group, epic: await findEpic(ctx, group, iid) };
}

/** A page of the epic's issues the caller can read (confidential ones filtered in SQL), in the epic's order. */
async function pageOfIssues(ctx: Ctx, epic: EpicRow, page: PageRequest, withSubscribed: boolean): Promise<Page<EpicIssueEntity>> {
  const q = readableIssuesQuery(ctx)
    .innerJoin('epic_issues as ei', 'ei.issue_id', 'i.id')
    .select(['ei.id as epic_issue_id', 'ei.relative_position as epic_issue_position'])
    .where('ei.epic_id', '=', epic.id)
    .orderBy('ei.relative_position')
    .orderBy('ei.id');
  return paginate(ctx.db, q, page, async (rows) => {
    const issues = await presentIssues(ctx, rows);
    return issues.map((issue, i) => toEpicIssueEntity(issue, { id: rows[i]!.epic_issue_id, relative_position: rows[i]!.epic_issue_position }, withSubscribed));
  });
}

async function presentLink(ctx: Ctx, link: EpicIssueRow, epic: EpicRow, group: NamespaceRow, issue: IssueRow): Promise<EpicIssueLinkEntity> {
  const [epicEntity, [issueEntity]] = await Promise.all([presentEpic(ctx, epic, group), presentIssues(ctx, [issue])]);
  return toEpicIssueLinkEntity(link, epicEntity, toIssueBasicEntity(issueEntity!));
}

/** GET /groups/:id/epics/:epic_iid/issues: paginated, without `subscribed` (as GitLab's list). */
export async function listEpicIssues(ctx: Ctx, input: ListEpicIssuesInput): Promise<Page<EpicIssueEntity>> {
  const { epic } = await findEpicOf(ctx, input.id, input.epic_iid);
  return pageOfIssues(ctx, epic, input, false);
}

/** GitLab's `linkable_issue?`: an issue (not an incident or task) of a project in the epic's group or its subgroups. */
async function linkable(ctx: Ctx, group: NamespaceRow, issue: IssueRow): Promise<boolean> {
  if (issue.issue_type !== 'issue') return false;
  const project = await selectProjectByRef(ctx, issue.project_id);
  const namespace = project && (await selectNamespaceById(ctx, project.namespace_id));
  return namespace?.kind === 'group' && namespace.traversal.startsWith(group.traversal);
}

/** What `EpicIssue`'s validations refuse, as GitLab joins them for one issue (422). */
async function validationErrors(ctx: Ctx, epic: EpicRow, issue: IssueRow): Promise<string[]> {
  const errors: string[] = [];
  if (epic.confidential === 1 && issue.confidential === 0) {
    errors.push('Cannot assign a confidential epic to a non-confidential issue. Make the issue confidential and try again');
  }
  if ((await countTreeNodes(ctx.db, epic.id)) >= MAX_CHILDREN_COUNT) {
    errors.push('cannot be linked to the epic. This epic already has maximum number of child issues & epics.');
  }
  return errors;
}

/**
 * POST /groups/:id/epics/:epic_iid/issues/:issue_id: puts an issue first in the epic, moving it
 * from another epic. Unknown issue: 404 `Not found`; no `admin_issue_relation`: 403; already in
 * this epic: 409; outside the group's hierarchy: 404 with GitLab's message; a confidential epic
 * refuses non-confidential issues and a full one any (422). Answers the association (201).
 */
export async function assignEpicIssue(ctx: Ctx, input: AssignEpicIssueInput): Promise<EpicIssueLinkEntity> {
  const { group, epic } = await findEpicOf(ctx, input.id, input.epic_iid);
  const issue = await ctx.db.selectFrom('issues').selectAll().where('id', '=', input.issue_id).executeTakeFirst();
  if (!issue) throw new NotFoundError(null, { exact: NOT_FOUND });
  if (!(await canAdminIssueRelation(ctx, issue))) throw new ForbiddenError();
  if ((await selectEpicIssueByIssueId(ctx.db, issue.id))?.epic_id === epic.id) throw new ConflictError('Issue(s) already assigned');
  if (!(await linkable(ctx, group, issue))) throw new NotFoundError(null, { exact: NO_MATCHING_ISSUE });
  const errors = await validationErrors(ctx, epic, issue);
  if (errors.length) throw new UnprocessableError(`#${issue.iid} cannot be added: ${sentence(errors)}`);
  const link = await ctx.db.transaction().execute(async (trx) =>
    upsertEpicIssue(trx, { epic_id: epic.id, issue_id: issue.id, relative_position: await startPosition(trx, epic.id), now: nowIso(ctx) }),
  );
  return presentLink(ctx, link, epic, group, issue);
}

/** Ruby's `Array#to_sentence`. */
function sentence(parts: string[]): string {
  return parts.length <= 2 ? parts.join(' and ') : `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}`;
}

/** The association `:epic_issue_id` of the epic (404 `Not found`) with its issue; 403 without `admin_issue_relation`. */
async function findLink(ctx: Ctx, epic: EpicRow, linkId: number): Promise<{ link: EpicIssueRow; issue: IssueRow }> {
  const link = await selectEpicIssueOfEpic(ctx.db, epic.id, linkId);
  if (!link) throw new NotFoundError(null, { exact: NOT_FOUND });
  const issue = await ctx.db.selectFrom('issues').selectAll().where('id', '=', link.issue_id).executeTakeFirstOrThrow();
  if (!(await canAdminIssueRelation(ctx, issue))) throw new ForbiddenError();
  return { link, issue };
}

/**
 * PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id: moves the issue in the epic's tree
 * (`move_before_id` ends up before it, `move_after_id` after it; ids of associations of this
 * epic). GitLab answers the epic's issues (a page, with `subscribed`) whatever the move did: an
 * id that is no other association of this epic, or a caller who may not relate epics in the
 * group (`admin_epic_relation`), moves nothing.
 */
export async function reorderEpicIssue(ctx: Ctx, input: ReorderEpicIssueInput): Promise<Page<EpicIssueEntity>> {
  const { group, epic } = await findEpicOf(ctx, input.id, input.epic_iid);
  const { link } = await findLink(ctx, epic, input.epic_issue_id);
  if ((input.move_before_id !== undefined || input.move_after_id !== undefined) && (await can(ctx, 'admin_epic_relation', { kind: 'group', group }))) {
    await ctx.db.transaction().execute(async (trx) => {
      const sibling = async (id: number | undefined) => (id === undefined || id === link.id ? undefined : selectEpicIssueOfEpic(trx, epic.id, id));
      const [before, after] = [await sibling(input.move_before_id), await sibling(input.move_after_id)];
      if ((input.move_before_id !== undefined && !before) || (input.move_after_id !== undefined && !after)) return;
      const node = (row: EpicIssueRow | undefined) => row && ({ type: 'epic_issue', id: row.id } as const);
      await moveBetween(trx, epic.id, node(link)!, node(before), node(after));
    });
  }
  return pageOfIssues(ctx, epic, input, true);
}

/** DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id: takes the issue out of the epic; answers the former association (200). */
export async function removeEpicIssue(ctx: Ctx, input: EpicIssuePathInput): Promise<EpicIssueLinkEntity> {
  const { group, epic } = await findEpicOf(ctx, input.id, input.epic_iid);
  const { link, issue } = await findLink(ctx, epic, input.epic_issue_id);
  await ctx.db.transaction().execute((trx) => deleteEpicIssueById(trx, link.id));
  return presentLink(ctx, link, epic, group, issue);
}
