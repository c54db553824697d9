/**
 * Who may do what with a pipeline schedule: GitLab's `Ci::PipelineSchedulePolicy`.
 *
 * - read (list, get, pipelines): Reporter (`read_pipeline_schedule`); a caller who cannot
 *   read gets `404 Pipeline Schedule Not Found` on a single schedule and 403 on the list;
 * - create, play: Developer, and not on a ref the caller may not update (a protected branch
 *   they can neither push nor merge to);
 * - update, create/update variables: the schedule's owner with Developer, or an admin (a
 *   Maintainer who is not the owner takes ownership first), on a ref they may update;
 * - take ownership, delete, delete variables, see variables and inputs (`admin_pipeline_schedule`):
 *   Maintainer, or the owner with Developer.
 * - a custom role with `admin_cicd_variables` (the policy's `admin_pipeline_schedule_variables`)
 *   sees and manages the variables of every schedule, whoever owns it, and nothing else of it.
 */
import type { Ctx } from '../../access/context.js';
import { ForbiddenError, NotFoundError } from '../../kernel/errors.js';
import { authorize, can, type ProjectAbility } from '../../access/policy.js';
import { findProject } from '../../access/lookup.js';
import type { ProjectRow } from '../../access/project.table.js';
import { canOnBranch } from '../repository/index.js';
import { selectTag } from '../repository/index.js';
import { selectScheduleOf } from './pipeline-schedule.queries.js';
import type { CiPipelineScheduleRow } from './pipeline-schedule.table.js';

export const BRANCH_PREFIX = 'refs/heads/';
export const TAG_PREFIX = 'refs/tags/';
/** `Ci::PipelineSchedule::VALID_REF_FORMAT_REGEX`. */
export const FULL_REF_RE = /^(refs\/tags\/|refs\/heads\/)\S+/;

export type ScheduleAbility =
  | 'read_pipeline_schedule'
  | 'create_pipeline_schedule'
  | 'play_pipeline_schedule'
  | 'update_pipeline_schedule'
  | 'admin_pipeline_schedule'
  | 'read_pipeline_schedule_variables'
  | 'set_pipeline_variables';

const subject = (project: ProjectRow) => ({ kind: 'project' as const, project });

/**
 * True when the caller may write schedule variables only through a custom role's
 * `admin_cicd_variables` (the policy's `admin_pipeline_schedule_variables`): then the variable
 * routes skip the schedule's own update/admin check, which that role does not grant.
 */
export async function variablesGrantedByRole(ctx: Ctx, project: ProjectRow): Promise<boolean> {
  if (project.jobs_enabled === 0) return false;
  return !(await can(ctx, 'create_pipeline', subject(project))) && (await can(ctx, 'admin_pipeline_schedule_variables', subject(project)));
}

/** A project ability, false when CI is switched off for the project (GitLab's `builds_disabled`). */
async function canCi(ctx: Ctx, project: ProjectRow, ability: ProjectAbility): Promise<boolean> {
  if (project.jobs_enabled === 0) return false;
  return can(ctx, ability, subject(project));
}

/** The branch or tag name of a stored (full) or legacy (short) ref. */
export function refName(ref: string): string {
  if (ref.startsWith(BRANCH_PREFIX)) return ref.slice(BRANCH_PREFIX.length);
  if (ref.startsWith(TAG_PREFIX)) return ref.slice(TAG_PREFIX.length);
  return ref;
}

/**
 * GitLab's `ref_protected?`: true when the actor may not update the ref: a branch they can
 * neither push nor merge to, a tag they may not create. A short ref counts as a tag when a
 * tag of that name exists.
 */
export async function refProtectedFor(ctx: Ctx, project: ProjectRow, ref: string): Promise<boolean> {
  const isTag = ref.startsWith(TAG_PREFIX) || (!ref.startsWith(BRANCH_PREFIX) && Boolean(await selectTag(ctx.db, project.id, ref)));
  if (isTag) return !(await can(ctx, 'push_code', subject(project)));
  const branch = refName(ref);
  if (await canOnBranch(ctx, project, branch, 'push')) return false;
  return !(await canOnBranch(ctx, project, branch, 'merge'));
}

/** Answers an ability on a schedule (or, for `create_pipeline_schedule`, on a would-be schedule with `ref`). */
export async function canOnSchedule(
  ctx: Ctx,
  project: ProjectRow,
  schedule: Pick<CiPipelineScheduleRow, 'owner_id' | 'ref'>,
  ability: ScheduleAbility,
): Promise<boolean> {
  const user = ctx.actor.user;
  const owner = user !== null && schedule.owner_id === user.id;
  switch (ability) {
    case 'read_pipeline_schedule':
      return canCi(ctx, project, 'read_pipeline_schedule');
    case 'set_pipeline_variables':
      return canCi(ctx, project, 'create_pipeline');
    case 'create_pipeline_schedule':
      return (await canCi(ctx, project, 'create_pipeline_schedule')) && !(await refProtectedFor(ctx, project, schedule.ref));
    case 'play_pipeline_schedule':
      return (await canCi(ctx, project, 'create_pipeline')) && !(await refProtectedFor(ctx, project, schedule.ref));
    case 'update_pipeline_schedule': {
      if (project.jobs_enabled === 0) return false;
      const allowed = ctx.actor.isAdmin || (owner && (await canCi(ctx, project, 'update_build')));
      return allowed && !(await refProtectedFor(ctx, project, schedule.ref));
    }
    case 'admin_pipeline_schedule':
    case 'read_pipeline_schedule_variables':
      if (ability === 'read_pipeline_schedule_variables' && (await canCi(ctx, project, 'admin_pipeline_schedule_variables'))) return true;
      return (await canCi(ctx, project, 'admin_pipeline_schedule')) || (owner && (await canCi(ctx, project, 'update_build')));
  }
}

/** 403 unless the actor has the ability on the schedule. */
export async function authorizeSchedule(ctx: Ctx, project: ProjectRow, schedule: CiPipelineScheduleRow, ability: ScheduleAbility): Promise<void> {
  if (!(await canOnSchedule(ctx, project, schedule, ability))) throw new ForbiddenError();
}

/** The project of a schedule route, readable by the caller (404 `Project Not Found` otherwise). */
export async function findScheduleProject(ctx: Ctx, ref: string): Promise<ProjectRow> {
  return findProject(ctx, ref);
}

/** The project's CI ability or 403 (list, create), after the project's 404. */
export async function authorizeProject(ctx: Ctx, project: ProjectRow, ability: 'read_pipeline_schedule' | 'create_pipeline_schedule' | 'set_pipeline_variables'): Promise<void> {
  const projectAbility: ProjectAbility = ability === 'set_pipeline_variables' ? 'create_pipeline' : ability;
  if (project.jobs_enabled === 0) {
    await authorize(ctx, 'read_project', subject(project));
    throw new ForbiddenError();
  }
  if (ability === 'set_pipeline_variables' && (await variablesGrantedByRole(ctx, project))) return;
  await authorize(ctx, projectAbility, subject(project));
}

/**
 * GitLab's `pipeline_schedule` helper: the project's schedule the caller may read, else
 * `404 Pipeline Schedule Not Found` (a missing id and a Guest get the same answer).
 */
export async function findSchedule(ctx: Ctx, project: ProjectRow, id: number): Promise<CiPipelineScheduleRow> {
  const schedule = await selectScheduleOf(ctx.db, project.id, id);
  if (!schedule || !(await canOnSchedule(ctx, project, schedule, 'read_pipeline_schedule'))) throw new NotFoundError('Pipeline Schedule');
  return schedule;
}
