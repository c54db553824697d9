/** @forgelet/client: a typed SDK for Forgelet's GitLab-compatible REST API, on undici. */
export { Forgelet, type ForgeletOptions, type VersionInfo } from './forgelet.js';
export { TestHarness, type FaultEntity, type FaultParams } from './resources/test-harness.js';
export type { AdvanceEntity, ClockEntity, SeedResult, SeededItem, SnapshotEntity } from '@forgelet/core';
export { graphqlUrl, type GraphqlDocument, type GraphqlError, type GraphqlOptions, type GraphqlResponse } from './infrastructure/graphql.js';
export { ApiError, type ApiErrorBody, type ApiErrorCause } from './infrastructure/api-error.js';
export type { MultipartBody, MultipartFile, UploadSource } from './infrastructure/multipart.js';
export { endpoint } from './infrastructure/endpoint.js';
export { Paginated, type Page, type PaginationInfo } from './infrastructure/paginated.js';
export type { AtLeastOne, ExactlyOne, ListParams, PaginationParams, ResourceId, WithOptional } from './infrastructure/params.js';
export { Requester, type ApiResponse, type FetchInit, type FetchLike, type FetchResponse, type RequesterOptions } from './infrastructure/requester.js';
export { parseRetryAfter, retryDelay, type BytesResponse, type RequestOptions, type StreamResponse } from './infrastructure/requester.js';
export {
  RunnerJobs,
  traceLength,
  type JobReportAnswer,
  type JobRequestAnswer,
  type RequestJobParams,
  type RunnerCallOptions,
  type TraceAppendAnswer,
  type UpdateJobParams,
  type UploadJobArtifactsParams,
} from './resources/runner-jobs.js';
// The runner job payload (`POST /jobs/request`), declared once in core.
export type {
  JobPayload,
  JobPayloadArtifacts,
  JobPayloadCache,
  JobPayloadCredentials,
  JobPayloadDependency,
  JobPayloadGitInfo,
  JobPayloadImage,
  JobPayloadJobInfo,
  JobPayloadPort,
  JobPayloadRunnerInfo,
  JobPayloadService,
  JobPayloadStep,
  JobPayloadVariable,
  RunnerInfoInput,
} from '@forgelet/core';
export {
  GroupRelationExports,
  ProjectRelationExports,
  type DownloadRelationParams,
  type GroupExportRelation,
  type ProjectExportRelation,
  type RelationExportStatus,
} from './resources/relation-exports.js';

