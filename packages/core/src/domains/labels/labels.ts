/** Reading labels: lists (GitLab's LabelsFinder, paged in SQL) and single labels of groups and projects. */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { AVAILABLE_LABELS, findLabel, findLabelParent } from './find-label.js';
import { toLabelEntity, type LabelEntity, type ProjectLabelEntity } from './label.entity.js';
import {
  countLabelUsage,
  labelScopeCondition,
  searchCondition,
  selectLabelPriorities,
  selectSubscribedLabelIds,
  type LabelParent,
  type LabelScopeOptions,
} from './label.queries.js';
import type { GetGroupLabelInput, GetProjectLabelInput, ListGroupLabelsInput, ListProjectLabelsInput } from './label.schema.js';
import type { LabelRow } from './label.table.js';

/** Entities for a page of labels: subscriptions (and counts) loaded for all of them at once. */
export async function presentLabels(ctx: Ctx, parent: LabelParent, rows: LabelRow[], withCounts: boolean): Promise<LabelEntity[]> {
  const ids = rows.map((r) => r.id);
  const asProject = parent.kind === 'project';
  const [subscribed, counts, priorities] = await Promise.all([
    selectSubscribedLabelIds(ctx, ids),
    withCounts ? countLabelUsage(ctx, parent, ids) : undefined,
    asProject ? selectLabelPriorities(ctx, parent.project.id, ids) : undefined,
  ]);
  return rows.map((row) => toLabelEntity(row, { subscribed: subscribed.has(row.id), counts: counts?.get(row.id), asProject, priority: priorities?.get(row.id) }));
}

/** One label as single-label routes answer it: with its counts. */
export async function presentLabel(ctx: Ctx, parent: LabelParent, row: LabelRow): Promise<LabelEntity> {
  return (await presentLabels(ctx, parent, [row], true))[0]!;
}

type ListInput = Pick<ListGroupLabelsInput, 'with_counts' | 'search' | 'archived' | 'page' | 'per_page'>;

async function listLabels(ctx: Ctx, parent: LabelParent, options: LabelScopeOptions, input: ListInput): Promise<Page<LabelEntity>> {
  const scope = await labelScopeCondition(ctx, parent, options);
  let q = ctx.db.selectFrom('labels as l').selectAll('l').where(scope);
  const search = input.search;
  if (search !== undefined) q = q.where((eb) => searchCondition(eb, search));
  if (input.archived !== undefined) q = q.where('l.archived', '=', input.archived ? 1 : 0);
  q = q.orderBy(sql`lower(l.title)`).orderBy('l.id');
  return paginate(ctx.db, q, input, (rows) => presentLabels(ctx, parent, rows, input.with_counts));
}

/** GET /groups/:id/labels */
export async function listGroupLabels(ctx: Ctx, input: ListGroupLabelsInput): Promise<Page<LabelEntity>> {
  const parent = await findLabelParent(ctx, 'group', input.id, 'read_label');
  return listLabels(
    ctx,
    parent,
    { includeAncestorGroups: input.include_ancestor_groups, includeDescendantGroups: input.include_descendant_groups, onlyGroupLabels: input.only_group_labels },
    input,
  );
}

/** GET /projects/:id/labels: the project's labels and its groups'. */
export async function listProjectLabels(ctx: Ctx, input: ListProjectLabelsInput): Promise<Page<ProjectLabelEntity>> {
  const parent = await findLabelParent(ctx, 'project', input.id, 'read_label');
  const page = await listLabels(ctx, parent, { ...AVAILABLE_LABELS, includeAncestorGroups: input.include_ancestor_groups }, input);
  return page as Page<ProjectLabelEntity>;
}

/** GET /groups/:id/labels/:label_id */
export async function getGroupLabel(ctx: Ctx, input: GetGroupLabelInput): Promise<LabelEntity> {
  const parent = await findLabelParent(ctx, 'group', input.id, 'read_label');
  const label = await findLabel(ctx, parent, input.label_id, {
    includeAncestorGroups: input.include_ancestor_groups,
    includeDescendantGroups: input.include_descendant_groups,
    onlyGroupLabels: input.only_group_labels,
  });
  return presentLabel(ctx, parent, label);
}

/** GET /projects/:id/labels/:label_id */
export async function getProjectLabel(ctx: Ctx, input: GetProjectLabelInput): Promise<ProjectLabelEntity> {
  const parent = await findLabelParent(ctx, 'project', input.id, 'read_label');
  const label = await findLabel(ctx, parent, input.label_id, { ...AVAILABLE_LABELS, includeAncestorGroups: input.include_ancestor_groups });
  return (await presentLabel(ctx, parent, label)) as ProjectLabelEntity;
}
