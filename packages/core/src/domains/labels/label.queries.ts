/**
 * The SQL behind the label API: which labels a group or project sees (GitLab's
 * LabelsFinder), the keyword search, and per-page subscription and usage counts.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { REPORTER } from '../../access/levels.js';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { canRead, namespaceOf, traversalIds, type Subject } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { projectMembershipFilter, visibleGroupsFilter, visibleProjectsFilter } from '../../access/visibility.queries.js';
import type { LabelCounts } from './label.entity.js';

/** Where labels are listed, created and changed: a group or a project (the policy's subject). */
export type LabelParent = Subject;

export type LabelEB = ExpressionBuilder<Database & { l: Database['labels'] }, 'l'>;
export type LabelCondition = (eb: LabelEB) => Expression<SqlBool>;

export interface LabelScopeOptions {
  includeAncestorGroups: boolean;
  includeDescendantGroups: boolean;
  /** Groups only: false adds the labels of the group's (non-archived, visible) projects. */
  onlyGroupLabels: boolean;
}

const NEVER = sql<SqlBool>`1 = 0`;

/** Ancestor groups of a namespace traversal (nearest last) that the actor may read. */
async function readableAncestorIds(ctx: Ctx, traversal: string, selfId: number): Promise<number[]> {
  const out: number[] = [];
  for (const id of traversalIds(traversal)) {
    if (id === selfId) continue;
    const group = await namespaceOf(ctx, id);
    if (await canRead(ctx, { kind: 'group', group })) out.push(id);
  }
  return out;
}

/**
 * The labels `parent` sees, as a condition on `labels as l`. A project sees its own labels
 * and its group's (and, with includeAncestorGroups, the ancestors'); a group its own, its
 * readable ancestors' and descendants' as asked, and optionally its projects'.
 */
export async function labelScopeCondition(ctx: Ctx, parent: LabelParent, options: LabelScopeOptions): Promise<LabelCondition> {
  const today = isoDate(ctx.clock.now());
  if (parent.kind === 'project') {
    const project = parent.project;
    const ns = await namespaceOf(ctx, project.namespace_id);
    const groupIds: number[] = [];
    if (ns.kind === 'group') {
      if (options.includeAncestorGroups) groupIds.push(...(await readableAncestorIds(ctx, ns.traversal, ns.id)));
      groupIds.push(ns.id);
    }
    return (eb) => eb.or([eb('l.project_id', '=', project.id), groupIds.length ? eb('l.group_id', 'in', groupIds) : NEVER]);
  }
  const group = parent.group;
  const groupIds = [group.id, ...(options.includeAncestorGroups ? await readableAncestorIds(ctx, group.traversal, group.id) : [])];
  return (eb) => {
    const ors: Expression<SqlBool>[] = [eb('l.group_id', 'in', groupIds)];
    if (options.includeDescendantGroups) {
      const descendants = eb
        .selectFrom('namespaces as g')
        .select('g.id')
        .where('g.kind', '=', 'group')
        .where('g.traversal', 'like', `${group.traversal}%`)
        .where('g.id', '!=', group.id)
        .where((w) => visibleGroupsFilter(w, ctx.actor, today));
      ors.push(eb('l.group_id', 'in', descendants));
    }
    if (!options.onlyGroupLabels) {
      let projects = eb
        .selectFrom('projects as pr')
        .innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id')
        .select('pr.id')
        .where('pr.archived', '=', 0)
        .where((w) => visibleProjectsFilter(w, ctx.actor, today));
      projects = options.includeDescendantGroups ? projects.where('ns.traversal', 'like', `${group.traversal}%`) : projects.where('ns.id', '=', group.id);
      ors.push(eb('l.project_id', 'in', projects));
    }
    return eb.or(ors);
  };
}

/** `%term%` for LIKE, with `%`, `_` and `\` taken literally. */
const likePattern = (text: string, contains: boolean) => {
  const escaped = text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return contains ? `%${escaped}%` : escaped;
};

/**
 * GitLab's fuzzy search on title or description: every term of 3+ characters must occur
 * (quoted phrases are one term); a query with no such term matches a whole field, ignoring case.
 */
export function searchCondition(eb: LabelEB, query: string): Expression<SqlBool> {
  const text = query.trim().replace(/\s+/g, ' ');
  if (text === '') return sql<SqlBool>`1 = 1`;
  const terms = [...text.matchAll(/"([^"]+)"|(\S+)/g)].map((m) => (m[1] ?? m[2])!).filter((t) => t.length >= 3);
  const field = (column: 'l.title' | 'l.description') => {
    const matches = terms.length
      ? terms.map((t) => sql<SqlBool>`lower(${sql.ref(column)}) like ${likePattern(t, true)} escape '\\'`)
      : [sql<SqlBool>`lower(${sql.ref(column)}) like ${likePattern(text, false)} escape '\\'`];
    return eb.and(matches);
  };
  return eb.or([field('l.title'), field('l.description')]);
}

