/**
 * Labels on work items, addressed by title as GitLab's issue and merge request params give
 * them. A title resolves against the project's labels and its ancestor groups' labels;
 * unknown titles become project labels (`#428BCA`) in the caller's transaction. Epics have
 * no project: their scope is the group and its ancestors, and unknown titles become labels
 * of the epic's group.
 */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { namespaceOf, traversalIds } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { LabelRow } from './label.table.js';

export type LabelTargetType = 'Issue' | 'MergeRequest' | 'Epic';

export const DEFAULT_LABEL_COLOR = '#428BCA';
const MAX_TITLE = 255;

/** Where a project finds its labels: its own, then its ancestor groups' (nearest first). */
export interface LabelScope {
  /** null for a group's epics: only group labels apply, and new ones go to the nearest group. */
  projectId: number | null;
  /** Ancestor group ids, root first (from the namespace traversal); empty for personal projects. */
  groupIds: number[];
}

/** The labels a project's issues and merge requests may use: its own and its ancestor groups'. */
export async function labelScopeOf(ctx: Ctx, project: ProjectRow): Promise<LabelScope> {
  const ns = await namespaceOf(ctx, project.namespace_id);
  return { projectId: project.id, groupIds: ns.kind === 'group' ? traversalIds(ns.traversal) : [] };
}

/**
 * Trimmed, de-duplicated titles from `"a, b"` or `["a,b", "c"]`: Grape's
 * CommaSeparatedToArray splits array elements on commas too.
 */
export function normalizeLabelTitles(input: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of input) {
    for (const part of item.split(',')) {
      const title = part.trim();
      if (title === '' || seen.has(title.toLowerCase())) continue;
      seen.add(title.toLowerCase());
      out.push(title);
    }
  }
  return out;
}

/**
 * Labels the scope sees with these titles, keyed by lower-cased title. Titles are unique per
 * project or group regardless of case; a project label wins over a group label, a nearer
 * group over a farther one, and an exact-case match over another spelling.
 */
export async function selectAvailableLabelsByTitle(db: Kysely<Database>, scope: LabelScope, titles: readonly string[]): Promise<Map<string, LabelRow>> {
  const found = new Map<string, LabelRow>();
  if (titles.length === 0 || (scope.projectId === null && scope.groupIds.length === 0)) return found;
  const lowered = [...new Set(titles.map((t) => t.toLowerCase()))];
  const rows = await db
    .selectFrom('labels')
    .selectAll()
    .where(sql<string>`lower(title)`, 'in', lowered)
    .where((eb) => {
      const ors = [];
      if (scope.projectId !== null) ors.push(eb('project_id', '=', scope.projectId));
      if (scope.groupIds.length) ors.push(eb('group_id', 'in', scope.groupIds));
      return eb.or(ors);
    })
    .execute();
  const exact = new Set(titles);
  const rank = (l: LabelRow) =>
    (l.project_id !== null ? 0 : 1000 - scope.groupIds.indexOf(l.group_id!)) * 2 + (exact.has(l.title) ? 0 : 1);
  rows.sort((a, b) => rank(a) - rank(b));
  for (const row of rows) {
    const key = row.title.toLowerCase();
    if (!found.has(key)) found.set(key, row);
  }
  return found;
}

/**
 * Resolves titles to labels in their given order. With `create`, missing titles become
 * project labels; otherwise (and for titles GitLab's label validation would refuse, such as
 * over 255 characters) they are dropped, as GitLab drops labels it cannot find or save.
 */
