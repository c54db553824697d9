/** Forgelet's REST extension for iteration cadences (GitLab manages them in GraphQL only). */
import type { Kysely } from 'kysely';
import { isoDate } from '../../kernel/clock.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, NotFoundError } from '../../kernel/errors.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import type { Database } from '../../storage/database.js';
import { bool } from '../../storage/dialect.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import { findIterationGroup } from './iteration-access.js';
import { toIterationCadenceEntity, type IterationCadenceEntity } from './iteration.entity.js';
import {
  addDays,
  deleteCadenceById,
  deletePendingSchedule,
  insertCadence,
  lockCadence,
  selectCadenceInGroup,
  selectCadenceIterations,
  updateCadenceById,
  updateIterationDates,
} from './iteration.queries.js';
import type { CreateIterationCadenceInput, IterationCadencePathInput, ListIterationCadencesInput, UpdateIterationCadenceInput } from './iteration.schema.js';
import type { IterationCadenceRow, IterationRow } from './iteration.table.js';
import { canBeAutomated, requestSchedule } from './schedule-iterations.js';

type Errors = Record<string, string[]>;

interface CadenceSettings {
  start_date: string;
  duration_in_weeks: number | null;
  iterations_in_advance: number | null;
  automatic: boolean;
}

const addError = (errors: Errors, field: string, message: string) => (errors[field] ??= []).push(message);

/** GitLab's cadence validations, as a model-error hash (400 `{"message":{field:[…]}}`). */
function checkSettings(s: CadenceSettings, given: { start_date: boolean }, errors: Errors): void {
  if (s.duration_in_weeks !== null && (s.duration_in_weeks < 1 || s.duration_in_weeks > 4)) addError(errors, 'duration_in_weeks', 'is not included in the list');
  if (s.iterations_in_advance !== null && (s.iterations_in_advance < 1 || s.iterations_in_advance > 10))
    addError(errors, 'iterations_in_advance', 'is not included in the list');
  if (!s.automatic) return;
  if (!given.start_date) addError(errors, 'start_date', "can't be blank");
  if (s.duration_in_weeks === null) addError(errors, 'duration_in_weeks', "can't be blank");
  if (s.iterations_in_advance === null) addError(errors, 'iterations_in_advance', "can't be blank");
}

/**
 * The automation start date may not fall inside or before iterations that have started,
 * nor create an iteration that is already over (GitLab's three start-date validations).
 */
function checkAutomationStart(s: CadenceSettings, iterations: IterationRow[], today: string, errors: Errors): void {
  const started = iterations.filter((i) => i.start_date <= today);
  const last = started.at(-1);
  if (last) {
    if (s.start_date <= last.due_date) {
      const which = last.due_date >= today ? 'active' : 'past';
      addError(errors, 'base', `The automation start date must come after the ${which} iteration ${last.start_date} - ${last.due_date}.`);
    }
    return;
  }
  const earliest = addDays(today, -(s.duration_in_weeks! * 7) + 1);
  if (s.start_date < earliest) {
    addError(errors, 'base', `The automation start date would retroactively create a past iteration. ${earliest} is the earliest possible start date.`);
  }
}

function throwIfAny(errors: Errors): void {
  if (Object.keys(errors).length) throw new BadRequestError(errors, { raw: true });
}

async function findCadence(db: Kysely<Database>, group: NamespaceRow, cadenceId: number): Promise<IterationCadenceRow> {
  const cadence = await selectCadenceInGroup(db, group.id, cadenceId);
  if (!cadence) throw new NotFoundError('Iteration Cadence');
  return cadence;
}

/** GET /forgelet/groups/:id/iteration_cadences: the group's own cadences by id (read_iteration). */
export async function listIterationCadences(ctx: Ctx, input: ListIterationCadencesInput): Promise<Page<IterationCadenceEntity>> {
  const group = await findIterationGroup(ctx, input.id, 'read_iteration');
  const q = ctx.db.selectFrom('iteration_cadences').selectAll().where('group_id', '=', group.id).orderBy('id');
  return paginate(ctx.db, q, input, (rows) => rows.map(toIterationCadenceEntity));
}

/** GET /forgelet/groups/:id/iteration_cadences/:cadence_id */
export async function getIterationCadence(ctx: Ctx, input: IterationCadencePathInput): Promise<IterationCadenceEntity> {
  const group = await findIterationGroup(ctx, input.id, 'read_iteration');
  return toIterationCadenceEntity(await findCadence(ctx.db, group, input.cadence_id));
}

/**
 * POST /forgelet/groups/:id/iteration_cadences (admin_iteration: Reporter). Automatic
 * cadences (the default) need start_date, duration_in_weeks (1-4) and
 * iterations_in_advance (1-10) and schedule their iterations through the queue; a
 * manual cadence's start date defaults to today and roll_over is always false.
 */