/** Ids among `labelIds` the user is subscribed to. */
/** Priorities of the labels in one project (labels without one are absent). */
export async function selectLabelPriorities(ctx: Ctx, projectId: number, labelIds: readonly number[]): Promise<Map<number, number>> {
  if (labelIds.length === 0) return new Map();
  const rows = await ctx.db
    .selectFrom('label_priorities')
    .select(['label_id', 'priority'])
    .where('project_id', '=', projectId)
    .where('label_id', 'in', labelIds)
    .execute();
  return new Map(rows.map((r) => [r.label_id, r.priority]));
}

export async function selectSubscribedLabelIds(ctx: Ctx, labelIds: readonly number[]): Promise<Set<number>> {
  const user = ctx.actor.user;
  if (!user || labelIds.length === 0) return new Set();
  const rows = await ctx.db.selectFrom('label_subscriptions').select('label_id').where('user_id', '=', user.id).where('label_id', 'in', [...labelIds]).execute();
  return new Set(rows.map((r) => r.label_id));
}

/**
 * Open and closed issues and open merge requests carrying each label, among those the actor
 * can see inside `parent` (the project, or the group and its subgroups): readable projects
 * with the feature on, confidential issues only for their author, assignees and Reporters.
 */
export async function countLabelUsage(ctx: Ctx, parent: LabelParent, labelIds: readonly number[]): Promise<Map<number, LabelCounts>> {
  const out = new Map<number, LabelCounts>();
  if (labelIds.length === 0) return out;
  for (const id of labelIds) out.set(id, { open_issues_count: 0, closed_issues_count: 0, open_merge_requests_count: 0 });
  const actor = ctx.actor;
  const today = isoDate(ctx.clock.now());
  const ids = [...new Set(labelIds)];
  const within = <Q extends { where: (...args: any[]) => Q }>(q: Q): Q =>
    parent.kind === 'project' ? q.where('pr.id', '=', parent.project.id) : q.where('ns.traversal', 'like', `${parent.group.traversal}%`);
  const projectsBase = () => ctx.db.selectFrom('projects as pr').innerJoin('namespaces as ns', 'ns.id', 'pr.namespace_id').select('pr.id');

  const issueProjects = within(projectsBase().where('pr.issues_enabled', '=', 1).where((eb) => visibleProjectsFilter(eb, actor, today)));
  let issues = ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('issues as i', 'i.id', 'll.target_id')
    .select(['ll.label_id', 'i.state', sql<number | string>`count(*)`.as('n')])
    .where('ll.target_type', '=', 'Issue')
    .where('ll.label_id', 'in', ids)
    .where('i.project_id', 'in', issueProjects)
    .groupBy(['ll.label_id', 'i.state']);
  if (!actor.isAdmin) {
    const user = actor.user;
    issues = issues.where((eb) => {
      if (!user) return eb('i.confidential', '=', 0);
      const reporterOf = projectsBase().where((w) => projectMembershipFilter(w, user.id, today, REPORTER));
      return eb.or([
        eb('i.confidential', '=', 0),
        eb('i.author_id', '=', user.id),
        eb.exists(eb.selectFrom('issue_assignees as ia').select(sql`1`.as('one')).whereRef('ia.issue_id', '=', 'i.id').where('ia.user_id', '=', user.id)),
        eb('i.project_id', 'in', reporterOf),
      ]);
    });
  }

  const mrProjects = within(
    projectsBase()
      .where('pr.merge_requests_enabled', '=', 1)
      .where((eb) => {
        if (actor.isAdmin) return sql<SqlBool>`1 = 1`;
        if (!actor.user) return eb('pr.visibility', '=', 'public');
        const open = actor.user.external ? ['public'] : ['public', 'internal'];
        return eb.or([eb('pr.visibility', 'in', open), projectMembershipFilter(eb, actor.user.id, today, REPORTER)]);
      }),
  );
  const mergeRequests = ctx.db
    .selectFrom('label_links as ll')
    .innerJoin('merge_requests as mr', 'mr.id', 'll.target_id')
    .select(['ll.label_id', sql<number | string>`count(*)`.as('n')])
    .where('ll.target_type', '=', 'MergeRequest')
    .where('ll.label_id', 'in', ids)
    .where('mr.state', '=', 'opened')
    .where('mr.project_id', 'in', mrProjects)
    .groupBy('ll.label_id');

  const [issueRows, mrRows] = await Promise.all([issues.execute(), mergeRequests.execute()]);
  for (const r of issueRows) {
    const counts = out.get(r.label_id)!;
    if (r.state === 'opened') counts.open_issues_count += Number(r.n);
    else if (r.state === 'closed') counts.closed_issues_count += Number(r.n);
  }
  for (const r of mrRows) out.get(r.label_id)!.open_merge_requests_count = Number(r.n);
  return out;
}

/**
 * GitLab's label_priority sort key of an issue or merge request: the best (lowest) priority its
 * labels have in its project, null when none has one. `targetId` and `projectId` name the
 * outer query's columns (`i.id`, `i.project_id`).
 */
export function labelPriorityKey(targetType: 'Issue' | 'MergeRequest', targetId: string, projectId: string) {
  return sql<number | null>`(select min(lp.priority) from label_links ll
    inner join label_priorities lp on lp.label_id = ll.label_id and lp.project_id = ${sql.ref(projectId)}
    where ll.target_type = ${targetType} and ll.target_id = ${sql.ref(targetId)})`;
}
