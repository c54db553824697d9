/** Creating, changing and deleting milestones (GitLab's Milestones::{Create,Update,Destroy}Service). */
import { recordProjectActivity } from '../../access/project-activity.js';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { nextIid } from '../../kernel/ids.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/database.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { findMilestone, findMilestoneParent, ownerOf, type MilestoneParent, type MilestoneParentKind } from './find-milestone.js';
import type { MilestoneEntity } from './milestone.entity.js';
import { deleteMilestoneById, insertMilestone, selectMilestoneWithTitle, updateMilestoneById, type MilestoneUpdate } from './milestone.queries.js';
import type { CreateMilestoneInput, MilestoneRefInput, UpdateMilestoneInput } from './milestone.schema.js';
import type { MilestoneRow } from './milestone.table.js';
import { presentMilestone } from './present-milestones.js';
import { runMilestoneChanged } from './milestone-hooks.js';

const projectOf = (parent: MilestoneParent) => (parent.kind === 'project' ? parent.project : null);

const MAX_TITLE = 255;
export const DUPLICATE_TITLE = 'already being used for another group or project milestone.';

type Errors = Map<string, string[]>;

function addError(errors: Errors, field: string, message: string): void {
  const list = errors.get(field);
  if (list) list.push(message);
  else errors.set(field, [message]);
}

/** `errors.messages` as Ruby (3.3) prints a hash: `{:title=>["can't be blank"]}`. */
function rubyHash(errors: Errors): string {
  return `{${[...errors].map(([k, v]) => `:${k}=>[${v.map((m) => JSON.stringify(m)).join(', ')}]`).join(', ')}}`;
}

function failure(verb: 'create' | 'update', errors: Errors): BadRequestError {
  return new BadRequestError(`Failed to ${verb} milestone ${rubyHash(errors)}`, { raw: true });
}

/** The Timebox validations that need no database: title present and short enough, due date not before the start. */
function fieldErrors(fields: { title: string; start_date: string | null; due_date: string | null }): Errors {
  const errors: Errors = new Map();
  if (fields.title === '') addError(errors, 'title', "can't be blank");
  else if (fields.title.length > MAX_TITLE) addError(errors, 'title', `is too long (maximum is ${MAX_TITLE} characters)`);
  if (fields.start_date && fields.due_date && fields.due_date < fields.start_date) addError(errors, 'due_date', 'must be greater than start date');
  return errors;
}

/**
 * Milestone#uniqueness_of_title: a project milestone's title may not be used by the project
 * or its group; a group milestone's by the group or the projects directly in it.
 */
async function titleTaken(trx: Kysely<Database>, parent: MilestoneParent, title: string, exceptId?: number): Promise<boolean> {
  let scope: { projectIds: number[]; groupIds: number[] };
  if (parent.kind === 'project') {
    const ns = await trx.selectFrom('namespaces').select(['id', 'kind']).where('id', '=', parent.project.namespace_id).executeTakeFirstOrThrow();
    scope = { projectIds: [parent.project.id], groupIds: ns.kind === 'group' ? [ns.id] : [] };
  } else {
    const projects = await trx.selectFrom('projects').select('id').where('namespace_id', '=', parent.group.id).execute();
    scope = { projectIds: projects.map((p) => p.id), groupIds: [parent.group.id] };
  }
  return Boolean(await selectMilestoneWithTitle(trx, title, scope, ownerOf(parent), exceptId));
}

/** Runs a write; a unique-index race on the title answers as the validation would. */
async function guardTitleRace<T>(verb: 'create' | 'update', work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw failure(verb, new Map([['title', [DUPLICATE_TITLE]]]));
    throw err;
  }
}

