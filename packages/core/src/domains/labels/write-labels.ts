/**
 * Changing labels: create, update, delete, subscribe and unsubscribe, for group and
 * project labels alike. Model problems answer 400 `{"message":{"field":[…]}}` and nothing is
 * written; a title the parent already sees answers 409 `Label already exists`.
 */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ConflictError, NotModifiedError, PreconditionError } from '../../kernel/errors.js';
import { authorize, namespaceOf, requireUser } from '../../access/policy.js';
import { bool, isUniqueViolation } from '../../storage/dialect.js';
import { AVAILABLE_LABELS, findLabel, findLabelParent, OWN_LABELS, type LabelParentKind } from './find-label.js';
import { DEFAULT_LABEL_COLOR } from './label-links.js';
import { parseColor } from './label-format.js';
import type { LabelEntity } from './label.entity.js';
import { labelScopeCondition, type LabelParent } from './label.queries.js';
import type { CreateLabelInput, LabelChangesInput } from './label.schema.js';
import type { LabelRow, LabelTable } from './label.table.js';
import { presentLabel } from './labels.js';

const MAX_TITLE = 255;
const INVALID_COLOR = 'must be a valid color code';
const TITLE_TAKEN = 'has already been taken';

type Problems = Record<string, string[]>;

/** GitLab's Label validations on a (stripped) title. */
function titleProblems(title: string): string[] {
  if (title === '') return ["can't be blank", 'is invalid'];
  const out: string[] = [];
  if (title.includes(',')) out.push('is invalid');
  if (title.length > MAX_TITLE) out.push(`is too long (maximum is ${MAX_TITLE} characters)`);
  return out;
}

function refuse(problems: Problems): never {
  throw new BadRequestError(problems, { raw: true });
}

/** Does the parent already see a label with this title (any case)? */
async function titleTaken(ctx: Ctx, parent: LabelParent, title: string): Promise<boolean> {
  const scope = await labelScopeCondition(ctx, parent, AVAILABLE_LABELS);
  const row = await ctx.db
    .selectFrom('labels as l')
    .select('l.id')
    .where((eb) => eb(eb.fn('lower', ['l.title']), '=', title.toLowerCase()))
    .where(scope)
    .executeTakeFirst();
  return row !== undefined;
}

/** Another label of the same group or project with this title (any case)? */
async function siblingTitleTaken(ctx: Ctx, label: LabelRow, title: string): Promise<boolean> {
  let q = ctx.db
    .selectFrom('labels')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['title']), '=', title.toLowerCase()))
    .where('id', '!=', label.id);
  q = label.project_id !== null ? q.where('project_id', '=', label.project_id) : q.where('group_id', '=', label.group_id);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Sets a label's priority in a project (insert or replace). */
async function setLabelPriority(trx: Kysely<Database>, projectId: number, labelId: number, priority: number, now: string): Promise<void> {
  await trx
    .insertInto('label_priorities')
    .values({ project_id: projectId, label_id: labelId, priority, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['project_id', 'label_id']).doUpdateSet({ priority, updated_at: now }))
    .execute();
}

