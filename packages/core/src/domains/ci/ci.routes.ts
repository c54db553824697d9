import { created, noContent, ok, paged, route, text, type Route } from '../../kernel/route.js';
import {
  CancelJobInput,
  CreatePipelineRequest,
  CreateRunnerInput,
  JobRefInput,
  JobTraceInput,
  LatestPipelineInput,
  ListPipelineJobsInput,
  ListPipelinesInput,
  ListProjectJobsInput,
  ListProjectRunnersInput,
  PipelineRefInput,
  PlayJobInput,
  RegisterRunnerInput,
  RequestJobInput,
  RunnerRefInput,
  RunnerTokenInput,
  UpdateJobInput,
  VerifyRunnerInput,
} from './ci.schema.js';
import {
  cancelJob,
  currentJob,
  getJob,
  getJobTrace,
  listProjectJobs,
  playJob,
  retryJob,
} from './jobs.js';
import {
  cancelPipeline,
  createPipelineFromApi,
  deletePipeline,
  getLatestPipeline,
  getPipeline,
  listPipelineJobs,
  listPipelines,
  listPipelineVariables,
  retryPipeline,
} from './pipelines.js';
import { patchTrace, requestJob, updateJob } from './runner-api.js';
import { createUserRunner, getRunner, listProjectRunners, listRunnerManagers, registerRunner, unregisterRunner, verifyRunner } from './runners.js';

const pipelines = 'pipelines';
/** One `bytes=N-` or `bytes=N-M` range; anything else (several ranges, a suffix, other units) is ignored, as RFC 9110 allows: the whole log. */
function byteRange(header: string | undefined): { start: number; end: number | null } | null {
  const m = /^bytes=(\d{1,15})-(\d{1,15})?$/.exec((header ?? '').trim());
  if (!m) return null;
  const start = Number(m[1]);
  const end = m[2] === undefined ? null : Number(m[2]);
  return end !== null && end < start ? null : { start, end };
}

const jobs = 'jobs';
const runners = 'runners';

