/** @forgelet/core: all domain logic behind injected storage, clock, blobs, secrets and egress. */
export { createForge, createUrlBuilder, DEFAULT_LIMITS, type Forge, type ForgeOptions } from './forge.js';
export { bootstrapRoot, ROOT_TOKEN_SCOPES, projectRunnersToken, type BootstrapResult } from './domains/accounts/index.js';
export {
  checkSecretKey, rotateSecrets, sealedKeyIds, SecretKeyMismatchError,
  type RotationColumnReport, type RotationOptions, type RotationReport,
} from './secret-keys.js';
export { FORGELET_VERSION, GITLAB_COMPATIBLE_VERSION } from './kernel/version.js';

export { ControllableClock, fixedClock, systemClock, type Clock } from './kernel/clock.js';
export { ANONYMOUS, contextFor, type Actor, type Ctx, type Deps, type ForgeConfig, type UrlBuilder } from './access/context.js';
export { classifyAddress, createEgress, egressRefusal, EgressRefusedError, isNonPublicAddress, parseAddress, formatAddress, type Egress, type EgressOptions, type NonPublicKind, type ResolvedAddress } from './kernel/egress.js';
export {
  BadRequestError,
  ConflictError,
  DomainError,
  ForbiddenError,
  InsufficientScopeError,
  InvalidTokenError,
  isDomainError,
  MethodNotAllowedError,
  MovedError,
  NotFoundError,
  NotModifiedError,
  PreconditionError,
  RateLimitedError,
  STATUS_BY_CODE,
  TooLargeError,
  UnauthorizedError,
  UnavailableError,
  UnprocessableError,
  ValidationError,
  type ErrorCode,
} from './kernel/errors.js';
export { clampPerPage, COUNT_LIMIT, MAX_PER_PAGE, type Page } from './kernel/pagination.js';
export { p, params, parseBoolean, parseParams, RepeatedValues, type Field, type Infer, type InferShape, type JsonSchema, type ObjectField, type UploadedFile } from './kernel/params.js';
export type { AuthMode, Method, Reply, Route, RouteRequest } from './kernel/route.js';
export { buildOpenApi, type OpenApiOptions, type ResponseDecl, type ResponseTable } from './kernel/openapi.js';
export { createSecretBox, secretKeyId, staticKeys, type KeySource, type SecretBox } from './kernel/secrets.js';
export { TIERS, type Tier } from './kernel/tiers.js';
export { buildGraphqlSchema, gql, orNull, parseGlobalId, toGlobalId, RESOURCE_NOT_AVAILABLE, type GraphqlBuilder, type GraphqlModule, type GqlContext, type GqlField, type GqlFields, type MutationDecl } from './kernel/graphql.js';
export { connectionArgs, encodeCursor, GRAPHQL_MAX_PAGE_SIZE, resolveConnection, type Connection, type ConnectionArgs } from './kernel/graphql-connection.js';
export { executeGraphqlRequest, GRAPHQL_LIMITS, MAX_QUERY_SIZE, type GraphqlAnswer, type GraphqlLimits } from './kernel/graphql-execute.js';
export { digestToken, nextIid, randomToken } from './kernel/ids.js';
export { FsBlobStore, measure, type BlobData, type BlobStore, type PutOptions, type StoredBlob } from './storage/blobs.js';
export { matchGitHttpPath, type GitHttpAnswer, type GitHttpRequest } from './domains/git-http/index.js';
export { GitCommandError, GitRepositories, runGit, spawnGit, type GitResult, type GitRunOptions } from './storage/git.js';
export { BlobStoreConfigError, PgBlobStore } from './storage/pg-blobs.js';
export { dialectOf, openDatabase, type DatabaseHandle, type DialectName } from './storage/dialect.js';
export { Queue, LEASE_MS, type JobHandler } from './storage/queue.js';
export { SEALED_COLUMNS, type SealedColumn } from './storage/sealed-columns.js';
export { withStartupLock } from './storage/startup-lock.js';
export { migrateToLatest } from './storage/migrations/index.js';
export { changeGeneration, currentChangeGeneration, expireReadCache, readCacheOf, ReadCache } from './storage/read-cache.js';
export { SnapshotStore, SNAPSHOT_NAME, type SnapshotInfo } from './storage/snapshots.js';
// test harness (issue 16): controllable time, snapshots, reset, seeding
export {
  advanceClock, clockState, setClock, createSnapshot, deleteSnapshot, listSnapshots, resetState, restoreSnapshot,
  parseSeedText, seedWorld, createTestHarnessRoutes,
  type AdvanceEntity, type ClockEntity, type SnapshotEntity, type SeedResult, type SeededItem,
} from './test-harness/index.js';