export async function createIterationCadence(ctx: Ctx, input: CreateIterationCadenceInput): Promise<IterationCadenceEntity> {
  const group = await findIterationGroup(ctx, input.id, 'admin_iteration');
  const now = ctx.clock.now();
  const today = isoDate(now);
  const settings: CadenceSettings = {
    start_date: input.start_date ?? today,
    duration_in_weeks: input.duration_in_weeks ?? null,
    iterations_in_advance: input.iterations_in_advance ?? null,
    automatic: input.automatic ?? true,
  };
  const errors: Errors = {};
  checkSettings(settings, { start_date: input.start_date !== undefined }, errors);
  if (settings.automatic && !Object.keys(errors).length) checkAutomationStart(settings, [], today, errors);
  throwIfAny(errors);
  const stamp = now.toISOString();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const cadence = await insertCadence(trx, {
      group_id: group.id,
      title: input.title,
      description: input.description ?? null,
      start_date: settings.start_date,
      duration_in_weeks: settings.duration_in_weeks,
      iterations_in_advance: settings.iterations_in_advance,
      automatic: bool(settings.automatic),
      active: input.active === false ? 0 : 1,
      roll_over: bool(settings.automatic && input.roll_over),
      created_at: stamp,
      updated_at: stamp,
    });
    if (canBeAutomated(cadence)) await requestSchedule(trx, ctx.queue, cadence.id, now);
    return cadence;
  });
  return toIterationCadenceEntity(row);
}

/**
 * PUT /forgelet/groups/:id/iteration_cadences/:cadence_id. Turning a cadence manual clears
 * its automation settings; moving the start date or changing the duration re-aligns the
 * iterations that have not started yet (GitLab never deletes iterations), and any change to
 * an active automatic cadence asks for a scheduling run.
 */
export async function updateIterationCadence(ctx: Ctx, input: UpdateIterationCadenceInput): Promise<IterationCadenceEntity> {
  const group = await findIterationGroup(ctx, input.id, 'admin_iteration');
  await findCadence(ctx.db, group, input.cadence_id);
  const now = ctx.clock.now();
  const today = isoDate(now);
  const stamp = nowIso(ctx);
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await lockCadence(trx, input.cadence_id);
    if (!before) throw new NotFoundError('Iteration Cadence');
    const automatic = input.automatic ?? before.automatic === 1;
    const toManual = !automatic && before.automatic === 1;
    const settings: CadenceSettings = {
      start_date: input.start_date ?? before.start_date,
      duration_in_weeks: toManual ? null : (input.duration_in_weeks ?? before.duration_in_weeks),
      iterations_in_advance: toManual ? null : (input.iterations_in_advance ?? before.iterations_in_advance),
      automatic,
    };
    const moved = settings.start_date !== before.start_date || settings.duration_in_weeks !== before.duration_in_weeks;
    const errors: Errors = {};
    checkSettings(settings, { start_date: true }, errors);
    const iterations = await selectCadenceIterations(trx, before.id);
    if (automatic && (moved || before.automatic === 0) && !Object.keys(errors).length) checkAutomationStart(settings, iterations, today, errors);
    throwIfAny(errors);
    const after = await updateCadenceById(trx, before.id, {
      title: input.title ?? before.title,
      description: input.description === undefined ? before.description : input.description,
      start_date: settings.start_date,
      duration_in_weeks: settings.duration_in_weeks,
      iterations_in_advance: settings.iterations_in_advance,
      automatic: bool(automatic),
      active: input.active === undefined ? before.active : bool(input.active),
      roll_over: bool(automatic && (input.roll_over ?? before.roll_over === 1)),
      updated_at: stamp,
    });
    if (automatic && moved) {
      let start = settings.start_date;
      for (const it of iterations.filter((i) => i.start_date > today)) {
        const due = addDays(start, settings.duration_in_weeks! * 7 - 1);
        if (it.start_date !== start || it.due_date !== due) await updateIterationDates(trx, it.id, start, due, stamp);
        start = addDays(due, 1);
      }
    }
    if (canBeAutomated(after)) await requestSchedule(trx, ctx.queue, after.id, now);
    return after;
  });
  return toIterationCadenceEntity(row);
}

/** DELETE /forgelet/groups/:id/iteration_cadences/:cadence_id: the cadence with its iterations. */
export async function deleteIterationCadence(ctx: Ctx, input: IterationCadencePathInput): Promise<void> {
  const group = await findIterationGroup(ctx, input.id, 'admin_iteration');
  const cadence = await findCadence(ctx.db, group, input.cadence_id);
  await ctx.db.transaction().execute(async (trx) => {
    await deleteCadenceById(trx, cadence.id);
    await deletePendingSchedule(trx, cadence.id);
  });
}

/** The group a cadence belongs to (GraphQL names a cadence by its Global ID alone); null when there is no such cadence. The use cases then check access. */
export async function selectCadenceGroupId(db: Kysely<Database>, cadenceId: number): Promise<number | null> {
  const row = await db.selectFrom('iteration_cadences').select('group_id').where('id', '=', cadenceId).executeTakeFirst();
  return row?.group_id ?? null;
}
