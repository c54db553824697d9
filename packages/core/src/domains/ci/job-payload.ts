/**
 * What a runner receives when it picks a job (GitLab's `Entities::Ci::JobRequest::Response`):
 * the job token, where to fetch the code, the predefined `CI_*` variables followed by the CI
 * file's and the pipeline's, the steps, the image, the artifacts to upload and the jobs whose
 * artifacts to download first. `JobPayload` is the one declaration of that answer: the builder
 * below returns it, the client exports it and `forgelet runner` reads it.
 */
import { selectUserById } from '../../access/users.js';
import type { Ctx } from '../../access/context.js';
import { traversalIds } from '../../access/policy.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import type { UserRow } from '../../access/user.table.js';
import { isProtectedBranch } from '../repository/index.js';
import { variablesForJob } from '../ci-variables/index.js';
import type { RepositoryCommitRow } from '../repository/index.js';
import type { CiJobRow, CiPipelineRow, CiRunnerRow } from './ci.table.js';
import type { CiJobDefinition } from './ci-config.js';
import { GITLAB_COMPATIBLE_VERSION } from '../../kernel/version.js';
import { jobWebUrl, parseDefinition } from './job.entity.js';
import { archiveOf } from './jobs.js';
import { pipelineWebUrl } from './pipeline.entity.js';

export const DEFAULT_JOB_TIMEOUT = 3600;
export const DEFAULT_GIT_DEPTH = 20;

/** A job variable as the runner gets it (`to_runner_variables`): a later entry with the same key wins. */
export interface JobPayloadVariable {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
  /** The runner writes the value to a file and sets the variable to its path. */
  file?: boolean;
  /** The value is not expanded (`$OTHER` stays as written). */
  raw?: boolean;
}

/** `job_info` (GitLab's `JobRequest::JobInfo`). */
export interface JobPayloadJobInfo {
  id: number;
  name: string;
  stage: string;
  pipeline_id: number;
  project_id: number;
  project_name: string;
  project_full_path: string;
  namespace_id: number;
  root_namespace_id: number;
  user_id: number | null;
  time_in_queue_seconds: number;
  /** A count as text, as GitLab sends it for its Prometheus buckets (`+Inf`, `…+`). */
  project_jobs_running_on_instance_runners_count: string;
  queue_size: number;
  queue_depth: number;
}

/** `git_info` (GitLab's `JobRequest::GitInfo`): where and what to fetch. */
export interface JobPayloadGitInfo {
  /** The clone URL with the job token as `gitlab-ci-token` credentials. */
  repo_url: string;
  ref: string;
  sha: string;
  before_sha: string;
  ref_type: 'branch' | 'tag';
  refspecs: string[];
  depth: number;
  repo_object_format: 'sha1' | 'sha256';
  protected: boolean;
}

/** `runner_info` (GitLab's `JobRequest::RunnerInfo`). */
export interface JobPayloadRunnerInfo {
  /** Seconds the job may run: its own `timeout`, capped by the runner's `maximum_timeout`. */
  timeout: number;
  runner_session_url: string | null;
}

/** One of `steps` (GitLab's `JobRequest::Step`): `script` is `before_script` + `script`. */
export interface JobPayloadStep {
  name: 'script' | 'after_script' | 'release';
  script: string[];
  timeout: number;
  when: 'on_success' | 'on_failure' | 'always';
  allow_failure: boolean;
}

/** A port of an image or service (GitLab's `JobRequest::Port`). */
export interface JobPayloadPort {
  number: number;
  protocol: string;
  name: string;
}

/** `image` (GitLab's `JobRequest::Image`). */
export interface JobPayloadImage {
  name: string;
  entrypoint: string[] | null;
  ports: JobPayloadPort[];
  /** Sent by GitLab behind its `ci_docker_image_pull_policy` flag. */
  pull_policy?: string[] | null;
}

/** One of `services` (GitLab's `JobRequest::Service`): an image run beside the job. */
export interface JobPayloadService extends JobPayloadImage {
  alias: string | null;
  command: string[] | null;
  variables?: { key: string; value: string }[];
}

