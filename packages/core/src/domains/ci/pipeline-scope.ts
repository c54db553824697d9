/** The `scope` filter of pipeline lists (project pipelines and a schedule's pipelines share it). */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { CiPipelineRow } from './ci.table.js';
import { COMPLETED_STATUSES } from './status.js';

export type PipelineScope = 'running' | 'pending' | 'finished' | 'branches' | 'tags';

type PipelineQuery = SelectQueryBuilder<Database, 'ci_pipelines', CiPipelineRow>;

/**
 * Narrows a pipeline query to GitLab's scope: running/pending by status, finished = completed
 * statuses, branches/tags = the newest pipeline of each existing branch (tag), optionally among
 * one schedule's pipelines.
 */
export function applyPipelineScope(db: Kysely<Database>, q: PipelineQuery, projectId: number, scope: PipelineScope | undefined, scheduleId?: number): PipelineQuery {
  switch (scope) {
    case 'running':
    case 'pending':
      return q.where('status', '=', scope);
    case 'finished':
      return q.where('status', 'in', COMPLETED_STATUSES);
    case 'branches':
    case 'tags': {
      const kind = scope === 'branches' ? 'branch' : 'tag';
      let latest = db
        .selectFrom('ci_pipelines')
        .select((eb) => eb.fn.max('id').as('id'))
        .where('project_id', '=', projectId)
        .where('tag', '=', kind === 'tag' ? 1 : 0)
        .where('ref', 'in', db.selectFrom('repository_refs').select('name').where('project_id', '=', projectId).where('kind', '=', kind));
      if (scheduleId !== undefined) latest = latest.where('pipeline_schedule_id', '=', scheduleId);
      return q.where('id', 'in', latest.groupBy('ref'));
    }
    default:
      return q;
  }
}
