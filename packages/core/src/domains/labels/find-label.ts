/** Resolving the group or project of a label route, and a label by id or title inside it. */
import type { Ctx } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import { MAX_DB_INTEGER } from '../../kernel/params.js';
import { authorize, namespaceOf } from '../../access/policy.js';
import { findGroup, findProject } from '../../access/lookup.js';
import { labelScopeCondition, type LabelParent, type LabelScopeOptions } from './label.queries.js';
import type { LabelRow } from './label.table.js';

export type LabelParentKind = 'group' | 'project';
export type LabelAbility = 'read_label' | 'admin_label';

/** The group or project (404 when the caller can't see it, 403 without the ability). */
export async function findLabelParent(ctx: Ctx, kind: LabelParentKind, ref: string, ability: LabelAbility): Promise<LabelParent> {
  const parent: LabelParent = kind === 'group' ? { kind: 'group', group: await findGroup(ctx, ref) } : { kind: 'project', project: await findProject(ctx, ref) };
  await authorize(ctx, ability, parent);
  return parent;
}

/** What GitLab's update and delete look in: the parent's own labels (a project's group's too). */
export const OWN_LABELS: LabelScopeOptions = { includeAncestorGroups: false, includeDescendantGroups: false, onlyGroupLabels: true };
/** What subscribe and create's duplicate check look in. */
export const AVAILABLE_LABELS: LabelScopeOptions = { includeAncestorGroups: true, includeDescendantGroups: false, onlyGroupLabels: true };

const NUMERIC = /^\d+$/;

/** The ref as given, then URL-decoded (python-gitlab's lazy objects send `bug%20label` in a body). */
function spellings(ref: string | number): string[] {
  const text = String(ref);
  let decoded = text;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    // not valid percent-encoding: only the text as given
  }
  return decoded === text ? [text] : [text, decoded];
}

/** Nearer labels win a title tie: the project's own, then deeper groups. */
async function depthOf(ctx: Ctx, row: LabelRow): Promise<number> {
  if (row.project_id !== null) return Number.MAX_SAFE_INTEGER;
  const ns = await namespaceOf(ctx, row.group_id!);
  return ns.traversal.length;
}

/**
 * A label the parent sees, by id (all digits) or title (exact case first, then any case);
 * each spelling of `ref` in turn. 404 `Label Not Found` otherwise.
 */
export async function findLabel(ctx: Ctx, parent: LabelParent, ref: string | number, options: LabelScopeOptions): Promise<LabelRow> {
  const scope = await labelScopeCondition(ctx, parent, options);
  for (const text of spellings(ref)) {
    if (NUMERIC.test(text) && Number(text) <= MAX_DB_INTEGER) {
      const byId = await ctx.db.selectFrom('labels as l').selectAll('l').where('l.id', '=', Number(text)).where(scope).executeTakeFirst();
      if (byId) return byId;
    }
    const rows = await ctx.db
      .selectFrom('labels as l')
      .selectAll('l')
      .where((eb) => eb(eb.fn('lower', ['l.title']), '=', text.toLowerCase()))
      .where(scope)
      .execute();
    if (rows.length === 0) continue;
    const ranked = await Promise.all(rows.map(async (row) => ({ row, exact: row.title === text ? 1 : 0, depth: await depthOf(ctx, row) })));
    ranked.sort((a, b) => b.exact - a.exact || b.depth - a.depth || a.row.id - b.row.id);
    return ranked[0]!.row;
  }
  throw new NotFoundError('Label');
}
