/** Checks and conversions shared by creating and updating epics. */
import type { Ctx } from '../../access/context.js';
import { BadRequestError, ForbiddenError } from '../../kernel/errors.js';
import { can, traversalIds } from '../../access/policy.js';
import { tierAtLeast } from '../../kernel/tiers.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { normalizeLabelTitles, type LabelChanges } from '../labels/index.js';
import { EPIC_LINKS_TIER, findReadableEpicById } from './find-epic.js';
import type { EpicRow } from './epic.table.js';

const MAX_TITLE = 255;
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** GitLab's model validation of title and color, as `render_validation_error!` answers it (400). */
export function checkEpicFields(input: { title?: string; color?: string }): void {
  const errors: Record<string, string[]> = {};
  if (input.title !== undefined) {
    if (input.title.trim() === '') errors.title = ["can't be blank"];
    else if (input.title.length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
  }
  if (input.color !== undefined && !HEX.test(input.color.trim())) errors.color = ['must be a valid color code'];
  if (Object.keys(errors).length) throw new BadRequestError(errors);
}

/** `#RGB` and `#RRGGBB` as lower-case `#rrggbb`. */
export function normalizeColor(color: string): string {
  const c = color.trim().toLowerCase();
  return c.length === 4 ? `#${c[1]}${c[1]}${c[2]}${c[2]}${c[3]}${c[3]}` : c;
}

/** Label changes on an epic: group labels of its group and ancestors; unknown titles become labels of its group. */
export function epicLabelChanges(
  group: NamespaceRow,
  input: { labels?: readonly string[]; add_labels?: readonly string[]; remove_labels?: readonly string[] },
): LabelChanges | undefined {
  if (input.labels === undefined && input.add_labels === undefined && input.remove_labels === undefined) return undefined;
  return {
    scope: { projectId: null, groupIds: traversalIds(group.traversal) },
    replace: input.labels === undefined ? undefined : normalizeLabelTitles(input.labels),
    add: normalizeLabelTitles(input.add_labels ?? []),
    remove: normalizeLabelTitles(input.remove_labels ?? []),
  };
}

export const NO_MATCHING_EPIC = 'No matching epic found. Make sure that you are adding a valid epic URL.';

/**
 * `parent_id` on create or update: multi-level epics need Ultimate (403); an epic the caller
 * can't read or link (Guest on its group) is a validation error on `parent`.
 */
export async function resolveParent(ctx: Ctx, parentId: number): Promise<EpicRow> {
  if (!tierAtLeast(ctx.config.tier, EPIC_LINKS_TIER)) throw new ForbiddenError();
  const found = await findReadableEpicById(ctx, parentId);
  if (!found || !(await can(ctx, 'admin_epic_relation', { kind: 'group', group: found.group }))) {
    throw new BadRequestError({ parent: [NO_MATCHING_EPIC] });
  }
  return found.epic;
}
