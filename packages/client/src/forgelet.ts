import { Requester, type RequesterOptions } from './infrastructure/requester.js';
import { graphqlRequest, type GraphqlDocument, type GraphqlOptions, type GraphqlResponse } from './infrastructure/graphql.js';
import { TestHarness } from './resources/test-harness.js';
import { GroupAccessTokens } from './resources/group-access-tokens.js';
import { GroupMembers } from './resources/group-members.js';
import { Groups } from './resources/groups.js';
import { Namespaces } from './resources/namespaces.js';
import { UserImpersonationTokens } from './resources/impersonation-tokens.js';
import { DeployTokens, GroupDeployTokens, ProjectDeployTokens } from './resources/deploy-tokens.js';
import { PersonalAccessTokens } from './resources/personal-access-tokens.js';
import { ProjectAccessTokens } from './resources/project-access-tokens.js';
import { ProjectMembers } from './resources/project-members.js';
import { Projects } from './resources/projects.js';
import { Users } from './resources/users.js';
import {
  IssueAwardEmoji,
  IssueNoteAwardEmoji,
  MergeRequestAwardEmoji,
  MergeRequestNoteAwardEmoji,
  SnippetAwardEmoji,
  SnippetNoteAwardEmoji,
} from './resources/award-emoji.js';
import { EpicStateEvents, IssueStateEvents, MergeRequestStateEvents } from './resources/state-events.js';
import { Epics } from './resources/epics.js';
import { GroupLabels } from './resources/group-labels.js';
import { ProjectLabels } from './resources/project-labels.js';
import { GroupIterations } from './resources/group-iterations.js';
import { IterationCadences } from './resources/iteration-cadences.js';
import { EpicLinks } from './resources/epic-links.js';
import { EpicIssues } from './resources/epic-issues.js';
import { Releases } from './resources/releases.js';
import { ReleaseLinks } from './resources/release-links.js';
import { GroupReleases } from './resources/group-releases.js';
import { ProtectedBranches } from './resources/protected-branches.js';
import { ProtectedTags } from './resources/protected-tags.js';
import { ProjectVariables } from './resources/project-variables.js';
import { GroupVariables } from './resources/group-variables.js';
import { InstanceVariables } from './resources/instance-variables.js';
import { MergeRequests } from './resources/merge-requests.js';
import { GroupIssues } from './resources/group-issues.js';
import { Issues } from './resources/issues.js';
import { GroupMilestones } from './resources/group-milestones.js';
import { ProjectMilestones } from './resources/project-milestones.js';
import { BulkImports } from './resources/bulk-imports.js';
import { RepositoryBranches } from './resources/repository-branches.js';
import { RepositoryTags } from './resources/repository-tags.js';
import { Commits } from './resources/commits.js';
import { RepositoryFiles } from './resources/repository-files.js';
import { RepositoryTree } from './resources/repository-tree.js';
import { Repositories } from './resources/repositories.js';
import { IssueNotes, MergeRequestNotes, ProjectSnippetNotes } from './resources/notes.js';
import { ProjectSnippets } from './resources/snippets.js';
import { JobTokenScopes } from './resources/job-token-scope.js';
import { PipelineSchedules, PipelineScheduleVariables } from './resources/pipeline-schedules.js';
import { ApplicationSettingsResource } from './resources/application-settings.js';
import { MergeRequestApprovals } from './resources/merge-request-approvals.js';
import { ProjectApprovalRules } from './resources/project-approval-rules.js';
import { ErrorTrackingClientKeys, ErrorTrackingErrors, ErrorTrackingSettings } from './resources/error-tracking.js';
import { NugetFeed, Packages } from './resources/packages.js';
import { Pipelines } from './resources/pipelines.js';
import { Jobs } from './resources/jobs.js';
import { Runners } from './resources/runners.js';
import { Environments } from './resources/environments.js';
import { Deployments } from './resources/deployments.js';
import { GroupProtectedEnvironments } from './resources/group-protected-environments.js';
import { DoraMetrics } from './resources/dora.js';
import { AgentFlows } from './resources/flows.js';
import { AiCatalog, GraphqlFieldError } from './resources/ai-catalog.js';
import { GroupHooks } from './resources/group-hooks.js';
import { ProjectHooks } from './resources/project-hooks.js';
import { SystemHooks } from './resources/system-hooks.js';
import { JobArtifacts } from './resources/job-artifacts.js';
import { GroupMemberRoles, MemberRoles } from './resources/member-roles.js';
import { RunnerJobs } from './resources/runner-jobs.js';
import { GroupRelationExports, ProjectRelationExports } from './resources/relation-exports.js';

