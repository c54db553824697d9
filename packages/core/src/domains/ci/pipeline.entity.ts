/** Pipelines in GitLab's JSON shapes (`Entities::Ci::PipelineBasic`, `Pipeline`, `PipelineWithMetadata`). */
import { selectUsersByIds } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { toUserBasicEntity, type UserBasicEntity } from '../../access/user.entity.js';
import type { UserRow } from '../../access/user.table.js';
import type { CiPipelineRow } from './ci.table.js';

/** `Ci::PipelineBasic` (lists of schedules' pipelines, `last_pipeline`, a job's `pipeline`). */
export interface PipelineBasicEntity {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: string;
  source: string;
  created_at: string;
  updated_at: string;
  web_url: string;
}

/** `Ci::PipelineBasicWithMetadata` (`GET /projects/:id/pipelines`). */
export interface PipelineListEntity extends PipelineBasicEntity {
  name: string | null;
}

/** GitLab's `DetailedStatusEntity`. */
export interface DetailedStatusEntity {
  icon: string;
  text: string;
  label: string;
  group: string;
  tooltip: string;
  has_details: boolean;
  details_path: string;
  illustration: null;
  favicon: string;
}

/** `Ci::PipelineWithMetadata`, plus Forgelet's `warnings` (what the CI file used that Forgelet ignored). */
export interface PipelineEntity extends PipelineBasicEntity {
  before_sha: string;
  tag: boolean;
  yaml_errors: string | null;
  user: UserBasicEntity | null;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  coverage: string | null;
  detailed_status: DetailedStatusEntity;
  name: string | null;
  warnings: string[];
}

export function pipelineWebUrl(ctx: Pick<Ctx, 'urls'>, project: Pick<ProjectRow, 'path_with_namespace'>, id: number): string {
  return ctx.urls.web(`/${project.path_with_namespace}/-/pipelines/${id}`);
}

export function presentPipelineBasic(ctx: Pick<Ctx, 'urls'>, project: Pick<ProjectRow, 'path_with_namespace'>, row: CiPipelineRow): PipelineBasicEntity {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    sha: row.sha,
    ref: row.ref,
    status: row.status,
    source: row.source,
    created_at: row.created_at,
    updated_at: row.updated_at,
    web_url: pipelineWebUrl(ctx, project, row.id),
  };
}

export function presentPipelineListItem(ctx: Pick<Ctx, 'urls'>, project: Pick<ProjectRow, 'path_with_namespace'>, row: CiPipelineRow): PipelineListEntity {
  return { ...presentPipelineBasic(ctx, project, row), name: row.name };
}

const STATUS_TEXT: Record<string, { text: string; label: string; icon?: string }> = {
  created: { text: 'created', label: 'created' },
  waiting_for_resource: { text: 'waiting', label: 'waiting for resource', icon: 'status_pending' },
  preparing: { text: 'preparing', label: 'preparing', icon: 'status_preparing' },
  waiting_for_callback: { text: 'waiting', label: 'waiting for callback', icon: 'status_pending' },
  pending: { text: 'pending', label: 'pending' },
  running: { text: 'running', label: 'running' },
  success: { text: 'passed', label: 'passed' },
  failed: { text: 'failed', label: 'failed' },
  canceling: { text: 'canceling', label: 'canceling', icon: 'status_canceled' },
  canceled: { text: 'canceled', label: 'canceled' },
  skipped: { text: 'skipped', label: 'skipped' },
  manual: { text: 'manual', label: 'manual action' },
  scheduled: { text: 'scheduled', label: 'scheduled' },
};

/** GitLab's detailed status of a pipeline (or job) for a reader. */
export function detailedStatus(status: string, detailsPath: string, options: { warnings?: boolean } = {}): DetailedStatusEntity {
  if (status === 'success' && options.warnings) {
    return {
      icon: 'status_warning',
      text: 'warning',
      label: 'passed with warnings',
      group: 'success-with-warnings',
      tooltip: 'passed',
      has_details: true,
      details_path: detailsPath,
      illustration: null,
      favicon: '/assets/ci_favicons/favicon_status_warning.png',
    };
  }
  const t = STATUS_TEXT[status] ?? { text: status, label: status };
  const icon = t.icon ?? `status_${status}`;
  return {
    icon,
    text: t.text,
    label: t.label,
    group: status,
    tooltip: t.label,
    has_details: true,
    details_path: detailsPath,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_${icon}.png`,
  };
}

/** Users by id, for a page of pipelines or jobs. */
export async function usersById(ctx: Ctx, ids: (number | null)[]): Promise<Map<number, UserRow>> {
  const wanted = [...new Set(ids.filter((i): i is number => i !== null))];
  if (!wanted.length) return new Map();
  const rows = await selectUsersByIds(ctx.db, wanted);
  return new Map(rows.map((u) => [u.id, u]));
}

/** Ids of the given pipelines where an allowed-to-fail job failed (GitLab's "passed with warnings"). */
export async function pipelinesWithWarnings(ctx: Ctx, ids: number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const rows = await ctx.db
    .selectFrom('ci_jobs')
    .select('pipeline_id')
    .distinct()
    .where('pipeline_id', 'in', ids)
    .where('retried', '=', 0)
    .where('allow_failure', '=', 1)
    .where('status', 'in', ['failed', 'canceled'])
    .execute();
  return new Set(rows.map((r) => r.pipeline_id));
}

/** `Ci::PipelineWithMetadata` with Forgelet's `warnings`. */
export async function presentPipeline(ctx: Ctx, project: ProjectRow, row: CiPipelineRow, options: { user?: UserRow | null } = {}): Promise<PipelineEntity> {
  const user = options.user !== undefined ? options.user : row.user_id !== null ? ((await usersById(ctx, [row.user_id])).get(row.user_id) ?? null) : null;
  const warned = row.status === 'success' ? (await pipelinesWithWarnings(ctx, [row.id])).has(row.id) : false;
  return {
    ...presentPipelineBasic(ctx, project, row),
    before_sha: row.before_sha,
    tag: row.tag === 1,
    yaml_errors: row.yaml_errors,
    user: user ? toUserBasicEntity(user, ctx.urls) : null,
    started_at: row.started_at,
    finished_at: row.finished_at,
    committed_at: row.committed_at,
    duration: row.duration,
    queued_duration: row.queued_duration,
    coverage: row.coverage,
    detailed_status: detailedStatus(row.status, `/${project.path_with_namespace}/-/pipelines/${row.id}`, { warnings: warned }),
    name: row.name,
    warnings: JSON.parse(row.warnings) as string[],
  };
}
