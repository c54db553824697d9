import { type Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * CI: runners, pipelines with their variables, jobs (builds) with their log chunks and
 * artifact files, and pipeline schedules with variables and inputs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('ci_runners'))
    .addColumn('runner_type', 'text', (c) => c.notNull()) // instance_type | group_type | project_type
    .addColumn('token_digest', 'text', (c) => c.notNull())
    .addColumn('token_prefix', 'text', (c) => c.notNull()) // first characters, for display
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('paused', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_untagged', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('access_level', 'text', (c) => c.notNull().defaultTo('not_protected'))
    .addColumn('maximum_timeout', 'integer')
    .addColumn('maintenance_note', 'text')
    .addColumn('registration_type', 'text', (c) => c.notNull().defaultTo('authenticated_user')) // or registration_token
    .addColumn('creator_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('contacted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_runners_token').on('ci_runners').columns(['token_digest']).unique().execute();

  await withId(db, db.schema.createTable('ci_runner_scopes'))
    .addColumn('runner_id', 'integer', (c) => c.notNull().references('ci_runners.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('namespace_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('ci_runner_scopes_runner').on('ci_runner_scopes').columns(['runner_id']).execute();
  await db.schema.createIndex('ci_runner_scopes_project').on('ci_runner_scopes').columns(['project_id']).execute();
  await db.schema.createIndex('ci_runner_scopes_namespace').on('ci_runner_scopes').columns(['namespace_id']).execute();

  /** Legacy runner registration tokens, one per project (shown to maintainers, so encrypted, not hashed). */
  await withId(db, db.schema.createTable('ci_registration_tokens'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('token_digest', 'text', (c) => c.notNull())
    .addColumn('token_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_registration_tokens_project').on('ci_registration_tokens').columns(['project_id']).unique().execute();
  await db.schema.createIndex('ci_registration_tokens_digest').on('ci_registration_tokens').columns(['token_digest']).unique().execute();

  await withId(db, db.schema.createTable('ci_pipeline_schedules'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull()) // full ref: refs/heads/x or refs/tags/x
    .addColumn('cron', 'text', (c) => c.notNull())
    .addColumn('cron_timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('next_run_at', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_error', 'text') // why the last firing did not create a pipeline
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipeline_schedules_project').on('ci_pipeline_schedules').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ci_pipeline_schedules_due').on('ci_pipeline_schedules').columns(['active', 'next_run_at']).execute();

  await withId(db, db.schema.createTable('ci_pipeline_schedule_variables'))
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value_encrypted', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
    .addColumn('raw', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipeline_schedule_variables_key').on('ci_pipeline_schedule_variables').columns(['pipeline_schedule_id', 'key']).unique().execute();

  await withId(db, db.schema.createTable('ci_pipeline_schedule_inputs'))
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.notNull().references('ci_pipeline_schedules.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull()) // JSON: string, number, boolean or array
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipeline_schedule_inputs_name').on('ci_pipeline_schedule_inputs').columns(['pipeline_schedule_id', 'name']).unique().execute();

  await withId(db, db.schema.createTable('ci_pipelines'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull()) // short name, as GitLab shows it
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sha', 'text', (c) => c.notNull())
    .addColumn('before_sha', 'text', (c) => c.notNull().defaultTo('0000000000000000000000000000000000000000'))
    .addColumn('name', 'text')
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('pipeline_schedule_id', 'integer', (c) => c.references('ci_pipeline_schedules.id').onDelete('set null'))
    .addColumn('parent_pipeline_id', 'integer', (c) => c.references('ci_pipelines.id').onDelete('set null'))
    .addColumn('yaml_errors', 'text')
    .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]')) // JSON array of strings
    .addColumn('inputs', 'text', (c) => c.notNull().defaultTo('{}')) // JSON object
    .addColumn('failure_reason', 'text')
    .addColumn('coverage', 'text')
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('committed_at', 'text')
    .addColumn('duration', 'integer')
    .addColumn('queued_duration', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_pipelines_iid').on('ci_pipelines').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('ci_pipelines_project').on('ci_pipelines').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_ref_status').on('ci_pipelines').columns(['project_id', 'ref', 'status', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_schedule').on('ci_pipelines').columns(['pipeline_schedule_id', 'id']).execute();
  await db.schema.createIndex('ci_pipelines_parent').on('ci_pipelines').columns(['parent_pipeline_id']).execute();

  await withId(db, db.schema.createTable('ci_pipeline_variables'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value_encrypted', 'text', (c) => c.notNull())
    .addColumn('variable_type', 'text', (c) => c.notNull().defaultTo('env_var'))
    .execute();
  await db.schema.createIndex('ci_pipeline_variables_pipeline').on('ci_pipeline_variables').columns(['pipeline_id', 'key']).execute();

  await withId(db, db.schema.createTable('ci_jobs'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'integer', (c) => c.notNull().references('ci_pipelines.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('stage', 'text', (c) => c.notNull())
    .addColumn('stage_idx', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('when', 'text', (c) => c.notNull().defaultTo('on_success'))
    .addColumn('allow_failure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('tag', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('definition', 'text', (c) => c.notNull()) // JSON: script, image, variables, needs, environment, artifacts
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('runner_id', 'integer', (c) => c.references('ci_runners.id').onDelete('set null'))
    .addColumn('token_digest', 'text') // the CI job token while the job runs
    .addColumn('retried', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failure_reason', 'text')
    .addColumn('coverage', 'real')
    .addColumn('environment_name', 'text')
    .addColumn('queued_at', 'text')
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('erased_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_jobs_pipeline').on('ci_jobs').columns(['pipeline_id', 'stage_idx', 'id']).execute();
  await db.schema.createIndex('ci_jobs_project').on('ci_jobs').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('ci_jobs_pending').on('ci_jobs').columns(['status', 'id']).execute();
  await db.schema.createIndex('ci_jobs_token').on('ci_jobs').columns(['token_digest']).execute();
  await db.schema.createIndex('ci_jobs_name').on('ci_jobs').columns(['pipeline_id', 'name']).execute();

  await withId(db, db.schema.createTable('ci_job_trace_chunks'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('byte_offset', 'integer', (c) => c.notNull()) // byte offset of this chunk in the log
    .addColumn('data', 'text', (c) => c.notNull()) // base64
    .execute();
  await db.schema.createIndex('ci_job_trace_chunks_job').on('ci_job_trace_chunks').columns(['job_id', 'byte_offset']).unique().execute();

  await withId(db, db.schema.createTable('ci_job_artifacts'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('job_id', 'integer', (c) => c.notNull().references('ci_jobs.id').onDelete('cascade'))
    .addColumn('file_type', 'text', (c) => c.notNull()) // archive | metadata | trace | junit ...
    .addColumn('file_format', 'text', (c) => c.notNull().defaultTo('zip'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('expire_at', 'text')
    .addColumn('locked', 'integer', (c) => c.notNull().defaultTo(0)) // kept: never expires
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ci_job_artifacts_job').on('ci_job_artifacts').columns(['job_id', 'file_type']).unique().execute();
  await db.schema.createIndex('ci_job_artifacts_expire').on('ci_job_artifacts').columns(['locked', 'expire_at']).execute();
  await db.schema.createIndex('ci_job_artifacts_project').on('ci_job_artifacts').columns(['project_id', 'id']).execute();
}