export type * from './domains/accounts/index.js';
export type { Credentials } from './domains/accounts/index.js';
/** Use cases, for embedding: call them with `await forge.contextFor(username)`. */
export {
  listUsers, getUser, currentUser, createUser, updateUser, deleteUser,
  listGroups, listSubgroups, listDescendantGroups, getGroup, createGroup, updateGroup, deleteGroup,
  listProjects, listGroupProjects, getProject, createProject, updateProject, deleteProject, listProjectUsers,
  listMembers, listAllMembers, getMember, addMember, editMember, removeMember,
  createPersonalAccessToken, listPersonalAccessTokens, getPersonalAccessToken, revokePersonalAccessToken, rotatePersonalAccessToken,
  createResourceAccessToken, listResourceAccessTokens, getResourceAccessToken, revokeResourceAccessToken, rotateResourceAccessToken,
} from './domains/accounts/index.js';

export type * from './domains/award-emoji/index.js';
export { listAwardEmoji, getAwardEmoji, awardEmoji, removeAwardEmoji } from './domains/award-emoji/index.js';
export type * from './domains/state-events/index.js';
export { listIssueStateEvents, getIssueStateEvent } from './domains/issues/index.js';
export { listMergeRequestStateEvents, getMergeRequestStateEvent } from './domains/merge-requests/index.js';
export type * from './domains/merge-requests/index.js';
export {
  createMergeRequest, getMergeRequest, updateMergeRequest, mergeMergeRequest, deleteMergeRequest,
  listMergeRequests, listGroupMergeRequests, listProjectMergeRequests, listMergeRequestsOfMilestone,
} from './domains/merge-requests/index.js';
export type { NoteEntity, CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput, NoteableType, NoteableSegment } from './domains/notes/index.js';
export type { SnippetEntity, SnippetFileEntity, CreateSnippetInput, ListSnippetsInput, SnippetRefInput, UpdateSnippetInput, SnippetVisibility } from './domains/snippets/index.js';
export { listNotes, getNote, createNote, updateNote, deleteNote, insertSystemNote } from './domains/notes/index.js';
export { listSnippets, getSnippet, getSnippetContent, createSnippet, updateSnippet, deleteSnippet } from './domains/snippets/index.js';
export type * from './domains/issues/index.js';
export {
  listIssues, listGroupIssues, listProjectIssues, getIssue, createIssue, updateIssue, deleteIssue, listIssuesOfMilestone, listBurndownEvents,
} from './domains/issues/index.js';
export type * from './domains/webhooks/index.js';
export type * from './domains/milestones/index.js';
export {
  listGroupMilestones, listProjectMilestones, createMilestone, getMilestone, updateMilestone, deleteMilestone,
} from './domains/milestones/index.js';
export type * from './domains/epics/index.js';
export {
  listEpics, getEpic, createEpic, updateEpic, deleteEpic,
  listChildEpics, assignChildEpic, createChildEpic, reorderChildEpic, unassignChildEpic,
  listEpicIssues, assignEpicIssue, reorderEpicIssue, removeEpicIssue,
} from './domains/epics/index.js';
export { listEpicStateEvents, getEpicStateEvent } from './domains/epics/index.js';
export type * from './domains/iterations/index.js';
export {
  listGroupIterations, listIterationCadences, getIterationCadence, createIterationCadence, updateIterationCadence, deleteIterationCadence,
  createIteration, registerIterationJobs, scheduleCadenceIterations, ITERATION_STATE,
} from './domains/iterations/index.js';
export type * from './domains/pipeline-schedules/index.js';
export {
  listPipelineSchedules, getPipelineSchedule, createPipelineSchedule, updatePipelineSchedule, takePipelineScheduleOwnership,
  deletePipelineSchedule, playPipelineSchedule, listSchedulePipelines,
  createScheduleVariable, getScheduleVariable, updateScheduleVariable, deleteScheduleVariable,
  registerPipelineScheduleJobs, fireDueSchedule, nextRunAt, isValidCron, resolveTimeZone, SCHEDULE_TIMINGS, GITLAB_WORKER_CRON,
} from './domains/pipeline-schedules/index.js';
export type * from './domains/releases/index.js';
export {
  listReleases, getRelease, createRelease, updateRelease, deleteRelease, latestReleaseRedirect, downloadReleaseAsset,
  listReleaseLinks, getReleaseLink, createReleaseLink, updateReleaseLink, deleteReleaseLink, listGroupReleases, LINK_TYPES,
} from './domains/releases/index.js';
export type * from './domains/ci-variables/index.js';
export {
  listProjectVariables, getProjectVariable, createProjectVariable, updateProjectVariable, deleteProjectVariable,
  listGroupVariables, getGroupVariable, createGroupVariable, updateGroupVariable, deleteGroupVariable,
  listInstanceVariables, getInstanceVariable, createInstanceVariable, updateInstanceVariable, deleteInstanceVariable,
  variablesForJob, maskLog, maskable, scopeMatches,
} from './domains/ci-variables/index.js';
export type * from './domains/protected-branches/index.js';
export {
  listProtectedBranches, getProtectedBranch, createProtectedBranch, updateProtectedBranch, deleteProtectedBranch, HUMAN_ACCESS_LEVELS,
  listProtectedTags, getProtectedTag, createProtectedTag, deleteProtectedTag,
} from './domains/protected-branches/index.js';
export type * from './domains/approvals/index.js';
export {
  getApprovalSettings, updateApprovalSettings, listProjectRules, getProjectRule, createProjectRule, updateProjectRule, deleteProjectRule,
  listMergeRequestRules, getMergeRequestRule, createMergeRequestRule, updateMergeRequestRule, deleteMergeRequestRule,
  getApprovals, getApprovalState, approveMergeRequest, unapproveMergeRequest, resetApprovals, onMergeRequestHeadsMoved, APPROVALS_SYNC_JOB,
} from './domains/approvals/index.js';
export type * from './domains/labels/index.js';
export { listGroupLabels, listProjectLabels, getGroupLabel, getProjectLabel, createLabel, updateLabel, deleteLabel, setLabelSubscription } from './domains/labels/index.js';

