import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { nextIid } from '../../kernel/ids.js';
import { findIterationGroup } from './iteration-access.js';
import { toIterationEntity, type IterationEntity } from './iteration.entity.js';
import { insertIteration, lockCadence, renumberSequences, selectCadenceInGroup, selectCadenceIterations } from './iteration.queries.js';
import type { CreateIterationInput } from './iteration.schema.js';

/**
 * POST /forgelet/groups/:id/iterations (admin_iteration: Reporter): an iteration in one of
 * the group's manual cadences. Automatic cadences schedule their own (400). Dates may not
 * overlap another iteration of the cadence (400, GitLab's message); `sequence` follows the
 * start dates.
 */
export async function createIteration(ctx: Ctx, input: CreateIterationInput): Promise<IterationEntity> {
  const group = await findIterationGroup(ctx, input.id, 'admin_iteration');
  const cadence = await selectCadenceInGroup(ctx.db, group.id, input.cadence_id);
  if (!cadence) throw new NotFoundError('Iteration Cadence');
  if (cadence.automatic === 1) throw new BadRequestError('Iterations cannot be manually added to cadences that use automatic scheduling');
  if (input.due_date < input.start_date) throw new BadRequestError({ due_date: ['must be greater than start date'] }, { raw: true });
  const stamp = ctx.clock.now().toISOString();
  const row = await ctx.db.transaction().execute(async (trx) => {
    await lockCadence(trx, cadence.id);
    const existing = await selectCadenceIterations(trx, cadence.id);
    if (existing.some((i) => i.start_date <= input.due_date && i.due_date >= input.start_date)) {
      throw new BadRequestError({ base: ['Dates cannot overlap with other existing Iterations within this iterations cadence'] }, { raw: true });
    }
    if (input.title !== undefined && existing.some((i) => i.title === input.title)) {
      throw new BadRequestError({ title: ['has already been taken'] }, { raw: true });
    }
    const inserted = await insertIteration(trx, {
      group_id: group.id,
      iteration_cadence_id: cadence.id,
      iid: await nextIid(trx, 'iterations', `group:${group.id}`),
      sequence: existing.length + 1,
      title: input.title ?? null,
      description: input.description ?? null,
      start_date: input.start_date,
      due_date: input.due_date,
      created_at: stamp,
      updated_at: stamp,
    });
    await renumberSequences(trx, cadence.id);
    return trx.selectFrom('iterations').selectAll().where('id', '=', inserted.id).executeTakeFirstOrThrow();
  });
  return toIterationEntity(row, group.full_path, isoDate(ctx.clock.now()), ctx.urls);
}
