import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type RunnerType = 'instance_type' | 'group_type' | 'project_type';

export interface CiRunnerTable {
  id: Generated<number>;
  runner_type: RunnerType;
  token_digest: string;
  token_prefix: string;
  description: Generated<string>;
  paused: Generated<number>;
  locked: Generated<number>;
  run_untagged: Generated<number>;
  tag_list: Generated<string>; // JSON array
  access_level: Generated<string>; // not_protected | ref_protected
  maximum_timeout: number | null;
  maintenance_note: string | null;
  registration_type: Generated<string>; // authenticated_user | registration_token
  creator_id: number | null;
  /** `info[name]` at registration. */
  name: string | null;
  contacted_at: string | null;
  created_at: string;
}
export type CiRunnerRow = Selectable<CiRunnerTable>;

/** A runner process (GitLab's runner manager), told apart by the `system_id` it sends. */
export interface CiRunnerManagerTable {
  id: Generated<number>;
  runner_id: number;
  /** The runner's `system_id`, or `<legacy>` when it sends none. */
  system_xid: string;
  version: string | null;
  revision: string | null;
  platform: string | null;
  architecture: string | null;
  /** The address the runner last contacted the server from. */
  ip_address: string | null;
  contacted_at: string | null;
  created_at: string;
}
export type CiRunnerManagerRow = Selectable<CiRunnerManagerTable>;

/** Which projects or groups a project or group runner serves. */
export interface CiRunnerScopeTable {
  id: Generated<number>;
  runner_id: number;
  project_id: number | null;
  namespace_id: number | null;
}


export interface CiPipelineTable {
  id: Generated<number>;
  project_id: number;
  iid: number;
  status: string;
  source: string;
  ref: string;
  tag: Generated<number>;
  sha: string;
  before_sha: Generated<string>;
  name: string | null;
  user_id: number | null;
  pipeline_schedule_id: number | null;
  parent_pipeline_id: number | null;
  yaml_errors: string | null;
  warnings: Generated<string>; // JSON array of strings
  inputs: Generated<string>; // JSON object
  failure_reason: string | null;
  coverage: string | null;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  created_at: string;
  updated_at: string;
}
export type CiPipelineRow = Selectable<CiPipelineTable>;
export type NewCiPipelineRow = Insertable<CiPipelineTable>;
export type CiPipelineUpdate = Updateable<CiPipelineTable>;

export interface CiPipelineVariableTable {
  id: Generated<number>;
  pipeline_id: number;
  key: string;
  value_encrypted: string;
  variable_type: Generated<string>; // env_var | file
}

export interface CiJobTable {
  id: Generated<number>;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  stage_idx: number;
  status: string;
  when: Generated<string>;
  allow_failure: Generated<number>;
  ref: string;
  tag: Generated<number>;
  /** JSON: script, image, variables, needs, environment, artifacts of the job definition. */
  definition: string;
  user_id: number | null;
  runner_id: number | null;
  /** The runner manager (process) that took the job. */
  runner_manager_id: number | null;
  /** Digest of the CI job token; set while the job runs, cleared when it finishes. */
  token_digest: string | null;
  retried: Generated<number>;
  failure_reason: string | null;
  coverage: number | null;
  environment_name: string | null;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  erased_at: string | null;
  created_at: string;
  updated_at: string;
}
export type CiJobRow = Selectable<CiJobTable>;
export type NewCiJobRow = Insertable<CiJobTable>;
export type CiJobUpdate = Updateable<CiJobTable>;

/** Job logs, appended in chunks by the runner. */
export interface CiJobTraceChunkTable {
  id: Generated<number>;
  job_id: number;
  byte_offset: number;
  data: string; // base64
}

export interface CiJobArtifactTable {
  id: Generated<number>;
  project_id: number;
  job_id: number;
  file_type: string; // archive | metadata | trace ...
  file_format: Generated<string>;
  file_name: string;
  blob_key: string;
  size: number;
  sha256: string;
  expire_at: string | null;
  locked: Generated<number>;
  created_at: string;
}
export type CiJobArtifactRow = Selectable<CiJobArtifactTable>;

/** One file or directory of an artifact archive (the index built at upload). */
export interface CiArtifactEntryTable {
  id: Generated<number>;
  artifact_id: number;
  path: string;
  parent: string;
  name: string;
  type: 'file' | 'directory';
  size: number | null;
  mode: string;
  compressed_size: number | null;
  compression_method: number | null;
  local_header_offset: number | null;
  crc32: number | null;
}
export type CiArtifactEntryRow = Selectable<CiArtifactEntryTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    ci_runners: CiRunnerTable;
    ci_runner_managers: CiRunnerManagerTable;
    ci_runner_scopes: CiRunnerScopeTable;
    ci_pipelines: CiPipelineTable;
    ci_pipeline_variables: CiPipelineVariableTable;
    ci_jobs: CiJobTable;
    ci_job_trace_chunks: CiJobTraceChunkTable;
    ci_job_artifacts: CiJobArtifactTable;
    ci_artifact_entries: CiArtifactEntryTable;
  }
}
