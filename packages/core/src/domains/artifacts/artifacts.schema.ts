/** Parameters of the job artifacts endpoints, as GitLab's lib/api/ci/job_artifacts.rb declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';

/** Declared for the API description; the server takes the credential itself from the query. */
const jobToken = { job_token: p.string().optional().describe('CI/CD job token (the JOB-TOKEN header works too)') };

export const JobArtifactsInput = params({ id: p.string(), job_id: p.integer(), ...jobToken });
export type JobArtifactsInput = InferShape<typeof JobArtifactsInput.shape>;

export const JobArtifactFileInput = params({ id: p.string(), job_id: p.integer(), artifact_path: p.string(), ...jobToken });
export type JobArtifactFileInput = InferShape<typeof JobArtifactFileInput.shape>;

export const ArtifactTreeInput = params({
  id: p.string(),
  job_id: p.integer(),
  path: p.string().default('').describe('Directory to list (default: the root)'),
  recursive: p.boolean().default(false),
  ...jobToken,
  ...paginationParams,
});
export type ArtifactTreeInput = InferShape<typeof ArtifactTreeInput.shape>;

const byRef = {
  id: p.string(),
  ref_name: p.string().describe('Branch or tag (`refs/merge-requests/:iid/head` for merge request pipelines); may hold `/`, raw or %2F-encoded.'),
  job: p.string().describe('Name of the job.'),
  search_recent_successful_pipelines: p.boolean().default(false).describe('Look in the recent successful pipelines of the ref, not only the latest.'),
  ...jobToken,
};

/**
 * `GET /projects/:id/jobs/artifacts/:ref_name/download` and `…/:ref_name/raw/*artifact_path`:
 * the ref and the path may hold slashes (raw or %2F-encoded), and a ref may itself hold `raw`
 * or end in `download`, so the handler reads the request path again and picks the reading whose
 * ref has pipelines (read-artifacts.ts, refReadings).
 */
export const ArtifactsByRefInput = params(byRef);
export type ArtifactsByRefInput = InferShape<typeof ArtifactsByRefInput.shape>;

export const ArtifactFileByRefInput = params({ ...byRef, artifact_path: p.string().describe('Path of the file inside the archive.') });
export type ArtifactFileByRefInput = InferShape<typeof ArtifactFileByRefInput.shape>;

export const ProjectArtifactsInput = params({ id: p.string() });
export type ProjectArtifactsInput = InferShape<typeof ProjectArtifactsInput.shape>;

/** The runner API's artifact endpoints (a job's token in `token` or the JOB-TOKEN header). */
export const UploadArtifactInput = params({
  id: p.integer(),
  token: p.string().optional(),
  file: p.file(),
  expire_in: p.string().optional(),
  artifact_type: p.string().default('archive'),
  artifact_format: p.enum(['raw', 'zip', 'gzip']).default('zip'),
  metadata: p.file().optional(),
});
export type UploadArtifactInput = InferShape<typeof UploadArtifactInput.shape>;

export const RunnerDownloadArtifactInput = params({ id: p.integer(), token: p.string().optional(), direct_download: p.boolean().default(false) });
export type RunnerDownloadArtifactInput = InferShape<typeof RunnerDownloadArtifactInput.shape>;