export type ForgeletOptions = RequesterOptions;

/** `GET /version`. Core declares this answer inline, so its type lives here. */
export interface VersionInfo {
  version: string;
  revision: string;
  kas: { enabled: boolean; externalUrl: string | null; externalK8sProxyUrl: string | null; version: string | null };
  enterprise: boolean;
}

/**
 * A typed client for a Forgelet (or GitLab) `/api/v4`.
 *
 * ```ts
 * const api = new Forgelet({ url: 'http://localhost:8080', token: process.env.FORGELET_TOKEN });
 * const group = await api.groups.create({ name: 'Tools', path: 'tools' });
 * for await (const project of api.groups.projects(group.id)) console.log(project.path_with_namespace);
 * ```
 *
 * Failed calls throw `ApiError` with the status and GitLab's error body.
 */
export class Forgelet {
  readonly requester: Requester;
  /** Test harness (`/forgelet/…`, servers in test mode): clock, snapshots, seed, tier, faults. */
  readonly harness: TestHarness;
  readonly users: Users;
  readonly groups: Groups;
  /** `/namespaces`: user and group namespaces, `exists` checks. */
  readonly namespaces: Namespaces;
  readonly projects: Projects;
  readonly projectMembers: ProjectMembers;
  readonly groupMembers: GroupMembers;
  readonly personalAccessTokens: PersonalAccessTokens;
  readonly projectAccessTokens: ProjectAccessTokens;
  readonly groupAccessTokens: GroupAccessTokens;
  /** `/users/:user_id/impersonation_tokens` (administrators). */
  readonly userImpersonationTokens: UserImpersonationTokens;
  /** Deploy tokens: every one (administrators), and a project's or a group's. */
  readonly deployTokens: DeployTokens;
  readonly projectDeployTokens: ProjectDeployTokens;
  readonly groupDeployTokens: GroupDeployTokens;
  readonly issues: Issues;
  readonly groupIssues: GroupIssues;
  readonly mergeRequests: MergeRequests;
  readonly groupMilestones: GroupMilestones;
  readonly projectMilestones: ProjectMilestones;
  readonly bulkImports: BulkImports;
  readonly repositoryBranches: RepositoryBranches;
  readonly repositoryTags: RepositoryTags;
  readonly commits: Commits;
  readonly repositoryFiles: RepositoryFiles;
  readonly repositoryTree: RepositoryTree;
  readonly repositories: Repositories;
  readonly issueNotes: IssueNotes;
  readonly mergeRequestNotes: MergeRequestNotes;
  readonly projectSnippetNotes: ProjectSnippetNotes;
  readonly projectSnippets: ProjectSnippets;
  readonly issueAwardEmoji: IssueAwardEmoji;
  readonly issueNoteAwardEmoji: IssueNoteAwardEmoji;
  readonly mergeRequestAwardEmoji: MergeRequestAwardEmoji;
  readonly mergeRequestNoteAwardEmoji: MergeRequestNoteAwardEmoji;
  readonly snippetAwardEmoji: SnippetAwardEmoji;
  readonly snippetNoteAwardEmoji: SnippetNoteAwardEmoji;
  readonly issueStateEvents: IssueStateEvents;
  readonly mergeRequestStateEvents: MergeRequestStateEvents;
  readonly epics: Epics;
  readonly groupLabels: GroupLabels;
  readonly projectLabels: ProjectLabels;
  readonly groupIterations: GroupIterations;
  readonly iterationCadences: IterationCadences;
  readonly epicLinks: EpicLinks;
  /** `/groups/:id/epics/:epic_iid/issues`: the issues of an epic. */
  readonly epicIssues: EpicIssues;
  readonly epicStateEvents: EpicStateEvents;
  readonly releases: Releases;
  readonly releaseLinks: ReleaseLinks;
  readonly groupReleases: GroupReleases;
  readonly protectedBranches: ProtectedBranches;
  readonly protectedTags: ProtectedTags;
  readonly jobTokenScopes: JobTokenScopes;
  readonly pipelineSchedules: PipelineSchedules;
  readonly pipelineScheduleVariables: PipelineScheduleVariables;
  readonly applicationSettings: ApplicationSettingsResource;
  readonly mergeRequestApprovals: MergeRequestApprovals;
  readonly projectApprovalRules: ProjectApprovalRules;
  readonly errorTrackingSettings: ErrorTrackingSettings;
  readonly errorTrackingClientKeys: ErrorTrackingClientKeys;
  readonly errorTrackingErrors: ErrorTrackingErrors;
  /** Project and group packages (generic package API) and group package settings. */
  readonly packages: Packages;
  /** The JSON side of a NuGet feed (v3): service index, search, registration. */
  readonly nugetFeed: NugetFeed;
  readonly pipelines: Pipelines;
  readonly jobs: Jobs;
  readonly runners: Runners;
  readonly environments: Environments;
  readonly deployments: Deployments;
  readonly groupProtectedEnvironments: GroupProtectedEnvironments;
  readonly doraMetrics: DoraMetrics;
  readonly agentFlows: AgentFlows;
  /** The AI catalog (GraphQL only, as in GitLab): items, versions, consumers. */
  readonly aiCatalog: AiCatalog;
  readonly projectHooks: ProjectHooks;
  readonly groupHooks: GroupHooks;
  readonly systemHooks: SystemHooks;
  /** Job artifacts: archives, files and trees by job or by ref; keep, delete. */
  readonly jobArtifacts: JobArtifacts;
  /** Custom roles of the instance (administrators) and of top-level groups (Owners); Ultimate. */
  readonly memberRoles: MemberRoles;
  readonly groupMemberRoles: GroupMemberRoles;
  /** The runner side of CI jobs (runner protocol): take a job, report it, its log and artifacts. */
  readonly runnerJobs: RunnerJobs;
  /** CI/CD variables of projects (Maintainers), groups (Owners) and the instance (administrators). */
  readonly projectVariables: ProjectVariables;
  readonly groupVariables: GroupVariables;
  readonly instanceVariables: InstanceVariables;
  /** Direct transfer, source side: relation exports of groups and projects. */
  readonly groupRelationExports: GroupRelationExports;
  readonly projectRelationExports: ProjectRelationExports;