export async function findOrCreateLabels(
  trx: Kysely<Database>,
  scope: LabelScope,
  titles: readonly string[],
  options: { create: boolean; now: string },
): Promise<LabelRow[]> {
  let found = await selectAvailableLabelsByTitle(trx, scope, titles);
  const missing = titles.filter((t) => !found.has(t.toLowerCase()) && t.length <= MAX_TITLE);
  const canCreate = scope.projectId !== null || scope.groupIds.length > 0;
  if (options.create && canCreate && missing.length) {
    // A concurrent request may create the same title: its row is kept and found again below.
    await trx
      .insertInto('labels')
      .values(
        missing.map((title) => ({
          project_id: scope.projectId,
          group_id: scope.projectId === null ? scope.groupIds[scope.groupIds.length - 1]! : null,
          title,
          color: DEFAULT_LABEL_COLOR,
          description: null,
          created_at: options.now,
          updated_at: options.now,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
    found = await selectAvailableLabelsByTitle(trx, scope, titles);
  }
  const out: LabelRow[] = [];
  for (const title of titles) {
    const label = found.get(title.toLowerCase());
    if (label && !out.includes(label)) out.push(label);
  }
  return out;
}

/** Label ids on one target. */
export async function selectTargetLabelIds(db: Kysely<Database>, targetType: LabelTargetType, targetId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('label_links')
    .select('label_id')
    .where('target_type', '=', targetType)
    .where('target_id', '=', targetId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.label_id);
}

/** Makes the target's labels exactly `labelIds`; true when that changed anything. */
export async function replaceTargetLabels(
  trx: Kysely<Database>,
  targetType: LabelTargetType,
  targetId: number,
  labelIds: readonly number[],
  now: string,
): Promise<boolean> {
  const current = new Set(await selectTargetLabelIds(trx, targetType, targetId));
  const wanted = new Set(labelIds);
  const removed = [...current].filter((id) => !wanted.has(id));
  const added = [...wanted].filter((id) => !current.has(id));
  if (removed.length) {
    await trx
      .deleteFrom('label_links')
      .where('target_type', '=', targetType)
      .where('target_id', '=', targetId)
      .where('label_id', 'in', removed)
      .execute();
  }
  if (added.length) {
    await trx
      .insertInto('label_links')
      .values(added.map((label_id) => ({ label_id, target_type: targetType, target_id: targetId, created_at: now })))
      .execute();
  }
  return removed.length > 0 || added.length > 0;
}

/** The labels of each target, for a page of targets in one query. */
export async function selectLabelsOfTargets(db: Kysely<Database>, targetType: LabelTargetType, targetIds: readonly number[]): Promise<Map<number, LabelRow[]>> {
  const out = new Map<number, LabelRow[]>();
  if (targetIds.length === 0) return out;
  const rows = await db
    .selectFrom('label_links as ll')
    .innerJoin('labels as l', 'l.id', 'll.label_id')
    .selectAll('l')
    .select('ll.target_id')
    .where('ll.target_type', '=', targetType)
    .where('ll.target_id', 'in', [...new Set(targetIds)])
    .execute();
  for (const { target_id, ...label } of rows) {
    const list = out.get(target_id);
    if (list) list.push(label);
    else out.set(target_id, [label]);
  }
  return out;
}

/** What a create or update request asks of a target's labels: normalized titles and where they resolve. */
export interface LabelChanges {
  scope: LabelScope;
  /** `labels`: the new set (`[]` clears); undefined keeps the current labels. */
  replace?: string[];
  add: string[];
  remove: string[];
}

/**
 * The label changes a request's `labels` / `add_labels` / `remove_labels` ask of a target in
 * the project; undefined when it gives none. Call it before the transaction that applies them.
 */
export async function labelChangesOf(
  ctx: Ctx,
  project: ProjectRow,
  input: { labels?: readonly string[]; add_labels?: readonly string[]; remove_labels?: readonly string[] },
): Promise<LabelChanges | undefined> {
  if (input.labels === undefined && input.add_labels === undefined && input.remove_labels === undefined) return undefined;
  return {
    scope: await labelScopeOf(ctx, project),
    replace: input.labels === undefined ? undefined : normalizeLabelTitles(input.labels),
    add: normalizeLabelTitles(input.add_labels ?? []),
    remove: normalizeLabelTitles(input.remove_labels ?? []),
  };
}

/**
 * Applies label changes as GitLab's IssuableBaseService does, by label rather than by title:
 * start from `labels` (or the current ones), add `add_labels`, then take away
 * `remove_labels`. Unknown titles in `labels` and `add_labels` become project labels;
 * `remove_labels` only finds. True when the target's labels changed.
 */
export async function applyLabelChanges(
  trx: Kysely<Database>,
  targetType: LabelTargetType,
  targetId: number,
  changes: LabelChanges,
  now: string,
): Promise<boolean> {
  const ids = async (titles: readonly string[], create: boolean) => (await findOrCreateLabels(trx, changes.scope, titles, { create, now })).map((l) => l.id);
  const base = changes.replace ? await ids(changes.replace, true) : await selectTargetLabelIds(trx, targetType, targetId);
  const added = await ids(changes.add, true);
  const removed = new Set(await ids(changes.remove, false));
  const wanted = [...new Set([...base, ...added])].filter((id) => !removed.has(id));
  return replaceTargetLabels(trx, targetType, targetId, wanted, now);
}

/** Drops every label link of a target (the target is being deleted). */
export async function deleteTargetLabelLinks(trx: Kysely<Database>, targetType: LabelTargetType, targetId: number): Promise<void> {
  await trx.deleteFrom('label_links').where('target_type', '=', targetType).where('target_id', '=', targetId).execute();
}

/** Labels by id, in the order of `ids` (a webhook's `changes.labels.previous`). */
export async function selectLabelsByIds(db: Kysely<Database>, ids: readonly number[]): Promise<LabelRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('labels').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is LabelRow => r !== undefined);
}