export { Namespaces, type ListNamespacesParams } from './resources/namespaces.js';
export { UserImpersonationTokens, type CreateImpersonationTokenParams, type ListImpersonationTokensParams } from './resources/impersonation-tokens.js';
export {
  DeployTokens,
  GroupDeployTokens,
  ProjectDeployTokens,
  ResourceDeployTokens,
  type CreateDeployTokenParams,
  type ListDeployTokensParams,
} from './resources/deploy-tokens.js';
export { Users, type AnyUserEntity, type CreateUserParams, type EditUserParams, type ListUsersParams } from './resources/users.js';
export {
  Groups,
  type CreateGroupParams,
  type EditGroupParams,
  type ListGroupProjectsParams,
  type ListGroupsParams,
  type ListSubgroupsParams,
} from './resources/groups.js';
export { Projects, type CreateProjectParams, type EditProjectParams, type ListProjectsParams } from './resources/projects.js';
export { ResourceMembers, type AddMemberParams, type EditMemberParams, type ListMembersParams } from './templates/resource-members.js';
export { ProjectMembers } from './resources/project-members.js';
export { GroupMembers } from './resources/group-members.js';
export { MemberRoles, GroupMemberRoles, type CreateMemberRoleParams, type EditMemberRoleParams } from './resources/member-roles.js';
export type { MemberRoleEntity } from '@forgelet/core';
export {
  PersonalAccessTokens,
  type CreatePersonalAccessTokenParams,
  type ListPersonalAccessTokensParams,
  type RotatePersonalAccessTokenParams,
} from './resources/personal-access-tokens.js';
export {
  ResourceAccessTokens,
  type CreateAccessTokenParams,
  type ListAccessTokensParams,
  type RotateAccessTokenParams,
} from './templates/resource-access-tokens.js';
export { ProjectAccessTokens } from './resources/project-access-tokens.js';
export { GroupAccessTokens } from './resources/group-access-tokens.js';
export { Issues, type CreateIssueParams, type EditIssueParams, type IssueListParams, type ListAccessibleIssuesParams, type ListProjectIssuesParams } from './resources/issues.js';
export { GroupIssues, type ListGroupIssuesParams } from './resources/group-issues.js';
export { ResourceMilestones, type CreateMilestoneParams, type EditMilestoneParams, type ListGroupMilestonesParams, type ListProjectMilestonesParams } from './templates/resource-milestones.js';
export { GroupMilestones } from './resources/group-milestones.js';
export { ProjectMilestones } from './resources/project-milestones.js';
export { BulkImports, type BulkImportEntityParams, type BulkImportFailureRecord, type BulkImportSourceConfig, type ListBulkImportsParams } from './resources/bulk-imports.js';
export { RepositoryBranches, type ListBranchesParams } from './resources/repository-branches.js';
export { RepositoryTags, type ListTagsParams, type CreateTagParams } from './resources/repository-tags.js';
export { Commits, type ListCommitsParams, type CommitActionParams, type CreateCommitParams, type ListCommitRefsParams, type ShowCommitDiffParams, type ListCommitMergeRequestsParams } from './resources/commits.js';
export { RepositoryFiles, type WriteFileParams, type RemoveFileParams } from './resources/repository-files.js';
export { RepositoryTree, type ListTreeParams } from './resources/repository-tree.js';
export { Repositories, type CompareParams, type ListContributorsParams, type ArchiveParams } from './resources/repositories.js';
export type {
  BranchEntity,
  TagEntity,
  CommitEntity,
  CommitDetailEntity,
  CommitWithStatsEntity,
  CommitStats,
  CommitRefEntity,
  FileEntity,
  FileCommitEntity,
  TreeEntryEntity,
} from '@forgelet/core';
export {
  MergeRequests,
  type CreateMergeRequestParams,
  type EditMergeRequestParams,
  type ListGroupMergeRequestsParams,
  type ListMergeRequestsParams,
  type ListProjectMergeRequestsParams,
  type MergeMergeRequestParams,
  type ShowMergeRequestParams,
  type RebaseMergeRequestParams,
} from './resources/merge-requests.js';
export { ResourceNotes, IssueNotes, MergeRequestNotes, ProjectSnippetNotes, type CreateNoteParams, type EditNoteParams, type ListNotesParams } from './resources/notes.js';
export { ProjectSnippets, type CreateSnippetParams, type EditSnippetParams, type ListSnippetsParams } from './resources/snippets.js';
export { ResourceAwardEmoji, ResourceNoteAwardEmoji, type AwardableSegment, type ListAwardEmojiParams } from './templates/resource-award-emoji.js';
export {
  IssueAwardEmoji,
  IssueNoteAwardEmoji,
  MergeRequestAwardEmoji,
  MergeRequestNoteAwardEmoji,
  SnippetAwardEmoji,
  SnippetNoteAwardEmoji,
} from './resources/award-emoji.js';
export { ResourceStateEvents, type ListStateEventsParams } from './templates/resource-state-events.js';
export { IssueStateEvents, MergeRequestStateEvents, EpicStateEvents } from './resources/state-events.js';
export { GroupIterations, type CreateIterationParams, type ListGroupIterationsParams } from './resources/group-iterations.js';
export { IterationCadences, type CreateIterationCadenceParams, type EditIterationCadenceParams, type ListIterationCadencesParams } from './resources/iteration-cadences.js';
export { ResourceLabels, type CreateLabelParams, type EditLabelParams } from './templates/resource-labels.js';
export { GroupLabels, type ListGroupLabelsParams, type ShowGroupLabelParams } from './resources/group-labels.js';
export { ProjectLabels, type ListProjectLabelsParams, type ShowProjectLabelParams } from './resources/project-labels.js';
export { Epics, type ListEpicsParams, type CreateEpicParams, type EditEpicParams } from './resources/epics.js';
export { EpicLinks, type CreateChildEpicParams, type ReorderChildEpicParams } from './resources/epic-links.js';
export { EpicIssues, type EditEpicIssueParams, type ListEpicIssuesParams } from './resources/epic-issues.js';
export { Releases, type CreateReleaseParams, type EditReleaseParams, type ListReleasesParams, type ShowReleaseParams } from './resources/releases.js';
export { ReleaseLinks, type CreateReleaseLinkParams, type EditReleaseLinkParams } from './resources/release-links.js';
export { GroupReleases, type ListGroupReleasesParams } from './resources/group-releases.js';
export { ResourceVariables, type CreateVariableParams, type EditVariableParams, type VariableFilter } from './templates/resource-variables.js';
export { ProjectVariables } from './resources/project-variables.js';
export { GroupVariables } from './resources/group-variables.js';
export { InstanceVariables, type CreateInstanceVariableParams, type EditInstanceVariableParams } from './resources/instance-variables.js';
export { ProtectedBranches, type EditProtectedBranchParams, type ListProtectedBranchesParams, type ProtectBranchParams } from './resources/protected-branches.js';
export { ProtectedTags, type ListProtectedTagsParams, type ProtectTagParams } from './resources/protected-tags.js';

