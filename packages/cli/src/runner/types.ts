/**
 * The job payload of `POST /api/v4/jobs/request` (GitLab's Ci::JobRequest::Response entity),
 * as far as a shell runner uses it. Every field is optional on the wire except `id` and
 * `token`; the runner reads them defensively.
 */

export interface JobVariable {
  key: string;
  value: string;
  public?: boolean;
  masked?: boolean;
  file?: boolean;
  /** `raw: true` variables are not expanded. */
  raw?: boolean;
}

export interface JobStep {
  name: string; // script | after_script | release
  script: string[];
  timeout?: number;
  when?: string; // on_success | on_failure | always
  allow_failure?: boolean;
}

export interface JobArtifactSpec {
  name?: string | null;
  untracked?: boolean;
  paths?: string[] | null;
  exclude?: string[] | null;
  when?: string | null; // on_success | on_failure | always
  expire_in?: string | null;
  artifact_type?: string | null; // archive | junit | dotenv …
  artifact_format?: string | null; // zip | gzip | raw
}

export interface JobDependency {
  id: number;
  name: string;
  token?: string;
  artifacts_file?: { filename: string; size: number } | null;
}

export interface JobPayload {
  id: number;
  token: string;
  allow_git_fetch?: boolean;
  job_info?: {
    id?: number;
    name?: string;
    stage?: string;
    project_id?: number;
    project_name?: string;
    pipeline_id?: number;
  };
  git_info?: {
    repo_url?: string;
    ref?: string;
    sha?: string;
    before_sha?: string;
    ref_type?: string;
    refspecs?: string[];
    depth?: number;
  };
  runner_info?: { timeout?: number; runner_session_url?: string | null };
  variables?: JobVariable[];
  steps?: JobStep[];
  image?: { name?: string } | null;
  services?: unknown[];
  artifacts?: JobArtifactSpec[] | null;
  cache?: unknown[];
  dependencies?: JobDependency[];
  features?: Record<string, unknown>;
}

/** One entry of `GET /projects/:id/repository/tree`. */
export interface TreeEntry {
  id: string;
  name: string;
  type: 'blob' | 'tree' | 'commit';
  path: string;
  mode: string;
}

/** What the runner reports for each finished job. */
export interface JobOutcome {
  job: number;
  name: string;
  stage: string;
  project_id: number | null;
  pipeline_id: number | null;
  status: 'success' | 'failed' | 'canceled';
  failure_reason: string | null;
  exit_code: number | null;
  duration: number;
}
