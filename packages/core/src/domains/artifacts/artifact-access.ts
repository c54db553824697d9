/**
 * Which artifacts a reader gets. An archive is available while it has not expired, when it
 * was kept, or when its pipeline still holds the "latest artifacts" lock of its ref: GitLab
 * keeps the artifacts of the most recent successful pipeline of each ref (and of pipelines
 * newer than it) even past their expiry, until a newer pipeline of the ref succeeds. Child
 * pipelines follow their root pipeline.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { CiJobArtifactRow, CiJobRow, CiPipelineRow } from '../ci/index.js';

/** The job log is never an erasable artifact. */
export const TRACE = 'trace';

/** Pipeline nesting GitLab allows (parent → child → grandchild) plus one level of margin. */
const MAX_DEPTH = 4;

/** The root of a pipeline's parent chain. */
export async function rootPipelineOf(db: Kysely<Database>, pipelineId: number): Promise<CiPipelineRow | undefined> {
  let row = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst();
  for (let depth = 0; row && row.parent_pipeline_id !== null && depth < MAX_DEPTH; depth++) {
    const parent: CiPipelineRow | undefined = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', row.parent_pipeline_id).executeTakeFirst();
    if (!parent) break;
    row = parent;
  }
  return row;
}

/** True when no root pipeline of the same ref succeeded after this root pipeline. */
export async function pipelineArtifactsLocked(db: Kysely<Database>, root: Pick<CiPipelineRow, 'id' | 'project_id' | 'ref' | 'tag'>): Promise<boolean> {
  const newer = await db
    .selectFrom('ci_pipelines')
    .select('id')
    .where('project_id', '=', root.project_id)
    .where('ref', '=', root.ref)
    .where('tag', '=', root.tag)
    .where('status', '=', 'success')
    .where('parent_pipeline_id', 'is', null)
    .where('id', '>', root.id)
    .limit(1)
    .executeTakeFirst();
  return !newer;
}

function unexpired(row: Pick<CiJobArtifactRow, 'expire_at' | 'locked'>, now: string): boolean {
  return row.locked === 1 || row.expire_at === null || row.expire_at > now;
}

/** The job's archive when a reader may have it (see the module comment). */
export async function availableArchive(ctx: Pick<Ctx, 'db' | 'clock'>, job: Pick<CiJobRow, 'id' | 'pipeline_id'>): Promise<CiJobArtifactRow | undefined> {
  const row = await ctx.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', job.id).where('file_type', '=', 'archive').executeTakeFirst();
  if (!row) return undefined;
  if (unexpired(row, ctx.clock.now().toISOString())) return row;
  const root = await rootPipelineOf(ctx.db, job.pipeline_id);
  return root && (await pipelineArtifactsLocked(ctx.db, root)) ? row : undefined;
}

/**
 * SQL for "the artifact's pipeline no longer holds the latest-artifacts lock": a root
 * pipeline of its ref succeeded after its root pipeline. `a` is ci_job_artifacts.
 */
export function pipelineUnlockedSql(): Expression<SqlBool> {
  return sql<SqlBool>`exists (
    select 1 from ci_jobs j
      join ci_pipelines p on p.id = j.pipeline_id
      left join ci_pipelines pa on pa.id = p.parent_pipeline_id
      left join ci_pipelines pb on pb.id = pa.parent_pipeline_id
      join ci_pipelines s on s.project_id = p.project_id and s.ref = p.ref and s.tag = p.tag
        and s.status = 'success' and s.parent_pipeline_id is null
        and s.id > (case when p.parent_pipeline_id is null then p.id when pa.parent_pipeline_id is null then pa.id else coalesce(pb.id, pa.id) end)
    where j.id = a.job_id)`;
}

export interface ByRefBuild {
  job: CiJobRow;
  archive: CiJobArtifactRow;
}