// repository
export {
  recordCommit,
  applyPushedRefUpdates,
  replayPendingRepositories,
  repositoryTransaction,
  resolveRevision,
  readFileAtRevision,
  canOnBranch,
  presentCommit,
  type CommitAction,
  type CommitInput,
  type RecordedCommit,
  type CommitEntity,
  type CommitDetailEntity,
} from './domains/repository/index.js';
export {
  repositoryRoutes,
  listBranches, getBranch, createBranch, deleteBranch, deleteMergedBranches,
  listTags, getTag, createTag, deleteTag,
  listCommits, getCommit, listCommitRefs, createCommit,
  getFile, getRawFile, writeFile, listTree,
  type BranchEntity, type TagEntity, type CommitWithStatsEntity, type CommitStats, type CommitRefEntity,
  type FileEntity, type FileMetadata, type FileCommitEntity, type TreeEntryEntity,
  type ListBranchesInput, type CreateBranchInput, type ListTagsInput, type CreateTagInput,
  type ListCommitsInput, type GetCommitInput, type CommitRefsInput, type CreateCommitInput,
  type GetFileInput, type RawFileInput, type WriteFileInput, type DeleteFileInput, type ListTreeInput,
  type DiffEntity, type CompareEntity, type ContributorEntity, type BlameRangeEntity, type BlobEntity,
  type CommitDiffInput, type CompareInput, type ContributorsInput, type ArchiveInput, type BlameInput,
} from './domains/repository/index.js';

// custom member roles (the flag → ability table lives in the policy)
export {
  memberRolesRoutes, listInstanceRoles, createInstanceRole, updateInstanceRole, deleteInstanceRole,
  listGroupRoles, createGroupRole, updateGroupRole, deleteGroupRole, toMemberRoleEntity, ROLE_BASE_LEVELS, MAX_ROLES_PER_GROUP,
  type MemberRoleEntity, type CreateRoleInput, type UpdateRoleInput,
} from './domains/member-roles/index.js';
export { CUSTOM_ROLE_ABILITIES, CUSTOM_PERMISSIONS, type CustomPermission } from './access/policy.js';

