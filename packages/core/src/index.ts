/** @forgelet/core: all domain logic behind injected storage, clock, blobs, secrets and egress. */
export { createForge, createUrlBuilder, DEFAULT_LIMITS, type Forge, type ForgeOptions } from './forge.js';
export { bootstrapRoot, ROOT_TOKEN_SCOPES, type BootstrapResult } from './bootstrap.js';
export { FORGELET_VERSION, GITLAB_COMPATIBLE_VERSION } from './version.js';

export { ControllableClock, fixedClock, systemClock, type Clock } from './kernel/clock.js';
export { ANONYMOUS, contextFor, type Actor, type Ctx, type Deps, type ForgeConfig, type UrlBuilder } from './kernel/context.js';
export { createEgress, EgressRefusedError, isNonPublicAddress, type Egress } from './kernel/egress.js';
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
export { createSecretBox, type SecretBox } from './kernel/secrets.js';
export { TIERS, type Tier } from './kernel/tiers.js';
export { digestToken, nextIid, randomToken } from './kernel/ids.js';
export { FsBlobStore, type BlobStore, type StoredBlob } from './storage/blobs.js';
export { dialectOf, openDatabase, type DatabaseHandle, type DialectName } from './storage/dialect.js';
export { Queue, type JobHandler } from './storage/queue.js';

export type * from './domains/accounts/index.js';
export type { Credentials } from './domains/accounts/index.js';
/** Use cases, for embedding: call them with `await forge.contextFor(username)`. */
export {
  listUsers, getUser, currentUser, createUser, updateUser, deleteUser,
  listGroups, listSubgroups, listDescendantGroups, getGroup, createGroup, updateGroup, deleteGroup,
  listProjects, listGroupProjects, getProject, createProject, updateProject, deleteProject,
  listMembers, listAllMembers, getMember, addMember, editMember, removeMember,
  createPersonalAccessToken, listPersonalAccessTokens, getPersonalAccessToken, revokePersonalAccessToken, rotatePersonalAccessToken,
  createResourceAccessToken, listResourceAccessTokens, getResourceAccessToken, revokeResourceAccessToken, rotateResourceAccessToken,
} from './domains/accounts/index.js';

export type * from './domains/award-emoji/index.js';
export { listAwardEmoji, getAwardEmoji, awardEmoji, removeAwardEmoji } from './domains/award-emoji/index.js';
export type * from './domains/state-events/index.js';
export { listStateEvents, getStateEvent } from './domains/state-events/index.js';
export type * from './domains/merge-requests/index.js';
export {
  createMergeRequest, getMergeRequest, updateMergeRequest, mergeMergeRequest, deleteMergeRequest,
  listMergeRequests, listGroupMergeRequests, listProjectMergeRequests,
} from './domains/merge-requests/index.js';
export type { NoteEntity, CreateNoteInput, ListNotesInput, NoteRefInput, UpdateNoteInput, NoteableType, NoteableSegment } from './domains/notes/index.js';
export type { SnippetEntity, SnippetFileEntity, CreateSnippetInput, ListSnippetsInput, SnippetRefInput, UpdateSnippetInput, SnippetVisibility } from './domains/snippets/index.js';
export { listNotes, getNote, createNote, updateNote, deleteNote, insertSystemNote } from './domains/notes/index.js';
export { listSnippets, getSnippet, getSnippetContent, createSnippet, updateSnippet, deleteSnippet } from './domains/snippets/index.js';
export type * from './domains/issues/index.js';
export { listIssues, listGroupIssues, listProjectIssues, getIssue, createIssue, updateIssue, deleteIssue } from './domains/issues/index.js';
export type * from './domains/milestones/index.js';
export {
  listGroupMilestones, listProjectMilestones, createMilestone, getMilestone, updateMilestone, deleteMilestone,
  listIssuesOfMilestone, listMergeRequestsOfMilestone, listBurndownEvents,
} from './domains/milestones/index.js';
export type * from './domains/epics/index.js';
export {
  listEpics, getEpic, createEpic, updateEpic, deleteEpic,
  listChildEpics, assignChildEpic, createChildEpic, reorderChildEpic, unassignChildEpic,
} from './domains/epics/index.js';
export { listEpicStateEvents, getEpicStateEvent } from './domains/state-events/index.js';
export type * from './domains/iterations/index.js';
export {
  listGroupIterations, listIterationCadences, getIterationCadence, createIterationCadence, updateIterationCadence, deleteIterationCadence,
  createIteration, registerIterationJobs, scheduleCadenceIterations, ITERATION_STATE,
} from './domains/iterations/index.js';
export type * from './domains/labels/index.js';
export { listGroupLabels, listProjectLabels, getGroupLabel, getProjectLabel, createLabel, updateLabel, deleteLabel, setLabelSubscription } from './domains/labels/index.js';

// repository
export {
  recordCommit,
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

// job token scope and instance settings
export { jobTokenAllowed, type JobTokenScopeEntity } from './domains/job-token-scope/index.js';
export { applicationSetting, readApplicationSettings, type ApplicationSettings } from './domains/application-settings/application-settings.js';