/**
 * Each root pipeline with its same-project descendants, parents first (a few queries for all
 * of them: one per level of nesting).
 */
async function families(db: Kysely<Database>, project: ProjectRow, roots: number[]): Promise<Map<number, number[]>> {
  const family = new Map<number, number[]>(roots.map((id) => [id, [id]]));
  const rootOf = new Map<number, number>(roots.map((id) => [id, id]));
  let frontier = roots;
  for (let depth = 0; frontier.length && depth < MAX_DEPTH; depth++) {
    const children = await db
      .selectFrom('ci_pipelines')
      .select(['id', 'parent_pipeline_id'])
      .where('project_id', '=', project.id)
      .where('parent_pipeline_id', 'in', frontier)
      .orderBy('id')
      .execute();
    frontier = [];
    for (const c of children) {
      const root = rootOf.get(c.parent_pipeline_id!);
      if (root === undefined || rootOf.has(c.id)) continue;
      rootOf.set(c.id, root);
      family.get(root)!.push(c.id);
      frontier.push(c.id);
    }
  }
  return family;
}

/**
 * GitLab's `latest_successful_build_for_ref` (and `latest_with_artifacts_for_ref` when
 * `searchRecent`): the newest successful root pipeline of the ref by creation (or up to 100 of
 * them, newest first), then in each the named, non-retried job with an available archive,
 * searching the pipeline before its child pipelines (the parent wins on equal names).
 */
export async function latestBuildWithArtifacts(
  ctx: Pick<Ctx, 'db' | 'clock'>,
  project: ProjectRow,
  jobName: string,
  ref: string,
  searchRecent: boolean,
): Promise<ByRefBuild | null> {
  const pipelines = await ctx.db
    .selectFrom('ci_pipelines')
    .select(['id', 'project_id', 'ref', 'tag'])
    .where('project_id', '=', project.id)
    .where('ref', '=', ref)
    .where('status', '=', 'success')
    .where('parent_pipeline_id', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(searchRecent ? 100 : 1)
    .execute();
  if (!pipelines.length) return null;
  const family = await families(ctx.db, project, pipelines.map((p) => p.id));
  const candidates = await ctx.db
    .selectFrom('ci_jobs as j')
    .innerJoin('ci_job_artifacts as a', (join) => join.onRef('a.job_id', '=', 'j.id').on('a.file_type', '=', 'archive'))
    .selectAll('j')
    .select(['a.id as artifact_id'])
    .where('j.pipeline_id', 'in', [...family.values()].flat())
    .where('j.project_id', '=', project.id)
    .where('j.name', '=', jobName)
    .where('j.retried', '=', 0)
    .execute();
  const now = ctx.clock.now().toISOString();
  for (const pipeline of pipelines) {
    const ids = family.get(pipeline.id)!;
    // Parents before children (the order of `ids`), then the newest job.
    const mine = candidates.filter((c) => ids.includes(c.pipeline_id));
    mine.sort((x, y) => ids.indexOf(x.pipeline_id) - ids.indexOf(y.pipeline_id) || y.id - x.id);
    let locked: boolean | null = null;
    for (const { artifact_id, ...job } of mine) {
      const archive = await ctx.db.selectFrom('ci_job_artifacts').selectAll().where('id', '=', artifact_id).executeTakeFirstOrThrow();
      if (!unexpired(archive, now)) {
        locked ??= await pipelineArtifactsLocked(ctx.db, pipeline);
        if (!locked) continue;
      }
      return { job: job as CiJobRow, archive };
    }
  }
  return null;
}

/** Does the project have any pipeline on this ref (to choose between readings of an ambiguous path)? */
export async function refHasPipelines(db: Kysely<Database>, projectId: number, ref: string): Promise<boolean> {
  const row = await db.selectFrom('ci_pipelines').select('id').where('project_id', '=', projectId).where('ref', '=', ref).limit(1).executeTakeFirst();
  return Boolean(row);
}