/** One of `artifacts` (GitLab's `JobRequest::Artifacts`): what to upload, as what. */
export interface JobPayloadArtifacts {
  name: string | null;
  /** Left out unless the CI file sets it. */
  untracked?: boolean;
  paths: string[];
  /** Left out unless the CI file sets it. */
  exclude?: string[];
  when: 'on_success' | 'on_failure' | 'always';
  expire_in: string | null;
  artifact_type: string;
  artifact_format: 'zip' | 'gzip' | 'raw';
}

/** One of `cache` (GitLab's `JobRequest::Cache`). */
export interface JobPayloadCache {
  key: string;
  untracked: boolean;
  paths: string[];
  policy: 'pull-push' | 'pull' | 'push';
  when: 'on_success' | 'on_failure' | 'always';
  fallback_keys: string[];
}

/** One of `credentials` (GitLab's `JobRequest::Credentials`): registry logins for the images. */
export interface JobPayloadCredentials {
  type: string;
  url: string;
  username: string;
  password: string;
}

/** One of `dependencies` (GitLab's `JobRequest::Dependency`): a job whose artifacts to download first. */
export interface JobPayloadDependency {
  id: number;
  name: string;
  /** The token to download with: the running job's own. */
  token: string;
  /** Present when the job has an artifacts archive. */
  artifacts_file?: { filename: string; size: number };
}

/** The answer to `POST /jobs/request` (201): the job the runner now runs. */
export interface JobPayload {
  id: number;
  /** The job's CI token: every other call of the job authenticates with it. */
  token: string;
  allow_git_fetch: boolean;
  job_info: JobPayloadJobInfo;
  git_info: JobPayloadGitInfo;
  runner_info: JobPayloadRunnerInfo;
  variables: JobPayloadVariable[];
  steps: JobPayloadStep[];
  image: JobPayloadImage | null;
  services: JobPayloadService[];
  /** GitLab sends null when the job declares no `artifacts`. */
  artifacts: JobPayloadArtifacts[] | null;
  cache: JobPayloadCache[];
  credentials: JobPayloadCredentials[];
  dependencies: JobPayloadDependency[];
  /** What the server asks of the runner (`trace_sections`, `failure_reasons`, …). */
  features: Record<string, unknown>;
}

/** GitLab's `CI_COMMIT_REF_SLUG`: lower-cased, non-alphanumerics to `-`, 63 characters, no edge dashes. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

function environmentTier(name: string, explicit: string | undefined): string {
  if (explicit) return explicit;
  if (/(prod|prd|live)/i.test(name)) return 'production';
  if (/(stag|model|pre|demo)/i.test(name)) return 'staging';
  if (/(test|tst|int|ac(ce|)pt|qa|qc|control|quality)/i.test(name)) return 'testing';
  if (/(dev|review|trunk)/i.test(name)) return 'development';
  return 'other';
}

export interface PayloadContext {
  job: CiJobRow;
  token: string;
  project: ProjectRow;
  namespace: NamespaceRow;
  rootNamespace: NamespaceRow;
  pipeline: CiPipelineRow;
  commit: RepositoryCommitRow | undefined;
  user: UserRow | null;
  runner: CiRunnerRow;
}

export async function loadPayloadContext(ctx: Ctx, job: CiJobRow, token: string, runner: CiRunnerRow): Promise<PayloadContext> {
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', job.project_id).executeTakeFirstOrThrow();
  const namespace = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const rootId = namespace.kind === 'group' ? traversalIds(namespace.traversal)[0]! : namespace.id;
  const rootNamespace = rootId === namespace.id ? namespace : await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', rootId).executeTakeFirstOrThrow();
  const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', job.pipeline_id).executeTakeFirstOrThrow();
  const commit = await ctx.db.selectFrom('repository_commits').selectAll().where('project_id', '=', project.id).where('sha', '=', pipeline.sha).executeTakeFirst();
  const user = job.user_id !== null ? ((await selectUserById(ctx.db, job.user_id)) ?? null) : null;
  return { job, token, project, namespace, rootNamespace, pipeline, commit, user, runner };
}

/** `$VAR` / `${VAR}` from the variables so far (the last entry of a key wins); unknown names expand to ''. */
function expandWith(text: string, vars: JobPayloadVariable[]): string {
  const byKey = new Map(vars.map((v) => [v.key, v.value]));
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a: string | undefined, b: string | undefined) => byKey.get((a ?? b)!) ?? '');
}