  constructor(options: ForgeletOptions) {
    this.requester = new Requester(options);
    this.harness = new TestHarness(this.requester);
    this.users = new Users(this.requester);
    this.groups = new Groups(this.requester);
    this.namespaces = new Namespaces(this.requester);
    this.projects = new Projects(this.requester);
    this.projectMembers = new ProjectMembers(this.requester);
    this.groupMembers = new GroupMembers(this.requester);
    this.personalAccessTokens = new PersonalAccessTokens(this.requester);
    this.projectAccessTokens = new ProjectAccessTokens(this.requester);
    this.groupAccessTokens = new GroupAccessTokens(this.requester);
    this.userImpersonationTokens = new UserImpersonationTokens(this.requester);
    this.deployTokens = new DeployTokens(this.requester);
    this.projectDeployTokens = new ProjectDeployTokens(this.requester);
    this.groupDeployTokens = new GroupDeployTokens(this.requester);
    this.issues = new Issues(this.requester);
    this.groupIssues = new GroupIssues(this.requester);
    this.mergeRequests = new MergeRequests(this.requester);
    this.groupMilestones = new GroupMilestones(this.requester);
    this.projectMilestones = new ProjectMilestones(this.requester);
    this.bulkImports = new BulkImports(this.requester);
    this.repositoryBranches = new RepositoryBranches(this.requester);
    this.repositoryTags = new RepositoryTags(this.requester);
    this.commits = new Commits(this.requester);
    this.repositoryFiles = new RepositoryFiles(this.requester);
    this.repositoryTree = new RepositoryTree(this.requester);
    this.repositories = new Repositories(this.requester);
    this.issueNotes = new IssueNotes(this.requester);
    this.mergeRequestNotes = new MergeRequestNotes(this.requester);
    this.projectSnippetNotes = new ProjectSnippetNotes(this.requester);
    this.projectSnippets = new ProjectSnippets(this.requester);
    this.issueAwardEmoji = new IssueAwardEmoji(this.requester);
    this.issueNoteAwardEmoji = new IssueNoteAwardEmoji(this.requester);
    this.mergeRequestAwardEmoji = new MergeRequestAwardEmoji(this.requester);
    this.mergeRequestNoteAwardEmoji = new MergeRequestNoteAwardEmoji(this.requester);
    this.snippetAwardEmoji = new SnippetAwardEmoji(this.requester);
    this.snippetNoteAwardEmoji = new SnippetNoteAwardEmoji(this.requester);
    this.issueStateEvents = new IssueStateEvents(this.requester);
    this.mergeRequestStateEvents = new MergeRequestStateEvents(this.requester);
    this.epics = new Epics(this.requester);
    this.groupLabels = new GroupLabels(this.requester);
    this.projectLabels = new ProjectLabels(this.requester);
    this.groupIterations = new GroupIterations(this.requester);
    this.iterationCadences = new IterationCadences(this.requester);
    this.epicLinks = new EpicLinks(this.requester);
    this.epicIssues = new EpicIssues(this.requester);
    this.epicStateEvents = new EpicStateEvents(this.requester);
    this.releases = new Releases(this.requester);
    this.releaseLinks = new ReleaseLinks(this.requester);
    this.groupReleases = new GroupReleases(this.requester);
    this.protectedBranches = new ProtectedBranches(this.requester);
    this.protectedTags = new ProtectedTags(this.requester);
    this.projectVariables = new ProjectVariables(this.requester);
    this.groupVariables = new GroupVariables(this.requester);
    this.instanceVariables = new InstanceVariables(this.requester);
    this.jobTokenScopes = new JobTokenScopes(this.requester);
    this.pipelineSchedules = new PipelineSchedules(this.requester);
    this.pipelineScheduleVariables = new PipelineScheduleVariables(this.requester);
    this.applicationSettings = new ApplicationSettingsResource(this.requester);
    this.mergeRequestApprovals = new MergeRequestApprovals(this.requester);
    this.projectApprovalRules = new ProjectApprovalRules(this.requester);
    this.errorTrackingSettings = new ErrorTrackingSettings(this.requester);
    this.errorTrackingClientKeys = new ErrorTrackingClientKeys(this.requester);
    this.errorTrackingErrors = new ErrorTrackingErrors(this.requester);
    this.packages = new Packages(this.requester);
    this.nugetFeed = new NugetFeed(this.requester);
    this.pipelines = new Pipelines(this.requester);
    this.jobs = new Jobs(this.requester);
    this.runners = new Runners(this.requester);
    this.environments = new Environments(this.requester);
    this.deployments = new Deployments(this.requester);
    this.groupProtectedEnvironments = new GroupProtectedEnvironments(this.requester);
    this.doraMetrics = new DoraMetrics(this.requester);
    this.agentFlows = new AgentFlows(this.requester);
    this.aiCatalog = new AiCatalog(async (query, variables) => {
      const answer = await this.graphql(query, variables);
      if (answer.errors?.length) throw new GraphqlFieldError(answer.errors);
      return answer.data as never;
    });
    this.projectHooks = new ProjectHooks(this.requester);
    this.groupHooks = new GroupHooks(this.requester);
    this.systemHooks = new SystemHooks(this.requester);
    this.jobArtifacts = new JobArtifacts(this.requester);
    this.memberRoles = new MemberRoles(this.requester);
    this.groupMemberRoles = new GroupMemberRoles(this.requester);
    this.runnerJobs = new RunnerJobs(this.requester);
    this.groupRelationExports = new GroupRelationExports(this.requester);
    this.projectRelationExports = new ProjectRelationExports(this.requester);
  }

  version(): Promise<VersionInfo> {
    return this.requester.get('version');
  }

  /**
   * A GitLab GraphQL request (`POST /api/graphql`), typed by the caller or by a typed document:
   * `const { data } = await api.graphql<{ project: { name: string } | null }>('query($p: ID!) { project(fullPath: $p) { name } }', { p: 'group/app' })`.
   * Field errors come back in `errors` beside partial `data`; a refused request throws ApiError.
   */
  graphql<TData = Record<string, any>, TVariables extends Record<string, unknown> = Record<string, unknown>>(
    query: GraphqlDocument<TData, TVariables>,
    variables?: TVariables,
    options?: GraphqlOptions,
  ): Promise<GraphqlResponse<TData>> {
    return graphqlRequest(this.requester, query, variables, options);
  }

  /** `GET /openapi.json`: the OpenAPI 3.1 document of every route of this server. */
  openApi(): Promise<Record<string, unknown>> {
    return this.requester.get('openapi.json');
  }

  /** `GET /metadata`: the same facts as `version()` (GitLab's newer endpoint). */
  metadata(): Promise<VersionInfo> {
    return this.requester.get('metadata');
  }
}
