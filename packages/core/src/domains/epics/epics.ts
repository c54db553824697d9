/** Listing, reading and deleting group epics (GitLab's `ee/lib/api/epics.rb`). */
import { sql, type SqlBool } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { authorize, can, canRead } from '../../access/policy.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { normalizeLabelTitles } from '../labels/index.js';
import type { EpicEntity } from './epic.entity.js';
import { deleteEpicById } from './epic.queries.js';
import { selectEpicIssueByIssueId } from './epic-issue.queries.js';
import type { ListEpicsInput } from './epic.schema.js';
import { EPICS_TIER, findEpic, findEpicGroup, findReadableEpicById } from './find-epic.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import { presentEpic, presentEpics } from './present-epics.js';

/** Groups whose epics the list covers, split by whether their confidential epics are readable. */
async function epicScope(ctx: Ctx, group: NamespaceRow, input: ListEpicsInput): Promise<{ all: number[]; confidential: number[] }> {
  let q = ctx.db.selectFrom('namespaces').selectAll().where('kind', '=', 'group');
  q = q.where((eb) => {
    const ors = [eb('id', '=', group.id)];
    if (input.include_descendant_groups) ors.push(eb('traversal', 'like', `${group.traversal}%`));
    if (input.include_ancestor_groups) {
      const ancestors = group.traversal.split('/').filter(Boolean).map(Number);
      ors.push(eb('id', 'in', ancestors));
    }
    return eb.or(ors);
  });
  const groups = await q.execute();
  const all: number[] = [];
  const confidential: number[] = [];
  for (const g of groups) {
    const subject = { kind: 'group', group: g } as const;
    if (!(await canRead(ctx, subject))) continue;
    all.push(g.id);
    if (await can(ctx, 'read_confidential_epic', subject)) confidential.push(g.id);
  }
  return { all, confidential };
}

/** GET /groups/:id/epics: epics of the group (and, by default, its subgroups) the caller can read. */
export async function listEpics(ctx: Ctx, input: ListEpicsInput): Promise<Page<EpicEntity>> {
  const group = await findEpicGroup(ctx, input.id);
  const scope = await epicScope(ctx, group, input);
  let q = ctx.db.selectFrom('epics').selectAll('epics').where('epics.group_id', 'in', scope.all);
  q = q.where((eb) => {
    const ors = [eb('epics.confidential', '=', 0)];
    if (scope.confidential.length) ors.push(eb('epics.group_id', 'in', scope.confidential));
    return eb.or(ors);
  });
  if (input.state !== 'all') q = q.where('epics.state', '=', input.state);
  if (input.author_id !== undefined) q = q.where('epics.author_id', '=', input.author_id);
  if (input.author_username !== undefined) {
    const username = input.author_username.toLowerCase();
    q = q.where('epics.author_id', 'in', (eb) => eb.selectFrom('users').select('id').where(sql`lower(username)`, '=', username));
  }
  if (input.confidential !== undefined) q = q.where('epics.confidential', '=', input.confidential ? 1 : 0);
  if (input.search) {
    const like = `%${input.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) => eb.or([sql<SqlBool>`lower(epics.title) like ${like} escape '\\'`, sql<SqlBool>`lower(epics.description) like ${like} escape '\\'`]));
  }
  if (input.created_after) q = q.where('epics.created_at', '>=', input.created_after.toISOString());
  if (input.created_before) q = q.where('epics.created_at', '<=', input.created_before.toISOString());
  if (input.updated_after) q = q.where('epics.updated_at', '>=', input.updated_after.toISOString());
  if (input.updated_before) q = q.where('epics.updated_at', '<=', input.updated_before.toISOString());
  for (const title of normalizeLabelTitles(input.labels ?? [])) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('label_links as ll')
          .innerJoin('labels as l', 'l.id', 'll.label_id')
          .select('ll.id')
          .where('ll.target_type', '=', 'Epic')
          .whereRef('ll.target_id', '=', 'epics.id')
          .where(sql`lower(l.title)`, '=', title.toLowerCase()),
      ),
    );
  }
  q = q.orderBy(`epics.${input.order_by}`, input.sort).orderBy('epics.id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentEpics(ctx, rows, group));
}

/** GET /groups/:id/epics/:epic_iid. */
export async function getEpic(ctx: Ctx, groupRef: string, iid: number): Promise<EpicEntity> {
  const group = await findEpicGroup(ctx, groupRef);
  return presentEpic(ctx, await findEpic(ctx, group, iid), group);
}

/** DELETE /groups/:id/epics/:epic_iid (Owner: `destroy_epic`); children stay, without a parent. */
export async function deleteEpic(ctx: Ctx, groupRef: string, iid: number): Promise<void> {
  const group = await findEpicGroup(ctx, groupRef);
  const epic = await findEpic(ctx, group, iid);
  await authorize(ctx, 'destroy_epic', { kind: 'group', group });
  await ctx.db.transaction().execute((trx) => deleteEpicById(trx, epic.id));
}

/**
 * The epic an issue belongs to (GitLab's `Issue.epic`, REST's `epic` of an issue in EE), null
 * without one, below Premium, or when the caller cannot read it. The caller has read the issue.
 */
export async function getIssueEpic(ctx: Ctx, issueId: number): Promise<EpicEntity | null> {
  if (!tierAtLeast(ctx.config.tier, EPICS_TIER)) return null;
  const link = await selectEpicIssueByIssueId(ctx.db, issueId);
  const found = link ? await findReadableEpicById(ctx, link.epic_id) : undefined;
  return found ? presentEpic(ctx, found.epic, found.group) : null;
}
