/** Job artifacts: archives, single files and trees read from the upload's index; keep, delete, expiry. */
export { artifactsRoutes } from './artifacts.routes.js';
export { downloadJobArtifacts, downloadJobArtifactFile, artifactsByRef, listArtifactTree, checkArtifactPath, refReadings, type ArtifactDownload, type ArtifactFile, type ByRefResult } from './read-artifacts.js';
export { keepJobArtifacts, deleteJobArtifacts, deleteProjectArtifacts, type KeptJobEntity } from './manage-artifacts.js';
export { registerArtifactJobs, destroyExpiredArtifacts, scheduleArtifactExpiry, EXPIRE_JOB as ARTIFACTS_EXPIRE_JOB, LOCK_RECHECK_MS } from './expiry.js';
export { availableArchive, latestBuildWithArtifacts } from './artifact-access.js';
export { contentTypeByExtension, detectedContentType } from './content-type.js';
export { readZipIndex, openZipEntry, ZipRejectedError, type ZipEntryInfo } from './zip.js';
export type { ArtifactTreeEntryEntity } from './artifact.entity.js';
export type { JobArtifactsInput, JobArtifactFileInput, ArtifactTreeInput, ArtifactsByRefInput, ArtifactFileByRefInput, ProjectArtifactsInput } from './artifacts.schema.js';
// for other domains
export { checkZipArchive, insertArchiveIndex } from './archive-index.js';