/** POST /groups/:id/labels, POST /projects/:id/labels (Reporter; `priority` on project labels). */
export async function createLabel(ctx: Ctx, kind: LabelParentKind, input: CreateLabelInput): Promise<LabelEntity> {
  const parent = await findLabelParent(ctx, kind, input.id, 'admin_label');
  const title = input.name.trim();
  if (title !== '' && (await titleTaken(ctx, parent, title))) throw new ConflictError('Label already exists');
  const problems: Problems = {};
  const titleIssues = titleProblems(title);
  if (titleIssues.length) problems.title = titleIssues;
  const color = parseColor(input.color);
  if (!color) problems.color = [INVALID_COLOR];
  if (Object.keys(problems).length) refuse(problems);
  const now = nowIso(ctx);
  let row: LabelRow;
  try {
    row = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await trx
        .insertInto('labels')
        .values({
          project_id: parent.kind === 'project' ? parent.project.id : null,
          group_id: parent.kind === 'group' ? parent.group.id : null,
          title,
          color: color ?? DEFAULT_LABEL_COLOR,
          description: input.description ?? null,
          archived: bool(input.archived),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (parent.kind === 'project' && input.priority != null) await setLabelPriority(trx, parent.project.id, inserted.id, input.priority, now);
      return inserted;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError('Label already exists');
    throw err;
  }
  return presentLabel(ctx, parent, row);
}

/**
 * The label an update or delete addresses: the parent's own (from a project, its group's
 * too; changing a group label then needs admin_label on that group).
 */
async function findOwnLabel(ctx: Ctx, parent: LabelParent, ref: string | number): Promise<LabelRow> {
  const label = await findLabel(ctx, parent, ref, OWN_LABELS);
  if (parent.kind === 'project' && label.group_id !== null) {
    await authorize(ctx, 'admin_label', { kind: 'group', group: await namespaceOf(ctx, label.group_id) });
  }
  return label;
}

/** PUT /groups/:id/labels/:label_id, PUT /projects/:id/labels/:label_id and the deprecated PUT …/labels. */
export async function updateLabel(ctx: Ctx, kind: LabelParentKind, parentRef: string, labelRef: string | number, changes: LabelChangesInput): Promise<LabelEntity> {
  const parent = await findLabelParent(ctx, kind, parentRef, 'admin_label');
  const label = await findOwnLabel(ctx, parent, labelRef);
  const problems: Problems = {};
  const set: Partial<Record<keyof LabelTable, unknown>> = {};
  if (changes.new_name !== undefined) {
    const title = changes.new_name.trim();
    const titleIssues = titleProblems(title);
    if (titleIssues.length) problems.title = titleIssues;
    else if (title.toLowerCase() !== label.title.toLowerCase() && (await siblingTitleTaken(ctx, label, title))) problems.title = [TITLE_TAKEN];
    set.title = title;
  }
  if (changes.color !== undefined) {
    const color = parseColor(changes.color);
    if (!color) problems.color = [INVALID_COLOR];
    set.color = color;
  }
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.archived !== undefined) set.archived = bool(changes.archived);
  if (Object.keys(problems).length) refuse(problems);
  const now = nowIso(ctx);
  try {
    await ctx.db.transaction().execute(async (trx) => {
      if (Object.keys(set).length) {
        await trx
          .updateTable('labels')
          .set({ ...(set as Partial<LabelRow>), updated_at: now })
          .where('id', '=', label.id)
          .execute();
      }
      // GitLab's prioritize! / unprioritize!: a label's priority belongs to the project it is set from.
      if (parent.kind === 'project' && changes.priority !== undefined) {
        if (changes.priority === null) await trx.deleteFrom('label_priorities').where('project_id', '=', parent.project.id).where('label_id', '=', label.id).execute();
        else await setLabelPriority(trx, parent.project.id, label.id, changes.priority, now);
      }
    });
  } catch (err) {
    if (isUniqueViolation(err)) refuse({ title: [TITLE_TAKEN] });
    throw err;
  }
  const row = await ctx.db.selectFrom('labels').selectAll().where('id', '=', label.id).executeTakeFirstOrThrow();
  return presentLabel(ctx, parent, row);
}

/** DELETE …/labels/:label_id and the deprecated DELETE …/labels (204); its links and subscriptions go with it. */
export async function deleteLabel(ctx: Ctx, kind: LabelParentKind, parentRef: string, labelRef: string | number, options: { unmodifiedSince?: Date } = {}): Promise<void> {
  const parent = await findLabelParent(ctx, kind, parentRef, 'admin_label');
  const label = await findOwnLabel(ctx, parent, labelRef);
  if (options.unmodifiedSince && new Date(label.updated_at).getTime() > options.unmodifiedSince.getTime()) throw new PreconditionError();
  await ctx.db.deleteFrom('labels').where('id', '=', label.id).execute();
}

/**
 * POST …/labels/:label_id/subscribe and /unsubscribe (any reader): 201 with the label, or
 * 304 (NotModifiedError) when the caller already is, or is not, subscribed.
 */
export async function setLabelSubscription(ctx: Ctx, kind: LabelParentKind, parentRef: string, labelRef: string, subscribe: boolean): Promise<LabelEntity> {
  const user = requireUser(ctx);
  const parent = await findLabelParent(ctx, kind, parentRef, 'read_label');
  const label = await findLabel(ctx, parent, labelRef, AVAILABLE_LABELS);
  let changed: bigint;
  if (subscribe) {
    const r = await ctx.db
      .insertInto('label_subscriptions')
      .values({ label_id: label.id, user_id: user.id, created_at: nowIso(ctx) })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    changed = r.numInsertedOrUpdatedRows ?? 0n;
  } else {
    const r = await ctx.db.deleteFrom('label_subscriptions').where('label_id', '=', label.id).where('user_id', '=', user.id).executeTakeFirst();
    changed = r.numDeletedRows;
  }
  if (Number(changed) === 0) throw new NotModifiedError();
  return presentLabel(ctx, parent, label);
}
