import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { nextIid } from '../../kernel/ids.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import { bool } from '../../storage/dialect.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { applyLabelChanges } from '../labels/index.js';
import type { EpicEntity } from './epic.entity.js';
import { checkEpicFields, epicLabelChanges, normalizeColor, resolveParent } from './epic-fields.js';
import { insertEpic } from './epic.queries.js';
import type { CreateEpicInput } from './epic.schema.js';
import type { EpicRow } from './epic.table.js';
import { startPosition, treeProblem } from './epic-tree.js';
import { findEpicGroup } from './find-epic.js';
import { presentEpic } from './present-epics.js';

export interface NewEpic {
  title: string;
  description?: string | null;
  color?: string;
  confidential?: boolean;
  start_date?: string;
  start_date_is_fixed?: boolean;
  end_date?: string;
  due_date_is_fixed?: boolean;
  labels?: string[];
  created_at?: Date;
}

/**
 * Inserts an epic of `group` (under `parent` when given, first among its children) in one
 * transaction with its labels. Tree rules refused answer 400 with the model errors, as
 * GitLab's `render_validation_error!`.
 */
export async function insertNewEpic(ctx: Ctx, group: NamespaceRow, input: NewEpic, parent: EpicRow | null): Promise<EpicRow> {
  const user = ctx.actor.user!;
  const labels = epicLabelChanges(group, input);
  const now = nowIso(ctx);
  const confidential = input.confidential ?? false;
  return ctx.db.transaction().execute(async (trx) => {
    let position: number | null = null;
    if (parent) {
      const problem = await treeProblem(trx, parent, null, confidential);
      if (problem) throw new BadRequestError({ [problem.field]: [problem.message] });
      position = await startPosition(trx, parent.id);
    }
    // GitLab fixes a date given without its `*_is_fixed` flag.
    const startFixed = input.start_date_is_fixed ?? input.start_date !== undefined;
    const dueFixed = input.due_date_is_fixed ?? input.end_date !== undefined;
    const row = await insertEpic(trx, {
      group_id: group.id,
      iid: await nextIid(trx, 'epics', `group:${group.id}`),
      title: input.title,
      description: input.description ?? null,
      state: 'opened',
      author_id: user.id,
      parent_id: parent?.id ?? null,
      relative_position: position,
      confidential: bool(confidential),
      start_date_fixed: input.start_date ?? null,
      start_date_is_fixed: bool(startFixed),
      due_date_fixed: input.end_date ?? null,
      due_date_is_fixed: bool(dueFixed),
      ...(input.color !== undefined ? { color: normalizeColor(input.color) } : {}),
      closed_at: null,
      closed_by_id: null,
      created_at: input.created_at ? input.created_at.toISOString() : now,
      updated_at: now,
    });
    if (labels) await applyLabelChanges(trx, 'Epic', row.id, labels, now);
    return row;
  });
}

/**
 * POST /groups/:id/epics (Reporter: `admin_epic` on the group). `created_at` is honoured for
 * admins and group owners only. Unknown label titles become labels of the group.
 */
export async function createEpic(ctx: Ctx, input: CreateEpicInput): Promise<EpicEntity> {
  requireUser(ctx);
  const group = await findEpicGroup(ctx, input.id);
  await authorize(ctx, 'admin_epic', { kind: 'group', group });
  checkEpicFields(input);
  const parent = input.parent_id !== undefined ? await resolveParent(ctx, input.parent_id) : null;
  const mayBackdate = input.created_at !== undefined && (await can(ctx, 'admin_group', { kind: 'group', group }));
  const row = await insertNewEpic(ctx, group, { ...input, created_at: mayBackdate ? input.created_at : undefined }, parent);
  return presentEpic(ctx, row, group);
}