function repoUrl(ctx: Ctx, p: PayloadContext): string {
  const url = new URL(ctx.config.externalUrl);
  return `${url.protocol}//gitlab-ci-token:${p.token}@${url.host}${url.pathname.replace(/\/$/, '')}/${p.project.path_with_namespace}.git`;
}

/** The variables of the job, lowest precedence first (the runner lets a later key win). */
export async function runnerVariables(ctx: Ctx, p: PayloadContext, def: CiJobDefinition, isProtected: boolean): Promise<JobPayloadVariable[]> {
  const { job, project, namespace, rootNamespace, pipeline, commit, user, runner } = p;
  const server = new URL(ctx.config.externalUrl);
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  const out: JobPayloadVariable[] = [];
  const add = (key: string, value: string | number | boolean | null | undefined, extra: Partial<JobPayloadVariable> = {}) => {
    if (value === null || value === undefined) return;
    out.push({ key, value: String(value), public: true, masked: false, ...extra });
  };
  add('CI_PIPELINE_ID', pipeline.id);
  add('CI_PIPELINE_URL', pipelineWebUrl(ctx, project, pipeline.id));
  add('CI_JOB_ID', job.id);
  add('CI_JOB_URL', jobWebUrl(ctx, project, job.id));
  add('CI_JOB_TOKEN', p.token, { public: false, masked: true });
  add('CI_JOB_STARTED_AT', job.started_at);
  add('CI_REGISTRY_USER', 'gitlab-ci-token');
  add('CI_REGISTRY_PASSWORD', p.token, { public: false, masked: true });
  add('CI_REPOSITORY_URL', repoUrl(ctx, p), { public: false });
  add('CI_DEPENDENCY_PROXY_USER', 'gitlab-ci-token');
  add('CI_DEPENDENCY_PROXY_PASSWORD', p.token, { public: false, masked: true });
  add('CI_JOB_NAME', job.name);
  add('CI_JOB_NAME_SLUG', slugify(job.name));
  add('CI_JOB_STAGE', job.stage);
  if (job.when === 'manual') add('CI_JOB_MANUAL', 'true');
  add('CI_NODE_TOTAL', 1);
  add('CI', 'true');
  add('GITLAB_CI', 'true');
  add('CI_SERVER_URL', ctx.config.externalUrl);
  add('CI_SERVER_HOST', server.hostname);
  add('CI_SERVER_PORT', port);
  add('CI_SERVER_PROTOCOL', server.protocol.replace(':', ''));
  add('CI_SERVER_SHELL_SSH_HOST', server.hostname);
  add('CI_SERVER_SHELL_SSH_PORT', 22);
  add('CI_SERVER_NAME', 'GitLab');
  const [major, minor, patch] = GITLAB_COMPATIBLE_VERSION.split(/[.-]/);
  add('CI_SERVER_VERSION', GITLAB_COMPATIBLE_VERSION);
  add('CI_SERVER_VERSION_MAJOR', major);
  add('CI_SERVER_VERSION_MINOR', minor);
  add('CI_SERVER_VERSION_PATCH', patch);
  add('CI_SERVER_REVISION', '');
  add('GITLAB_FEATURES', '');
  add('CI_PROJECT_ID', project.id);
  add('CI_PROJECT_NAME', project.path);
  add('CI_PROJECT_TITLE', project.name);
  add('CI_PROJECT_DESCRIPTION', project.description);
  add('CI_PROJECT_PATH', project.path_with_namespace);
  add('CI_PROJECT_PATH_SLUG', slugify(project.path_with_namespace));
  add('CI_PROJECT_NAMESPACE', namespace.full_path);
  add('CI_PROJECT_NAMESPACE_SLUG', slugify(namespace.full_path));
  add('CI_PROJECT_NAMESPACE_ID', namespace.id);
  add('CI_PROJECT_ROOT_NAMESPACE', rootNamespace.path);
  add('CI_PROJECT_URL', ctx.urls.web(`/${project.path_with_namespace}`));
  add('CI_PROJECT_VISIBILITY', project.visibility);
  add('CI_PROJECT_REPOSITORY_LANGUAGES', '');
  add('CI_PROJECT_CLASSIFICATION_LABEL', '');
  add('CI_DEFAULT_BRANCH', project.default_branch);
  add('CI_CONFIG_PATH', '.gitlab-ci.yml');
  add('CI_PAGES_DOMAIN', server.hostname);
  add('CI_API_V4_URL', `${ctx.config.externalUrl}/api/v4`);
  add('CI_API_GRAPHQL_URL', `${ctx.config.externalUrl}/api/graphql`);
  add('CI_PIPELINE_IID', pipeline.iid);
  add('CI_PIPELINE_SOURCE', pipeline.source);
  add('CI_PIPELINE_CREATED_AT', pipeline.created_at);
  if (pipeline.name) add('CI_PIPELINE_NAME', pipeline.name);
  add('CI_COMMIT_SHA', pipeline.sha);
  add('CI_COMMIT_SHORT_SHA', pipeline.sha.slice(0, 8));
  add('CI_COMMIT_BEFORE_SHA', pipeline.before_sha);
  add('CI_COMMIT_REF_NAME', pipeline.ref);
  add('CI_COMMIT_REF_SLUG', slugify(pipeline.ref));
  if (pipeline.tag === 1) add('CI_COMMIT_TAG', pipeline.ref);
  else add('CI_COMMIT_BRANCH', pipeline.ref);
  if (commit) {
    add('CI_COMMIT_MESSAGE', commit.message);
    add('CI_COMMIT_TITLE', commit.title);
    add('CI_COMMIT_DESCRIPTION', commit.message.includes('\n') ? commit.message.slice(commit.message.indexOf('\n') + 1).replace(/^\n/, '') : '');
    add('CI_COMMIT_AUTHOR', `${commit.author_name} <${commit.author_email}>`);
    add('CI_COMMIT_TIMESTAMP', commit.committed_date);
  }
  add('CI_COMMIT_REF_PROTECTED', isProtected ? 'true' : 'false');
  if (user) {
    add('GITLAB_USER_ID', user.id);
    add('GITLAB_USER_EMAIL', user.email);
    add('GITLAB_USER_LOGIN', user.username);
    add('GITLAB_USER_NAME', user.name);
  }
  add('CI_RUNNER_ID', runner.id);
  add('CI_RUNNER_DESCRIPTION', runner.description);
  add('CI_RUNNER_TAGS', JSON.stringify(JSON.parse(runner.tag_list) as string[]));
  // The CI file's variables (global, then the job's); the instance's, the groups' and the
  // project's CI/CD variables; then the pipeline's (highest precedence).
  const fileVariables: JobPayloadVariable[] = def.variables.map((v) => ({ key: v.key, value: v.value, public: true, masked: false, ...(v.raw ? { raw: true } : {}) }));
  // The environment as deployed (`review/$CI_COMMIT_REF_SLUG` expanded, as delivery names it):
  // CI_ENVIRONMENT_* and the variables' environment scopes see that name.
  const environment = def.environment ? expandWith(def.environment.name, [...out, ...fileVariables]).trim() : null;
  if (def.environment && environment !== null) {
    add('CI_ENVIRONMENT_NAME', environment);
    add('CI_ENVIRONMENT_SLUG', slugify(environment).slice(0, 24).replace(/-+$/, ''));
    add('CI_ENVIRONMENT_ACTION', def.environment.action ?? 'start');
    add('CI_ENVIRONMENT_TIER', environmentTier(environment, def.environment.deployment_tier));
  }
  out.push(...fileVariables);
  out.push(...(await variablesForJob(ctx, { projectId: project.id, namespace, protectedRef: isProtected, environment })));
  const pipelineVariables = await ctx.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
  for (const v of pipelineVariables) {
    out.push({ key: v.key, value: ctx.secrets.decrypt(v.value_encrypted), public: false, masked: false, ...(v.variable_type === 'file' ? { file: true } : {}) });
  }
  return out;
}