// job token scope and instance settings
export { type JobTokenScopeEntity } from './domains/job-token-scope/index.js';
export { jobTokenAllowed } from './access/job-token-scope.js';
export { CONSOLE_SESSION_TTL_MS, type ConsoleSession, type SessionCredentials } from './access/console-sessions.js';
export { applicationSetting, readApplicationSettings, type ApplicationSettings } from './access/application-settings.js';

// error tracking
export type * from './domains/error-tracking/index.js';
export {
  errorTrackingRoutes, registerErrorTrackingJobs, purgeErrorTracking, ingestBufferOf, closeIngestBuffer, IngestBuffer, DEFAULT_BUFFER_OPTIONS, normalizeEvent, parseEnvelope, writeBatch,
  getErrorTrackingSettings, patchErrorTrackingSettings, putErrorTrackingSettings, listClientKeys, createClientKey, deleteClientKey, sentryDsn,
  listErrors, getError, getErrorFrequency, listErrorEvents, updateError, createIssueForError, listSessions, formatStackTrace, RETENTION_DAYS, PURGE_JOB,
} from './domains/error-tracking/index.js';

// CI: pipelines, jobs, runners
export type * from './domains/ci/index.js';
export type { RequestJobInput, UpdateJobInput } from './domains/ci/index.js';
export {
  createPipeline, presentPipeline, presentPipelineBasic, parseCiConfig, parseDuration, processPipeline, resolveJobToken,
  listPipelines, getPipeline, getLatestPipeline, createPipelineFromApi, cancelPipeline, retryPipeline, deletePipeline, listPipelineVariables, listPipelineJobs,
  listProjectJobs, getJob, cancelJob, retryJob, playJob, getJobTrace, currentJob,
  createUserRunner, registerRunner, verifyRunner, unregisterRunner, getRunner, listRunnerManagers, listProjectRunners,
} from './domains/ci/index.js';

// job artifacts: archive, single files and tree reads, keep, delete, expiry in the worker
export type * from './domains/artifacts/index.js';
export {
  artifactsRoutes, downloadJobArtifacts, downloadJobArtifactFile, artifactsByRef, listArtifactTree, keepJobArtifacts, deleteJobArtifacts, deleteProjectArtifacts,
  registerArtifactJobs, destroyExpiredArtifacts, ARTIFACTS_EXPIRE_JOB, availableArchive, latestBuildWithArtifacts, contentTypeByExtension, detectedContentType,
} from './domains/artifacts/index.js';

// package feed (NuGet; the spec's pkgfeed) and the generic package API
export type * from './domains/packages/index.js';
export {
  packagesRoutes, listProjectPackages, listGroupPackages, getProjectPackage, deleteProjectPackage, listPackageFiles,
  getPackageSettings, updatePackageSettings, normalizeVersion, formatVersion, versionSortKey, compareVersions, isValidVersion, isValidPackageName,
  parseNuspec, pdbIdentity, PACKAGE_TYPES, PACKAGE_STATUSES,
} from './domains/packages/index.js';

// delivery: environments, deployments (with approvals), group protected environments, DORA metrics
export type * from './domains/delivery/index.js';
export {
  deliveryRoutes, registerDelivery, syncJobDeployments, refreshDoraDay, refreshIncidentMetrics, doraMetrics,
  listEnvironments, getEnvironment, createEnvironment, updateEnvironment, deleteEnvironment, stopEnvironment, guessTier, environmentSlug,
  listDeployments, getDeployment, createDeployment, updateDeployment, deleteDeployment, listDeploymentMergeRequests, approveDeployment,
  listGroupProtectedEnvironments, getGroupProtectedEnvironment, protectGroupEnvironment, updateGroupProtectedEnvironment, unprotectGroupEnvironment,
  ENVIRONMENT_TIERS, DEPLOYMENT_STATUSES, DORA_METRICS, DORA_INTERVALS,
} from './domains/delivery/index.js';

// agent flows (GitLab's Duo Workflows): flows, checkpoints, trace, CI workloads, callbacks
export * from './domains/flows/index.js';
// the AI catalog (GitLab's Ai::Catalog): items, versions, consumers; GraphQL's aiCatalog* fields
export * from './domains/ai-catalog/index.js';
export { createWorkloadIn, type WorkloadInput } from './domains/ci/index.js';

// direct transfer migration (bulk imports): API, engine, relation exports
export * from './domains/bulk-imports/index.js';

export type { FaultEntity, FaultSpec } from './test-harness/fault.types.js';
