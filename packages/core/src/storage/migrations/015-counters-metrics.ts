import { sql, type Kysely } from 'kysely';

/**
 * Values GitLab keeps instead of computing them on each read, each backfilled from the rows
 * present:
 * - `projects.open_issues_count`: the project's open issues that are not confidential (the
 *   public count of Projects::OpenIssuesCountService, which the project entity shows), kept
 *   by every issue write.
 * - GitLab's `merge_request_metrics` on `merge_requests`: `metrics_pipeline_id`,
 *   `latest_build_started_at` and `latest_build_finished_at` (PipelineMetricsWorker: the head
 *   pipeline when it starts running or succeeds), and `first_deployed_to_production_at` (the
 *   first successful deployment to a production-tier environment that shipped it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('open_issues_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  for (const column of ['latest_build_started_at', 'latest_build_finished_at', 'first_deployed_to_production_at']) {
    await db.schema.alterTable('merge_requests').addColumn(column, 'text').execute();
  }
  // No foreign key: a deleted pipeline leaves the id, which then presents as no pipeline.
  await db.schema.alterTable('merge_requests').addColumn('metrics_pipeline_id', 'integer').execute();
  await sql`update projects set open_issues_count = (
    select count(*) from issues i where i.project_id = projects.id and i.state = 'opened' and i.confidential = 0)`.execute(db);
  await backfillMergeRequestMetrics(db);
}

/**
 * The merge request metrics from the rows present, on their own so a test can run them over
 * rows written the old way (the open issues count moved to `project_counters` in migration 027,
 * which has its own backfill).
 */
export async function backfillMergeRequestMetrics(db: Kysely<any>): Promise<void> {

  // The head pipeline (the newest on the source branch at the merge request's head), if it ever ran.
  await sql`update merge_requests set metrics_pipeline_id = (
    select p.id from ci_pipelines p
    where p.project_id = merge_requests.source_project_id and p.ref = merge_requests.source_branch and p.sha = merge_requests.sha
    order by p.id desc limit 1)`.execute(db);
  await sql`update merge_requests set metrics_pipeline_id = null
    where metrics_pipeline_id is not null and (select p.started_at from ci_pipelines p where p.id = merge_requests.metrics_pipeline_id) is null`.execute(db);
  await sql`update merge_requests set
    latest_build_started_at = (select p.started_at from ci_pipelines p where p.id = merge_requests.metrics_pipeline_id),
    latest_build_finished_at = (select case when p.status = 'success' then p.finished_at end from ci_pipelines p where p.id = merge_requests.metrics_pipeline_id)
    where metrics_pipeline_id is not null`.execute(db);
  await sql`update merge_requests set first_deployed_to_production_at = (
    select min(d.finished_at) from deployment_merge_requests l
    join deployments d on d.id = l.deployment_id
    join environments e on e.id = l.environment_id
    where l.merge_request_id = merge_requests.id and e.tier = 'production')`.execute(db);
}
