/**
 * `GET /projects/:id/pipeline_schedules/:pipeline_schedule_id/pipelines`: the pipelines a
 * schedule created, filtered as GitLab's `Ci::PipelinesFinder` does for the parameters this
 * route declares, paginated in SQL.
 */
import type { Ctx } from '../../access/context.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import { can } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CiPipelineRow } from '../ci/index.js';
import { presentPipelineBasic } from '../ci/index.js';
import { applyPipelineScope } from '../ci/index.js';
import type { SchedulePipelineEntity } from './pipeline-schedule.entity.js';
import type { ListSchedulePipelinesInput } from './pipeline-schedule.schema.js';
import { findSchedule, findScheduleProject } from './schedule-access.js';


/** GitLab's `Ci::PipelineBasic` for each pipeline. */
export async function presentSchedulePipelines(ctx: Ctx, project: ProjectRow, rows: CiPipelineRow[]): Promise<SchedulePipelineEntity[]> {
  return rows.map((row) => presentPipelineBasic(ctx, project, row));
}

export async function listSchedulePipelines(ctx: Ctx, input: ListSchedulePipelinesInput): Promise<Page<SchedulePipelineEntity>> {
  const project = await findScheduleProject(ctx, input.id);
  const schedule = await findSchedule(ctx, project, input.pipeline_schedule_id);
  let q = ctx.db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', project.id).where('pipeline_schedule_id', '=', schedule.id);
  // The finder answers nothing to a caller who may not read pipelines.
  if (!(await can(ctx, 'read_pipeline', { kind: 'project', project }))) q = q.where((eb) => eb.val(1), '=', 0);

  q = applyPipelineScope(ctx.db, q, project.id, input.scope, schedule.id);
  if (input.status) q = q.where('status', '=', input.status);
  if (input.updated_before) q = q.where('updated_at', '<=', input.updated_before.toISOString());
  if (input.updated_after) q = q.where('updated_at', '>=', input.updated_after.toISOString());
  if (input.created_before) q = q.where('created_at', '<=', input.created_before.toISOString());
  if (input.created_after) q = q.where('created_at', '>=', input.created_after.toISOString());
  q = q.orderBy('id', input.sort);
  return paginate(ctx.db, q, input, (rows) => presentSchedulePipelines(ctx, project, rows));
}