/** Jobs whose artifacts this job downloads: `dependencies`, else `needs` with artifacts, else earlier stages. */
async function dependenciesOf(ctx: Ctx, p: PayloadContext, def: CiJobDefinition): Promise<JobPayloadDependency[]> {
  const jobs = await ctx.db
    .selectFrom('ci_jobs')
    .selectAll()
    .where('pipeline_id', '=', p.job.pipeline_id)
    .where('retried', '=', 0)
    .where('id', '!=', p.job.id)
    .orderBy('stage_idx')
    .orderBy('id')
    .execute();
  let chosen: CiJobRow[];
  if (def.dependencies) chosen = jobs.filter((j) => def.dependencies!.includes(j.name));
  else if (def.needs) chosen = jobs.filter((j) => def.needs!.some((n) => n.name === j.name && n.artifacts));
  else chosen = jobs.filter((j) => j.stage_idx < p.job.stage_idx);
  const out: JobPayloadDependency[] = [];
  for (const j of chosen) {
    const archive = await archiveOf(ctx, j.id);
    out.push({ id: j.id, name: j.name, token: p.token, ...(archive ? { artifacts_file: { filename: archive.file_name, size: archive.size } } : {}) });
  }
  return out;
}

/** The job payload for the runner that claimed the job. */
export async function buildJobPayload(ctx: Ctx, p: PayloadContext): Promise<JobPayload> {
  const { job, project, pipeline, runner } = p;
  const def = parseDefinition(job);
  const isProtected = pipeline.tag === 0 && (await isProtectedBranch(ctx.db, project.id, pipeline.ref));
  const jobTimeout = def.timeout ?? DEFAULT_JOB_TIMEOUT;
  const timeout = runner.maximum_timeout !== null ? Math.min(jobTimeout, runner.maximum_timeout) : jobTimeout;
  const steps: JobPayloadStep[] = [
    { name: 'script', script: [...def.before_script, ...def.script], timeout, when: 'on_success', allow_failure: false },
  ];
  if (def.after_script.length) steps.push({ name: 'after_script', script: def.after_script, timeout, when: 'always', allow_failure: true });
  const artifacts: JobPayloadArtifacts[] = def.artifacts && (def.artifacts.paths || def.artifacts.untracked)
    ? [
        {
          name: def.artifacts.name ?? null,
          ...(def.artifacts.untracked !== undefined ? { untracked: def.artifacts.untracked } : {}),
          paths: def.artifacts.paths ?? [],
          ...(def.artifacts.exclude ? { exclude: def.artifacts.exclude } : {}),
          when: def.artifacts.when ?? 'on_success',
          expire_in: def.artifacts.expire_in ?? null,
          artifact_type: 'archive',
          artifact_format: 'zip',
        },
      ]
    : [];
  const queuedSeconds = job.queued_at && job.started_at ? (Date.parse(job.started_at) - Date.parse(job.queued_at)) / 1000 : 0;
  const refType = pipeline.tag === 1 ? 'tag' : 'branch';
  return {
    id: job.id,
    token: p.token,
    allow_git_fetch: true,
    job_info: {
      id: job.id,
      name: job.name,
      stage: job.stage,
      pipeline_id: pipeline.id,
      project_id: project.id,
      project_name: project.name,
      project_full_path: project.path_with_namespace,
      namespace_id: project.namespace_id,
      root_namespace_id: p.rootNamespace.id,
      user_id: job.user_id,
      time_in_queue_seconds: Math.max(0, Math.round(queuedSeconds)),
      project_jobs_running_on_instance_runners_count: '0',
      queue_size: 0,
      queue_depth: 0,
    },
    git_info: {
      repo_url: repoUrl(ctx, p),
      ref: pipeline.ref,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      ref_type: refType,
      refspecs: refType === 'tag' ? [`+refs/tags/${pipeline.ref}:refs/tags/${pipeline.ref}`] : [`+refs/heads/${pipeline.ref}:refs/remotes/origin/${pipeline.ref}`],
      depth: DEFAULT_GIT_DEPTH,
      repo_object_format: 'sha1',
      protected: isProtected,
    },
    runner_info: { timeout, runner_session_url: null },
    variables: await runnerVariables(ctx, p, def, isProtected),
    steps,
    image: def.image ? { name: def.image.name, entrypoint: def.image.entrypoint ?? null, ports: [], pull_policy: null } : null,
    services: [],
    artifacts,
    cache: [],
    credentials: [],
    dependencies: await dependenciesOf(ctx, p, def),
    features: {},
  };
}