export const ciRoutes: Route[] = [
  // Pipelines
  route('GET', '/projects/:id/pipelines', { auth: 'optional', params: ListPipelinesInput, tag: pipelines, summary: 'List project pipelines' },
    async (ctx, input) => paged(await listPipelines(ctx, input))),
  route('GET', '/projects/:id/pipelines/latest', { auth: 'optional', params: LatestPipelineInput, tag: pipelines, summary: 'The latest pipeline of a ref (default branch by default)' },
    async (ctx, input) => ok(await getLatestPipeline(ctx, input))),
  route('GET', '/projects/:id/pipelines/:pipeline_id', { auth: 'optional', params: PipelineRefInput, tag: pipelines, summary: 'Get a pipeline' },
    async (ctx, input) => ok(await getPipeline(ctx, input))),
  route('POST', '/projects/:id/pipeline', { auth: 'required', params: CreatePipelineRequest, tag: pipelines, summary: 'Run a pipeline on a branch or tag' },
    async (ctx, input) => created(await createPipelineFromApi(ctx, input))),
  route('POST', '/projects/:id/pipelines/:pipeline_id/cancel', { auth: 'required', params: PipelineRefInput, tag: pipelines, summary: 'Cancel the running jobs of a pipeline' },
    async (ctx, input) => ok(await cancelPipeline(ctx, input))),
  route('POST', '/projects/:id/pipelines/:pipeline_id/retry', { auth: 'required', params: PipelineRefInput, tag: pipelines, summary: 'Retry the failed and canceled jobs of a pipeline' },
    async (ctx, input) => created(await retryPipeline(ctx, input))),
  route('DELETE', '/projects/:id/pipelines/:pipeline_id', { auth: 'required', params: PipelineRefInput, tag: pipelines, summary: 'Delete a pipeline (Owner)' },
    async (ctx, input) => {
      await deletePipeline(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/pipelines/:pipeline_id/jobs', { auth: 'optional', jobToken: true, params: ListPipelineJobsInput, tag: pipelines, summary: 'Jobs of a pipeline' },
    async (ctx, input) => paged(await listPipelineJobs(ctx, input))),
  route('GET', '/projects/:id/pipelines/:pipeline_id/variables', { auth: 'optional', params: PipelineRefInput, tag: pipelines, summary: 'Variables a pipeline was run with' },
    async (ctx, input) => ok(await listPipelineVariables(ctx, input))),

  // Jobs
  route('GET', '/projects/:id/jobs', { auth: 'required', jobToken: true, params: ListProjectJobsInput, tag: jobs, summary: 'List project jobs, newest first' },
    async (ctx, input) => paged(await listProjectJobs(ctx, input))),
  route('GET', '/projects/:id/jobs/:job_id', { auth: 'required', params: JobRefInput, tag: jobs, summary: 'Get a job' },
    async (ctx, input) => ok(await getJob(ctx, input))),
  route('GET', '/projects/:id/jobs/:job_id/trace', { auth: 'required', params: JobRefInput, tag: jobs, summary: 'The log of a job (text/plain)' },
    async (ctx, input, req) => {
      const trace = await getJobTrace(ctx, input);
      const headers = { 'Content-Disposition': `infile; filename="${trace.filename}"`, 'Accept-Ranges': 'bytes' };
      // `Range: bytes=N-` (or N-M): the part from byte N, so a page following a running job reads only what is new.
      const range = byteRange(req.headers.range);
      if (!range) return text(trace.body, 'text/plain', 200, headers);
      const log = Buffer.from(trace.body, 'utf8');
      if (range.start >= log.length) return text('', 'text/plain', 416, { 'Content-Range': `bytes */${log.length}` });
      const end = Math.min(range.end ?? log.length - 1, log.length - 1);
      return text(log.subarray(range.start, end + 1).toString('utf8'), 'text/plain', 206, { ...headers, 'Content-Range': `bytes ${range.start}-${end}/${log.length}` });
    }),
  route('POST', '/projects/:id/jobs/:job_id/cancel', { auth: 'required', params: CancelJobInput, tag: jobs, summary: 'Cancel a job' },
    async (ctx, input) => created(await cancelJob(ctx, input))),
  route('POST', '/projects/:id/jobs/:job_id/retry', { auth: 'required', params: JobRefInput, tag: jobs, summary: 'Retry a job (a new job)' },
    async (ctx, input) => created(await retryJob(ctx, input))),
  route('POST', '/projects/:id/jobs/:job_id/play', { auth: 'required', params: PlayJobInput, tag: jobs, summary: 'Run a manual job' },
    async (ctx, input) => ok(await playJob(ctx, input))),
  // GET …/jobs/:job_id/artifacts (the archive) lives with the other artifact routes in domains/artifacts.
  route('GET', '/job', { auth: 'required', jobToken: true, tag: jobs, summary: 'The job of the CI job token' },
    async (ctx) => ok(await currentJob(ctx))),

  // Runners: management
  route('POST', '/user/runners', { auth: 'required', scopes: ['api', 'create_runner'], params: CreateRunnerInput, tag: runners, summary: 'Create a runner (instance: admins; group: Owners; project: Maintainers)' },
    async (ctx, input) => created(await createUserRunner(ctx, input))),
  route('GET', '/runners/:id', { auth: 'required', params: RunnerRefInput, tag: runners, summary: 'Get a runner' },
    async (ctx, input) => ok(await getRunner(ctx, input))),
  route('GET', '/runners/:id/managers', { auth: 'required', params: RunnerRefInput, tag: runners, summary: "A runner's managers: each process with what it last reported" },
    async (ctx, input) => ok(await listRunnerManagers(ctx, input))),
  route('GET', '/projects/:id/runners', { auth: 'required', params: ListProjectRunnersInput, tag: runners, summary: 'Runners available to a project (Maintainers)' },
    async (ctx, input) => paged(await listProjectRunners(ctx, input))),

  // Runners: the runner protocol (runner and job tokens, no user credentials)
  route('POST', '/runners', { auth: 'none', params: RegisterRunnerInput, tag: runners, summary: "Register a runner with a project's registration token" },
    async (ctx, input) => created(await registerRunner(ctx, input))),
  route('DELETE', '/runners', { auth: 'none', params: RunnerTokenInput, tag: runners, summary: 'Unregister the runner of the token' },
    async (ctx, input) => {
      await unregisterRunner(ctx, input.token);
      return noContent();
    }),
  route('POST', '/runners/verify', { auth: 'none', params: VerifyRunnerInput, tag: runners, summary: 'Check a runner token' },
    async (ctx, input, req) => {
      await verifyRunner(ctx, input, req.ip);
      return text('200', 'text/plain');
    }),
  route('POST', '/jobs/request', { auth: 'none', params: RequestJobInput, tag: runners, summary: 'A runner asks for a job (201 with the job, 204 when none)' },
    async (ctx, input, req) => requestJob(ctx, input, req.ip)),
  route('PUT', '/jobs/:id', { auth: 'none', params: UpdateJobInput, tag: runners, summary: 'A runner reports the state of its job' },
    async (ctx, input, req) => updateJob(ctx, input, req)),
  route('PATCH', '/jobs/:id/trace', { auth: 'none', rawBody: true, params: JobTraceInput, tag: runners, summary: 'A runner appends to the log of its job (Content-Range)' },
    async (ctx, input, req) => patchTrace(ctx, input, req)),
];
