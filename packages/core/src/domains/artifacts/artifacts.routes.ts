import { accepted, attachment, noContent, ok, paged, route, stream, type Route } from '../../kernel/route.js';
import { ArtifactFileByRefInput, RunnerDownloadArtifactInput, UploadArtifactInput, ArtifactsByRefInput, ArtifactTreeInput, JobArtifactFileInput, JobArtifactsInput, ProjectArtifactsInput } from './artifacts.schema.js';
import { runnerDownloadArtifacts, uploadArtifacts } from './runner-artifacts.js';
import { deleteJobArtifacts, deleteProjectArtifacts, keepJobArtifacts } from './manage-artifacts.js';
import { artifactsByRef, downloadJobArtifactFile, downloadJobArtifacts, listArtifactTree, type ArtifactDownload, type ArtifactFile, type ByRefResult } from './read-artifacts.js';

/** An archive: application/octet-stream, attachment, streamed with its length. */
export const archiveReply = (file: ArtifactDownload) => attachment(file.body, file.size, file.filename);

const fileReply = (file: ArtifactFile) => stream(file.body, file.contentType, { size: file.size, headers: { 'Content-Disposition': file.disposition } });

/** A by-ref request is read again from its path (a ref may hold `raw` or end in `download`): the archive or one file. */
function byRefReply(result: ByRefResult): ReturnType<typeof archiveReply> | ReturnType<typeof fileReply> {
  return result.kind === 'download' ? archiveReply(result.file) : fileReply(result.file);
}

const tag = 'job_artifacts';

/** Reads accept CI job tokens (JOB-TOKEN header or `job_token` query), subject to the job token scope. */
export const artifactsRoutes: Route[] = [
  // The runner API's artifact endpoints.
  route('POST', '/jobs/:id/artifacts', { auth: 'none', params: UploadArtifactInput, tag: 'runners', summary: 'A runner uploads the artifacts of its job (multipart `file`)' },
    async (ctx, input, req) => uploadArtifacts(ctx, input, req.headers)),
  route('GET', '/jobs/:id/artifacts', { auth: 'none', params: RunnerDownloadArtifactInput, tag: 'runners', summary: 'A runner downloads the artifacts a job depends on' },
    async (ctx, input, req) => {
      const file = await runnerDownloadArtifacts(ctx, input, req.headers);
      return attachment(file.body, file.size, file.filename);
    }),
  route('GET', '/projects/:id/jobs/:job_id/artifacts', { auth: 'optional', jobToken: true, params: JobArtifactsInput, tag, summary: 'Download the artifacts archive of a job' },
    async (ctx, input) => archiveReply(await downloadJobArtifacts(ctx, input))),
  route('GET', '/projects/:id/jobs/:job_id/artifacts/tree', { auth: 'optional', jobToken: true, params: ArtifactTreeInput, tag, summary: 'List the files and directories of a job\'s archive (`path`, `recursive`)' },
    async (ctx, input) => paged(await listArtifactTree(ctx, input))),
  route('GET', '/projects/:id/jobs/:job_id/artifacts/*artifact_path', { auth: 'optional', jobToken: true, params: JobArtifactFileInput, tag, summary: 'Download one file of a job\'s archive' },
    async (ctx, input) => fileReply(await downloadJobArtifactFile(ctx, input))),
  route('GET', '/projects/:id/jobs/artifacts/*ref_name/download', { auth: 'optional', jobToken: true, params: ArtifactsByRefInput, tag, summary: 'The artifacts archive of a job (`job=`) in the latest successful pipeline of a ref' },
    async (ctx, input, req) => byRefReply(await artifactsByRef(ctx, input, req.path))),
  route('GET', '/projects/:id/jobs/artifacts/*ref_name/raw/*artifact_path', { auth: 'optional', jobToken: true, params: ArtifactFileByRefInput, tag, summary: 'One file of the artifacts of a job (`job=`) in the latest successful pipeline of a ref' },
    async (ctx, input, req) => byRefReply(await artifactsByRef(ctx, input, req.path))),
  route('POST', '/projects/:id/jobs/:job_id/artifacts/keep', { auth: 'required', params: JobArtifactsInput, tag, summary: 'Keep the artifacts of a job from expiring (Developer)' },
    async (ctx, input) => ok(await keepJobArtifacts(ctx, input))),
  route('DELETE', '/projects/:id/jobs/:job_id/artifacts', { auth: 'required', params: JobArtifactsInput, tag, summary: 'Delete the artifacts of a job, not its log (Maintainer)' },
    async (ctx, input) => {
      await deleteJobArtifacts(ctx, input);
      return noContent();
    }),
  route('DELETE', '/projects/:id/artifacts', { auth: 'required', params: ProjectArtifactsInput, tag, summary: 'Expire every deletable artifact of the project now; the worker removes them (Maintainer)' },
    async (ctx, input) => {
      await deleteProjectArtifacts(ctx, input);
      return accepted();
    }),
];
