/**
 * GitLab's GraphQL pipelines and jobs (app/graphql/types/ci/{pipeline_type,job_type,stage_type,
 * detailed_status_type}.rb): `Project.pipelines/pipeline`, `Pipeline.jobs/job/stages`,
 * `CiJob` and `CiStage`, over the REST use cases (GET …/pipelines, …/pipelines/:id,
 * …/pipelines/:id/jobs, …/jobs/:id), so the CI policy (read_pipeline, read_build, jobs
 * disabled) is the REST one.
 */
import { GraphQLEnumType, GraphQLFloat, GraphQLObjectType } from 'graphql';
import { gql, oncePerRequest, orNull, parseGlobalId, type GraphqlModule, type GqlFields } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { cancelPipeline, deletePipeline, projectIdOfCiRecord, retryPipeline, getLatestPipeline, getPipeline, getPipelineByIid, listPipelines, listPipelineJobs, listPipelineStages, type PipelineStageEntity } from './pipelines.js';
import { cancelJob, getJob, playJob, retryJob } from './jobs.js';
import { NotFoundError } from '../../kernel/errors.js';
import { projectByPath } from '../accounts/index.js';
import { ListPipelineJobsInput, ListPipelinesInput } from './ci.schema.js';
import { AVAILABLE_STATUSES, ACTIVE_STATUSES, CANCELABLE_STATUSES, COMPLETED_STATUSES } from './status.js';
import { detailedStatus, type DetailedStatusEntity, type PipelineBasicEntity, type PipelineEntity } from './pipeline.entity.js';
import type { JobEntity } from './job.entity.js';

const { nn, string, int, boolean, from } = gql;
const upperEnum = (name: string, description: string, values: readonly string[]) =>
  new GraphQLEnumType({ name, description, values: Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v }])) });
const pathOf = (url: string) => new URL(url).pathname;

/** GitLab's job artifact file types (Ci::JobArtifact.file_types), as `JobArtifactFileType` names them. */
const ARTIFACT_FILE_TYPES = [
  'archive', 'metadata', 'trace', 'junit', 'sast', 'dependency_scanning', 'container_scanning', 'dast', 'codequality', 'license_scanning',
  'performance', 'metrics', 'metrics_referee', 'network_referee', 'lsif', 'dotenv', 'cobertura', 'terraform', 'accessibility',
  'cluster_applications', 'secret_detection', 'requirements', 'coverage_fuzzing', 'browser_performance', 'load_performance',
  'api_fuzzing', 'cluster_image_scanning', 'cyclonedx', 'requirements_v2', 'annotations', 'repository_xray', 'jacoco',
];

/** A pipeline's full REST answer (GET …/pipelines/:id), once per request: list nodes carry the basic shape only. */
export function fullPipeline(ctx: Ctx, p: Pick<PipelineBasicEntity, 'id' | 'project_id'>): Promise<PipelineEntity> {
  if ('detailed_status' in p) return Promise.resolve(p as PipelineEntity);
  return oncePerRequest(ctx, `graphql:pipeline:${p.id}`, () => getPipeline(ctx, { id: String(p.project_id), pipeline_id: p.id }));
}

/** A field of the full pipeline. */
function full(type: Parameters<typeof from>[0], key: keyof PipelineEntity, description: string): GqlFields[string] {
  return { type, description, resolve: async (p: PipelineBasicEntity, _a: unknown, ctx: Ctx) => (await fullPipeline(ctx, p))[key] ?? null };
}

/** The stages of a pipeline, once per request (a pipeline has few: they come from its CI file). */
function stagesOf(ctx: Ctx, projectId: number, pipelineId: number): Promise<PipelineStageEntity[]> {
  return oncePerRequest(ctx, `graphql:stages:${pipelineId}`, () => listPipelineStages(ctx, { id: String(projectId), pipeline_id: pipelineId, page: 1, per_page: 100 }).then((p) => p.items));
}