// The wire shapes, from the core contract.
export type {
  AwardEmojiEntity,
  AwardableType,
  IssueEntity,
  MilestoneEntity,
  LabelEntity,
  ProjectLabelEntity,
  BurndownEventEntity,
  MergeRequestDetailEntity,
  MergeRequestEntity,
  MergeRequestReferences,
  NoteEntity,
  SnippetEntity,
  SnippetFileEntity,
  ResourceStateEventEntity,
  StateEventResourceType,
  GroupEntity,
  MemberEntity,
  NamespaceEntity,
  PersonalAccessTokenEntity,
  ProjectEntity,
  ProjectSimpleEntity,
  ResourceAccessTokenEntity,
  UserBasicEntity,
  UserDetailEntity,
  UserEntity,
} from '@forgelet/core';
export { JobTokenScopes, type JobTokenProjectLink, type JobTokenGroupLink, type JobTokenAllowlistedGroup } from './resources/job-token-scope.js';
export { ApplicationSettingsResource } from './resources/application-settings.js';
export { ErrorTrackingSettings, ErrorTrackingClientKeys, ErrorTrackingErrors, type ListErrorsParams, type ListErrorSessionsParams } from './resources/error-tracking.js';
export {
  Packages,
  NugetFeed,
  type ListPackagesParams,
  type ListGroupPackagesParams,
  type ListPackageFilesParams,
  type EditPackageSettingsParams,
  type FeedSearchParams,
  type NugetUploadParams,
  type NugetUploadResult,
  type NugetV2QueryParams,
} from './resources/packages.js';
export type {
  PackageEntity,
  PackageDetailsEntity,
  PackageVersionEntity,
  PackageFileEntity,
  PackageSettingsEntity,
  ServiceIndexEntity,
  SearchResultEntity,
  RegistrationIndexEntity,
  VersionMetadataEntity,
  PackageVersionsEntity,
} from '@forgelet/core';
export type {
  ClientKeyEntity,
  ErrorStatus,
  ErrorTrackingErrorEntity,
  ErrorTrackingEventEntity,
  ErrorTrackingSessionEntity,
  ErrorTrackingSettingEntity,
  StackFrame,
  EventUser,
} from '@forgelet/core';
export { Pipelines, type ListPipelinesParams, type CreatePipelineParams, type ListPipelineJobsParams } from './resources/pipelines.js';
export { Jobs, type ListJobsParams, type PlayJobParams } from './resources/jobs.js';
export { Runners, type CreateRunnerParams, type RegisterRunnerParams, type ListProjectRunnersParams } from './resources/runners.js';
export { JobArtifacts, type ArtifactTreeParams, type ByRefParams, type ArtifactBytes, type ArtifactStream } from './resources/job-artifacts.js';
export type { ArtifactTreeEntryEntity, KeptJobEntity } from '@forgelet/core';
export type {
  PipelineEntity,
  PipelineBasicEntity,
  PipelineListEntity,
  PipelineVariableEntity,
  DetailedStatusEntity,
  JobEntity,
  JobArtifactEntity,
  RunnerEntity,
  RunnerDetailsEntity,
  RunnerRegistrationEntity,
} from '@forgelet/core';
export {
  PipelineSchedules,
  PipelineScheduleVariables,
  type CreatePipelineScheduleParams,
  type CreateScheduleVariableParams,
  type EditPipelineScheduleParams,
  type EditScheduleVariableParams,
  type ListPipelineSchedulesParams,
  type ListSchedulePipelinesParams,
} from './resources/pipeline-schedules.js';
export {
  MergeRequestApprovals,
  type ApproveParams,
  type CreateMergeRequestApprovalRuleParams,
  type EditApprovalConfigurationParams,
  type EditMergeRequestApprovalRuleParams,
  type ListMergeRequestApprovalRulesParams,
} from './resources/merge-request-approvals.js';
export {
  ProjectApprovalRules,
  type CreateProjectApprovalRuleParams,
  type EditProjectApprovalRuleParams,
  type ListProjectApprovalRulesParams,
} from './resources/project-approval-rules.js';
export { Environments, type CreateEnvironmentParams, type EditEnvironmentParams, type ListEnvironmentsParams } from './resources/environments.js';
export {
  Deployments,
  type CreateDeploymentParams,
  type DeploymentApprovalParams,
  type DeploymentMergeRequestsParams,
  type DeploymentStatusParam,
  type ListDeploymentsParams,
} from './resources/deployments.js';
export {
  GroupProtectedEnvironments,
  type ApprovalRuleEntry,
  type EditGroupProtectedEnvironmentParams,
  type ListGroupProtectedEnvironmentsParams,
  type ProtectedEnvironmentTier,
  type ProtectGroupEnvironmentParams,
  type ProtectionEntry,
} from './resources/group-protected-environments.js';
export { DoraMetrics, type DoraMetricsParams } from './resources/dora.js';
export {
  AgentFlows,
  type CreateFlowParams,
  type CreateCheckpointParams,
  type CreateFlowCallbackParams,
  type FlowEnvironment,
  type FlowStatusEvent,
} from './resources/flows.js';
export {
  AiCatalog,
  CatalogMutationError,
  GraphqlFieldError,
  idOfGid,
  projectGid,
  groupGid,
  type GraphqlCall,
  type AiCatalogItemType,
  type AiCatalogItemNode,
  type AiCatalogVersionNode,
  type AiCatalogConsumerNode,
  type Connection,
  type PageInfo,
  type CreateFlowItemParams,
  type CreateAgentItemParams,
  type UpdateItemParams,
} from './resources/ai-catalog.js';
export {
  ResourceHooks,
  type CreateProjectHookParams,
  type EditProjectHookParams,
  type CreateGroupHookParams,
  type EditGroupHookParams,
  type ListHookEventsParams,
} from './templates/resource-hooks.js';
export { ProjectHooks } from './resources/project-hooks.js';
export { GroupHooks } from './resources/group-hooks.js';
export { SystemHooks, type CreateSystemHookParams } from './resources/system-hooks.js';
