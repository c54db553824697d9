/**
 * Labels on merge requests, by title as GitLab's API takes them: a title names a label of
 * the project or of one of its ancestor groups (case-insensitively); an unknown title
 * creates a project label in GitLab's default colour.
 */
import { sql, type Kysely } from 'kysely';
import type { Ctx } from '../../kernel/context.js';
import { namespaceOf, traversalIds } from '../../kernel/policy.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../accounts/project.table.js';

export const NEW_LABEL_COLOR = '#428BCA';

interface LabelRef {
  id: number;
  title: string;
}

/** Trimmed, non-empty titles without repeats (compared case-insensitively; the first spelling wins). */
export function cleanLabelTitles(titles: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of titles) {
    const title = raw.trim();
    const key = title.toLowerCase();
    if (title === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(title);
  }
  return out;
}

/** Ids of the groups whose labels the project may use: its namespace and its ancestors. */
export async function labelGroupIds(ctx: Ctx, project: ProjectRow): Promise<number[]> {
  const ns = await namespaceOf(ctx, project.namespace_id);
  return ns.kind === 'group' ? traversalIds(ns.traversal) : [];
}

async function selectLabelsByTitles(db: Kysely<Database>, projectId: number, groupIds: number[], titles: string[]): Promise<LabelRef[]> {
  const lowered = titles.map((t) => t.toLowerCase());
  const rows = await db
    .selectFrom('labels')
    .select(['id', 'title', 'project_id'])
    .where((eb) => eb.or([eb('project_id', '=', projectId), ...(groupIds.length ? [eb('group_id', 'in', groupIds)] : [])]))
    .where((eb) => eb.or([eb(sql`lower(title)`, 'in', lowered), eb('title', 'in', titles)]))
    // a project label wins over a group label of the same title
    .orderBy(sql`case when project_id is null then 1 else 0 end`)
    .orderBy('id')
    .execute();
  return rows;
}

function pick(found: LabelRef[], title: string): LabelRef | undefined {
  const key = title.toLowerCase();
  return found.find((l) => l.title.toLowerCase() === key);
}

/**
 * The labels named by `titles`, in the given order. With `create`, unknown titles become
 * project labels (#428BCA); without, they are skipped (as `remove_labels` does).
 */
export async function resolveLabels(
  trx: Kysely<Database>,
  project: ProjectRow,
  groupIds: number[],
  titles: readonly string[],
  options: { create: boolean; now: string },
): Promise<LabelRef[]> {
  const wanted = cleanLabelTitles(titles);
  if (wanted.length === 0) return [];
  let found = await selectLabelsByTitles(trx, project.id, groupIds, wanted);
  const missing = wanted.filter((t) => !pick(found, t));
  if (options.create && missing.length) {
    // A concurrent request may create the same title: keep its label.
    await trx
      .insertInto('labels')
      .values(missing.map((title) => ({ project_id: project.id, group_id: null, title, color: NEW_LABEL_COLOR, description: null, created_at: options.now, updated_at: options.now })))
      .onConflict((oc) => oc.doNothing())
      .execute();
    found = await selectLabelsByTitles(trx, project.id, groupIds, wanted);
  }
  return wanted.map((t) => pick(found, t)).filter((l): l is LabelRef => l !== undefined);
}

export async function selectMergeRequestLabelIds(db: Kysely<Database>, mergeRequestId: number): Promise<number[]> {
  const rows = await db.selectFrom('label_links').select('label_id').where('target_type', '=', 'MergeRequest').where('target_id', '=', mergeRequestId).execute();
  return rows.map((r) => r.label_id);
}

/** Makes `labelIds` the merge request's labels, keeping links that stay. */
export async function replaceMergeRequestLabels(trx: Kysely<Database>, mergeRequestId: number, labelIds: number[], now: string): Promise<void> {
  const current = new Set(await selectMergeRequestLabelIds(trx, mergeRequestId));
  const next = new Set(labelIds);
  const removed = [...current].filter((id) => !next.has(id));
  const added = [...next].filter((id) => !current.has(id));
  if (removed.length) {
    await trx.deleteFrom('label_links').where('target_type', '=', 'MergeRequest').where('target_id', '=', mergeRequestId).where('label_id', 'in', removed).execute();
  }
  if (added.length) {
    await trx.insertInto('label_links').values(added.map((label_id) => ({ label_id, target_type: 'MergeRequest', target_id: mergeRequestId, created_at: now }))).execute();
  }
}