/** What a merge request (of any shape REST answers) says about its source. */
interface MergeRequestLike {
  project_id: number;
  source_project_id: number | null;
  source_branch: string;
  sha: string | null;
}

interface PipelineArgs extends ConnectionArgs {
  status?: string | null;
  scope?: string | null;
  ref?: string | null;
  sha?: string | null;
  source?: string | null;
  username?: string | null;
  updatedAfter?: string | null;
  updatedBefore?: string | null;
}

export const ciGraphql: GraphqlModule = (g) => {
  g.add(upperEnum('PipelineStatusEnum', 'Status of a pipeline.', AVAILABLE_STATUSES));
  g.add(upperEnum('CiJobStatus', 'Status of a job.', AVAILABLE_STATUSES));
  g.add(upperEnum('PipelineScopeEnum', 'Scope of a pipeline.', ['running', 'pending', 'finished', 'branches', 'tags']));
  g.add(upperEnum('JobArtifactFileType', 'File types of a job artifact.', ARTIFACT_FILE_TYPES));
  const pipelineId = g.globalId('Ci::Pipeline');
  const jobId = g.globalId('CommitStatus', { name: 'JobID', aliases: ['Ci::Build', 'Ci::Bridge'] });

  g.add(
    new GraphQLObjectType({
      name: 'DetailedStatus',
      description: 'Detailed status of a pipeline, stage or job.',
      fields: {
        id: { type: nn(string), description: 'ID for a detailed status.', resolve: (d: Record<string, unknown>) => `${String(d.group)}-${String(d.for)}` },
        detailsPath: from(string, 'details_path', 'Path of the details for the status.'),
        favicon: from(string, 'favicon', 'Favicon of the status.'),
        group: from(string, 'group', 'Group of the status.'),
        hasDetails: from(boolean, 'has_details', 'Indicates if the status has further details.'),
        icon: from(string, 'icon', 'Icon of the status.'),
        label: from(string, 'label', 'Label of the status.'),
        text: from(string, 'text', 'Text of the status.'),
        tooltip: from(string, 'tooltip', 'Tooltip associated with the status.'),
      },
    }),
  );
  g.add(
    new GraphQLObjectType({
      name: 'CiJobArtifact',
      description: 'A job artifact.',
      fields: {
        downloadPath: { type: string, description: 'URL for downloading the artifact\'s file.', resolve: (a: Record<string, unknown>) => `${pathOf((a.job as JobEntity).web_url)}/artifacts/download?file_type=${String(a.file_type)}` },
        fileType: from(g.type('JobArtifactFileType'), 'file_type', 'File type of the artifact.'),
        name: from(string, 'filename', 'File name of the artifact.'),
        size: { type: nn(string), description: 'Size of the artifact in bytes (a BigInt, encoded as a string).', resolve: (a: Record<string, unknown>) => String(a.size) },
      },
    }),
  );
  g.defineObject('CiStage', {
    description: 'A stage of a pipeline.',
    fields: () => ({
      name: from(string, 'name', 'Name of the stage.'),
      status: from(string, 'status', 'Status of the pipeline stage.'),
      detailedStatus: {
        type: g.object('DetailedStatus'),
        description: 'Detailed status of the stage.',
        resolve: (s: PipelineStageEntity & { project_path?: string }) => ({ ...detailedStatus(s.status, ''), details_path: null, for: `${s.pipeline_id}-${s.name}` }),
      },
    }),
  });
  g.defineObject('CiJob', {
    description: 'A CI/CD job.',
    fields: () => ({
      id: gql.gid('Ci::Build', 'ID of the job.'),
      name: from(string, 'name', 'Name of the job.'),
      status: from(g.type('CiJobStatus'), 'status', 'Status of the job.'),
      stage: {
        type: g.object('CiStage'),
        description: 'Stage of the job.',
        resolve: async (j: JobEntity, _a: unknown, ctx: Ctx) => (await stagesOf(ctx, j.pipeline.project_id, j.pipeline.id)).find((s) => s.name === j.stage) ?? null,
      },
      allowFailure: from(nn(boolean), 'allow_failure', 'Whether the job is allowed to fail.'),
      duration: { type: int, description: 'Duration of the job in seconds.', resolve: (j: JobEntity) => (j.duration === null ? null : Math.round(j.duration)) },
      queuedDuration: from(GraphQLFloat, 'queued_duration', 'How long the job was enqueued before starting.'),
      coverage: from(GraphQLFloat, 'coverage', 'Coverage level of the job.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'When the job was created.'),
      startedAt: from(g.type('Time'), 'started_at', 'When the job was started.'),
      finishedAt: from(g.type('Time'), 'finished_at', 'When a job has finished running.'),
      erasedAt: from(g.type('Time'), 'erased_at', 'When the job was erased.'),
      refName: from(string, 'ref', 'Ref name of the job.'),
      tags: from(gql.list(string), 'tag_list', 'Tags for the current job.'),
      webPath: { type: string, description: 'Web path of the job.', resolve: (j: JobEntity) => pathOf(j.web_url) },
      shortSha: { type: nn(string), description: 'Short SHA1 ID of the commit.', resolve: (j: JobEntity) => j.commit?.short_id ?? '' },
      failureMessage: { type: string, description: 'Message on why the job failed.', resolve: (j: JobEntity) => j.failure_reason ?? null },
      active: { type: nn(boolean), description: 'Indicates the job is active.', resolve: (j: JobEntity) => ACTIVE_STATUSES.includes(j.status) },
      cancelable: { type: nn(boolean), description: 'Indicates the job can be canceled.', resolve: (j: JobEntity) => CANCELABLE_STATUSES.includes(j.status) },
      manualJob: { type: boolean, description: 'Whether the job has a manual action.', resolve: (j: JobEntity) => j.status === 'manual' },
      detailedStatus: {
        type: g.object('DetailedStatus'),
        description: 'Detailed status of the job.',
        resolve: (j: JobEntity) => ({ ...detailedStatus(j.status, pathOf(j.web_url)), for: String(j.id) }),
      },
      artifacts: {
        type: g.connection('CiJobArtifact'),
        description: 'Artifacts generated by the job.',
        resolve: (j: JobEntity) => gql.wholeList(j.artifacts.map((a) => ({ ...a, job: j }))),
      },
      pipeline: { type: g.object('Pipeline'), description: 'Pipeline the job belongs to.', resolve: (j: JobEntity, _a: unknown, ctx: Ctx) => orNull(fullPipeline(ctx, j.pipeline)) },
      user: from(g.object('UserCore'), 'user', 'User that triggered the job.'),
    }),
  });
  g.defineObject('Pipeline', {
    description: 'A CI/CD pipeline.',
    fields: () => ({
      id: gql.gid('Ci::Pipeline', 'ID of the pipeline.'),
      iid: { type: nn(string), description: 'Internal ID of the pipeline.', resolve: (p: PipelineBasicEntity) => String(p.iid) },
      sha: from(string, 'sha', 'SHA of the pipeline\'s commit.'),
      ref: from(string, 'ref', 'Reference to the branch from which the pipeline was triggered.'),
      refPath: { type: string, description: 'Reference path to the branch from which the pipeline was triggered.', resolve: async (p: PipelineBasicEntity, _a: unknown, ctx: Ctx) => `refs/${(await fullPipeline(ctx, p)).tag ? 'tags' : 'heads'}/${p.ref}` },
      status: from(nn(g.type('PipelineStatusEnum')), 'status', 'Status of the pipeline.'),
      source: from(string, 'source', 'Source of the pipeline.'),
      createdAt: from(nn(g.type('Time')), 'created_at', 'Timestamp of the pipeline\'s creation.'),
      updatedAt: from(nn(g.type('Time')), 'updated_at', 'Timestamp of the pipeline\'s last activity.'),
      path: { type: string, description: 'Relative path to the pipeline\'s page.', resolve: (p: PipelineBasicEntity) => pathOf(p.web_url) },
      name: full(string, 'name', 'Name of the pipeline.'),
      beforeSha: full(string, 'before_sha', 'Base SHA of the source branch.'),
      tag: full(nn(boolean), 'tag', 'Indicates whether the pipeline was triggered by a tag.'),
      yamlErrors: { type: nn(boolean), description: 'If the pipeline has YAML errors.', resolve: async (p: PipelineBasicEntity, _a: unknown, ctx: Ctx) => (await fullPipeline(ctx, p)).yaml_errors !== null },
      yamlErrorMessages: full(string, 'yaml_errors', 'Pipeline YAML errors.'),
      startedAt: full(g.type('Time'), 'started_at', 'Timestamp when the pipeline was started.'),
      finishedAt: full(g.type('Time'), 'finished_at', 'Timestamp of the pipeline\'s completion.'),
      committedAt: full(g.type('Time'), 'committed_at', 'Timestamp of the pipeline\'s commit.'),
      duration: full(int, 'duration', 'Duration of the pipeline in seconds.'),
      queuedDuration: full(GraphQLFloat, 'queued_duration', 'How long the pipeline was queued before starting.'),
      coverage: { type: GraphQLFloat, description: 'Coverage percentage.', resolve: async (p: PipelineBasicEntity, _a: unknown, ctx: Ctx) => { const c = (await fullPipeline(ctx, p)).coverage; return c === null ? null : Number(c); } },
      user: full(g.object('UserCore'), 'user', 'Pipeline user.'),
      detailedStatus: {
        type: nn(g.object('DetailedStatus')),
        description: 'Detailed status of the pipeline.',
        resolve: async (p: PipelineBasicEntity, _a: unknown, ctx: Ctx) => ({ ...(await fullPipeline(ctx, p)).detailed_status, for: String(p.id) }),
      },
      active: { type: nn(boolean), description: 'Indicates if the pipeline is active.', resolve: (p: PipelineBasicEntity) => ACTIVE_STATUSES.includes(p.status) },
      cancelable: { type: nn(boolean), description: 'Specifies if a pipeline can be canceled.', resolve: (p: PipelineBasicEntity) => CANCELABLE_STATUSES.includes(p.status) },
      complete: { type: nn(boolean), description: 'Indicates if a pipeline is complete.', resolve: (p: PipelineBasicEntity) => COMPLETED_STATUSES.includes(p.status) },
      stages: {
        type: g.connection('CiStage'),
        description: 'Stages of the pipeline.',
        args: connectionArgs,
        resolve: (p: PipelineBasicEntity, args: ConnectionArgs, ctx: Ctx) =>
          resolveConnection(args, (page) => listPipelineStages(ctx, { id: String(p.project_id), pipeline_id: p.id, ...page })),
      },
      jobs: {
        type: g.connection('CiJob'),
        description: 'Jobs belonging to the pipeline.',
        args: { ...connectionArgs, statuses: { type: gql.list(g.input('CiJobStatus')), description: 'Filter jobs by status.' } },
        resolve: (p: PipelineBasicEntity, args: ConnectionArgs & { statuses?: string[] | null }, ctx: Ctx) => {
          const input = parseParams(ListPipelineJobsInput, { id: String(p.project_id), pipeline_id: p.id, ...gql.given({ scope: args.statuses?.length ? args.statuses : undefined }) });
          return resolveConnection(args, (page) => listPipelineJobs(ctx, { ...input, ...page }));
        },
      },
      job: {
        type: g.object('CiJob'),
        description: 'Specific job in the pipeline, by ID.',
        args: { id: { type: jobId, description: 'ID of the job.' } },
        resolve: async (p: PipelineBasicEntity, args: { id?: string | null }, ctx: Ctx) => {
          if (!args.id) return null;
          const job = await orNull(getJob(ctx, { id: String(p.project_id), job_id: parseGlobalId(args.id, ['CommitStatus', 'Ci::Build', 'Ci::Bridge']) }));
          return job && job.pipeline.id === p.id ? job : null;
        },
      },
    }),
  });
  // The merge request's head pipeline (its `pipelines` connection is the merge requests domain's).
  const mrPipelines = (ctx: Ctx, mr: MergeRequestLike, extra: Record<string, unknown>) =>
    parseParams(ListPipelinesInput, { id: String(mr.source_project_id ?? mr.project_id), ref: mr.source_branch, ...extra });
  g.extend('MergeRequest', () => ({
    headPipeline: {
      type: g.object('Pipeline'),
      description: 'Pipeline running on the branch HEAD of the merge request.',
      resolve: async (mr: MergeRequestLike, _a: unknown, ctx: Ctx) => {
        if (!mr.sha) return null;
        const page = await orNull(listPipelines(ctx, { ...mrPipelines(ctx, mr, { sha: mr.sha }), page: 1, per_page: 1 }));
        return page?.items[0] ?? null;
      },
    },
  }));
  g.extend('Project', () => ({
    pipelines: {
      type: g.connection('Pipeline'),
      description: 'Pipelines of the project.',
      args: {
        ...connectionArgs,
        status: { type: g.input('PipelineStatusEnum'), description: 'Filter pipelines by their status.' },
        scope: { type: g.input('PipelineScopeEnum'), description: 'Filter pipelines by scope.' },
        ref: { type: string, description: 'Filter pipelines by the ref they are run for.' },
        sha: { type: string, description: 'Filter pipelines by the sha of the commit they are run for.' },
        source: { type: string, description: 'Filter pipelines by their source.' },
        username: { type: string, description: 'Filter pipelines by the user that triggered the pipeline.' },
        updatedAfter: { type: g.input('Time'), description: 'Pipelines updated after the date.' },
        updatedBefore: { type: g.input('Time'), description: 'Pipelines updated before the date.' },
      },
      resolve: (project: { id: number }, args: PipelineArgs, ctx: Ctx) => {
        const input = parseParams(
          ListPipelinesInput,
          { id: String(project.id), ...gql.given({ status: args.status, scope: args.scope, ref: args.ref, sha: args.sha, source: args.source, username: args.username, updated_after: args.updatedAfter, updated_before: args.updatedBefore }) },
        );
        return visibleConnection(resolveConnection(args, (page) => listPipelines(ctx, { ...input, ...page })));
      },
    },
    pipeline: {
      type: g.object('Pipeline'),
      description: 'Pipeline of the project. If no arguments are provided, returns the latest pipeline for the head commit on the default branch.',
      args: {
        id: { type: pipelineId, description: 'Global ID of the Pipeline. For example, "gid://gitlab/Ci::Pipeline/314".' },
        iid: { type: gql.id, description: 'IID of the Pipeline. For example, "1".' },
        sha: { type: string, description: 'SHA of the Pipeline. For example, "dyd0f15ay83993f5ab66k927w28673882x99100b".' },
      },
      resolve: async (project: { id: number }, args: { id?: string | null; iid?: string | null; sha?: string | null }, ctx: Ctx) => {
        if (args.id) return orNull(getPipeline(ctx, { id: String(project.id), pipeline_id: parseGlobalId(args.id, ['Ci::Pipeline']) }));
        if (args.iid) return orNull(getPipelineByIid(ctx, { id: String(project.id), iid: Number(args.iid) }));
        if (args.sha) {
          const input = parseParams(ListPipelinesInput, { id: String(project.id), sha: args.sha });
          const page = await orNull(listPipelines(ctx, { ...input, page: 1, per_page: 1 }));
          return page?.items[0] ?? null;
        }
        return orNull(getLatestPipeline(ctx, { id: String(project.id) }));
      },
    },
  }));

  // GitLab's pipeline and job mutations (app/graphql/mutations/ci/pipeline/*, job/*), over the REST actions.
  const projectOf = async (ctx: Ctx, table: 'ci_pipelines' | 'ci_jobs', id: number) => {
    const projectId = await projectIdOfCiRecord(ctx, table, id);
    const project = projectId === null ? null : await projectByPath(ctx, String(projectId));
    if (!project) throw new NotFoundError(null);
    return String(project.id);
  };
  const pipelineRef = async (ctx: Ctx, gid: string) => {
    const pipelineIdNumber = parseGlobalId(gid, ['Ci::Pipeline']);
    return { id: await projectOf(ctx, 'ci_pipelines', pipelineIdNumber), pipeline_id: pipelineIdNumber };
  };
  const jobRef = async (ctx: Ctx, gid: string) => {
    const jobIdNumber = parseGlobalId(gid, ['Ci::Build', 'CommitStatus', 'Ci::Processable']);
    return { id: await projectOf(ctx, 'ci_jobs', jobIdNumber), job_id: jobIdNumber };
  };
  const pipelineInput = () => ({ id: { type: nn(pipelineId), description: 'ID of the pipeline to mutate.' } });
  g.mutation<{ id: string }>('pipelineCancel', {
    description: 'Cancels a pipeline.',
    input: pipelineInput,
    payload: () => ({}),
    resolve: async (ctx, input) => {
      await cancelPipeline(ctx, await pipelineRef(ctx, input.id));
      return {};
    },
  });
  g.mutation<{ id: string }>('pipelineRetry', {
    description: 'Retries the failed and canceled jobs of a pipeline.',
    input: pipelineInput,
    payload: () => ({ pipeline: { type: g.object('Pipeline'), description: 'Pipeline after mutation.' } }),
    resolve: async (ctx, input) => ({ pipeline: await retryPipeline(ctx, await pipelineRef(ctx, input.id)) }),
  });
  g.mutation<{ id: string }>('pipelineDestroy', {
    description: 'Deletes a pipeline.',
    input: pipelineInput,
    payload: () => ({}),
    resolve: async (ctx, input) => {
      await deletePipeline(ctx, await pipelineRef(ctx, input.id));
      return {};
    },
  });
  const processableId = g.globalId('Ci::Processable', { name: 'CiProcessableID', aliases: ['Ci::Build', 'CommitStatus'] });
  const buildId = g.globalId('Ci::Build', { aliases: ['CommitStatus', 'Ci::Processable'] });
  const jobPayload = () => ({ job: { type: g.object('CiJob'), description: 'Job after the mutation.' } });
  g.mutation<{ id: string }>('jobRetry', {
    description: 'Retries a job.',
    input: () => ({ id: { type: nn(processableId), description: 'ID of the job to mutate.' } }),
    payload: jobPayload,
    resolve: async (ctx, input) => ({ job: await retryJob(ctx, await jobRef(ctx, input.id)) }),
  });
  g.mutation<{ id: string }>('jobCancel', {
    description: 'Cancels a job.',
    input: () => ({ id: { type: nn(buildId), description: 'ID of the job to mutate.' } }),
    payload: jobPayload,
    resolve: async (ctx, input) => ({ job: await cancelJob(ctx, await jobRef(ctx, input.id)) }),
  });
  g.mutation<{ id: string }>('jobPlay', {
    description: 'Starts a manual job.',
    input: () => ({ id: { type: nn(buildId), description: 'ID of the job to mutate.' } }),
    payload: jobPayload,
    resolve: async (ctx, input) => ({ job: await playJob(ctx, await jobRef(ctx, input.id)) }),
  });
};