/** POST /groups/:id/milestones, POST /projects/:id/milestones (Reporter and up). */
export async function createMilestone(ctx: Ctx, kind: MilestoneParentKind, input: CreateMilestoneInput): Promise<MilestoneEntity> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'admin_milestone');
  const title = input.title.trim();
  const fields = { title, start_date: input.start_date ?? null, due_date: input.due_date ?? null };
  const errors = fieldErrors(fields);
  const now = nowIso(ctx);
  const row = await guardTitleRace('create', () =>
    ctx.db.transaction().execute(async (trx) => {
      if (title !== '' && (await titleTaken(trx, parent, title))) addError(errors, 'title', DUPLICATE_TITLE);
      if (errors.size) throw failure('create', errors);
      const scope = parent.kind === 'project' ? `project:${parent.project.id}` : `group:${parent.group.id}`;
      if (parent.kind === 'project') await recordProjectActivity(trx, parent.project, now); // a project milestone opened
      const created = await insertMilestone(trx, {
        project_id: parent.kind === 'project' ? parent.project.id : null,
        group_id: parent.kind === 'group' ? parent.group.id : null,
        iid: await nextIid(trx, 'milestones', scope),
        description: input.description ?? null,
        state: 'active',
        ...fields,
        created_at: now,
        updated_at: now,
      });
      await runMilestoneChanged(trx, { action: 'create', by: ctx, milestone: created, project: projectOf(parent) });
      return created;
    }),
  );
  return presentMilestone(ctx, row);
}

/** GET /groups/:id/milestones/:milestone_id, GET /projects/:id/milestones/:milestone_id */
export async function getMilestone(ctx: Ctx, kind: MilestoneParentKind, input: MilestoneRefInput): Promise<MilestoneEntity> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'read_milestone');
  return presentMilestone(ctx, await findMilestone(ctx, parent, input.milestone_id));
}

/** PUT …/milestones/:milestone_id: fields, and `state_event` close or activate (Reporter and up). */
export async function updateMilestone(ctx: Ctx, kind: MilestoneParentKind, input: UpdateMilestoneInput): Promise<MilestoneEntity> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'admin_milestone');
  const milestone = await findMilestone(ctx, parent, input.milestone_id);
  const set: MilestoneUpdate = {};
  const title = input.title?.trim();
  if (title !== undefined && title !== milestone.title) set.title = title;
  if (input.description !== undefined && input.description !== milestone.description) set.description = input.description;
  if (input.start_date !== undefined && input.start_date !== milestone.start_date) set.start_date = input.start_date;
  if (input.due_date !== undefined && input.due_date !== milestone.due_date) set.due_date = input.due_date;
  if (input.state_event === 'close' && milestone.state !== 'closed') set.state = 'closed';
  if (input.state_event === 'activate' && milestone.state !== 'active') set.state = 'active';
  const errors = fieldErrors({
    title: title ?? milestone.title,
    start_date: set.start_date !== undefined ? set.start_date : milestone.start_date,
    due_date: set.due_date !== undefined ? set.due_date : milestone.due_date,
  });
  const row: MilestoneRow = await guardTitleRace('update', () =>
    ctx.db.transaction().execute(async (trx) => {
      if (set.title && (await titleTaken(trx, parent, set.title, milestone.id))) addError(errors, 'title', DUPLICATE_TITLE);
      if (errors.size) throw failure('update', errors);
      if (Object.keys(set).length === 0) return milestone;
      // A project milestone closed or reopened is a project event.
      if (set.state !== undefined && parent.kind === 'project') await recordProjectActivity(trx, parent.project, nowIso(ctx));
      const updated = await updateMilestoneById(trx, milestone.id, { ...set, updated_at: nowIso(ctx) });
      // Closing and reopening are events (Milestones::CloseService, ReopenService); other edits are not.
      if (set.state !== undefined) {
        await runMilestoneChanged(trx, { action: set.state === 'closed' ? 'close' : 'reopen', by: ctx, milestone: updated, project: projectOf(parent) });
      }
      return updated;
    }),
  );
  return presentMilestone(ctx, row);
}

/** DELETE …/milestones/:milestone_id (Developer and up): its issues and merge requests lose it. */
export async function deleteMilestone(ctx: Ctx, kind: MilestoneParentKind, input: MilestoneRefInput): Promise<void> {
  const parent = await findMilestoneParent(ctx, kind, input.id, 'destroy_milestone');
  const milestone = await findMilestone(ctx, parent, input.milestone_id);
  const now = nowIso(ctx);
  await ctx.db.transaction().execute(async (trx) => {
    await runMilestoneChanged(trx, { action: 'delete', by: ctx, milestone, project: projectOf(parent) });
    await deleteMilestoneById(trx, milestone.id, now);
    if (parent.kind === 'project') await recordProjectActivity(trx, parent.project, now); // a project milestone destroyed
  });
}
