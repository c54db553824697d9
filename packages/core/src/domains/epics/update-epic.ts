import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { authorize, can, requireUser } from '../../access/policy.js';
import { bool } from '../../storage/dialect.js';
import { applyLabelChanges } from '../labels/index.js';
import { recordStateEvent } from '../state-events/index.js';
import type { EpicEntity } from './epic.entity.js';
import { checkEpicFields, epicLabelChanges, normalizeColor, resolveParent } from './epic-fields.js';
import { closeEpicById, reopenEpicById, selectChildren, selectEpicById, updateEpicById, type EpicUpdate } from './epic.queries.js';
import type { UpdateEpicInput } from './epic.schema.js';
import { startPosition, treeProblem } from './epic-tree.js';
import { findEpic, findEpicGroup } from './find-epic.js';
import { presentEpic } from './present-epics.js';

/**
 * PUT /groups/:id/epics/:epic_iid (Reporter: `admin_epic`). A close or reopen that changes
 * the state records a resource state event in the same transaction. Model errors
 * (blank title, confidentiality against the tree, tree rules for `parent_id`) answer 400
 * with nothing written.
 */
export async function updateEpic(ctx: Ctx, input: UpdateEpicInput): Promise<EpicEntity> {
  const user = requireUser(ctx);
  const group = await findEpicGroup(ctx, input.id);
  const epic = await findEpic(ctx, group, input.epic_iid);
  await authorize(ctx, 'admin_epic', { kind: 'group', group });
  checkEpicFields(input);
  const newParent = input.parent_id !== undefined && input.parent_id !== epic.parent_id ? await resolveParent(ctx, input.parent_id) : null;
  const mayBackdate = input.updated_at !== undefined && (await can(ctx, 'admin_group', { kind: 'group', group }));

  const set: EpicUpdate = {};
  if (input.title !== undefined && input.title !== epic.title) set.title = input.title;
  if (input.description !== undefined && input.description !== epic.description) set.description = input.description;
  if (input.color !== undefined && normalizeColor(input.color) !== epic.color) set.color = normalizeColor(input.color);
  if (input.confidential !== undefined && bool(input.confidential) !== epic.confidential) set.confidential = bool(input.confidential);
  if (input.start_date !== undefined) {
    set.start_date_fixed = input.start_date;
    if (input.start_date_is_fixed === undefined) set.start_date_is_fixed = 1;
  }
  if (input.start_date_is_fixed !== undefined) set.start_date_is_fixed = bool(input.start_date_is_fixed);
  if (input.end_date !== undefined) {
    set.due_date_fixed = input.end_date;
    if (input.due_date_is_fixed === undefined) set.due_date_is_fixed = 1;
  }
  if (input.due_date_is_fixed !== undefined) set.due_date_is_fixed = bool(input.due_date_is_fixed);
  const labels = epicLabelChanges(group, input);
  const now = nowIso(ctx);
  const confidential = set.confidential ?? epic.confidential;

  const row = await ctx.db.transaction().execute(async (trx) => {
    if (set.confidential === 1 && (await selectChildren(trx, epic.id)).some((c) => c.confidential === 0)) {
      throw new BadRequestError({ confidential: ['Cannot make the epic confidential if it contains non-confidential child epics'] });
    }
    if (newParent) {
      const problem = await treeProblem(trx, newParent, epic, confidential === 1);
      if (problem) throw new BadRequestError({ [problem.field]: [problem.message] });
      set.parent_id = newParent.id;
      set.relative_position = await startPosition(trx, newParent.id);
    } else if (set.confidential === 0 && epic.parent_id !== null) {
      const parent = await selectEpicById(trx, epic.parent_id);
      if (parent?.confidential === 1) throw new BadRequestError({ confidential: ['A non-confidential epic cannot be assigned to a confidential parent epic'] });
    }
    let touched = Object.keys(set).length > 0;
    if (labels && (await applyLabelChanges(trx, 'Epic', epic.id, labels, now))) touched = true;
    if (input.state_event === 'close' && (await closeEpicById(trx, epic.id, user.id, now))) {
      await recordStateEvent(trx, { type: 'Epic', id: epic.id }, 'closed', user.id, now);
      touched = true;
    }
    if (input.state_event === 'reopen' && (await reopenEpicById(trx, epic.id, now))) {
      await recordStateEvent(trx, { type: 'Epic', id: epic.id }, 'reopened', user.id, now);
      touched = true;
    }
    if (touched || mayBackdate) await updateEpicById(trx, epic.id, { ...set, updated_at: mayBackdate ? input.updated_at!.toISOString() : now });
    return (await selectEpicById(trx, epic.id))!;
  });
  return presentEpic(ctx, row, group);
}
