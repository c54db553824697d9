import { Requester, type RequesterOptions } from './infrastructure/requester.js';
import { GroupAccessTokens } from './resources/group-access-tokens.js';
import { GroupMembers } from './resources/group-members.js';
import { Groups } from './resources/groups.js';
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
import { MergeRequests } from './resources/merge-requests.js';
import { GroupIssues } from './resources/group-issues.js';
import { Issues } from './resources/issues.js';
import { GroupMilestones } from './resources/group-milestones.js';
import { ProjectMilestones } from './resources/project-milestones.js';
import { IssueNotes, MergeRequestNotes, ProjectSnippetNotes } from './resources/notes.js';
import { ProjectSnippets } from './resources/snippets.js';
import { JobTokenScopes } from './resources/job-token-scope.js';
import { ApplicationSettingsResource } from './resources/application-settings.js';

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
  readonly users: Users;
  readonly groups: Groups;
  readonly projects: Projects;
  readonly projectMembers: ProjectMembers;
  readonly groupMembers: GroupMembers;
  readonly personalAccessTokens: PersonalAccessTokens;
  readonly projectAccessTokens: ProjectAccessTokens;
  readonly groupAccessTokens: GroupAccessTokens;
  readonly issues: Issues;
  readonly groupIssues: GroupIssues;
  readonly mergeRequests: MergeRequests;
  readonly groupMilestones: GroupMilestones;
  readonly projectMilestones: ProjectMilestones;
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
  readonly epicStateEvents: EpicStateEvents;
  readonly jobTokenScopes: JobTokenScopes;
  readonly applicationSettings: ApplicationSettingsResource;

  constructor(options: ForgeletOptions) {
    this.requester = new Requester(options);
    this.users = new Users(this.requester);
    this.groups = new Groups(this.requester);
    this.projects = new Projects(this.requester);
    this.projectMembers = new ProjectMembers(this.requester);
    this.groupMembers = new GroupMembers(this.requester);
    this.personalAccessTokens = new PersonalAccessTokens(this.requester);
    this.projectAccessTokens = new ProjectAccessTokens(this.requester);
    this.groupAccessTokens = new GroupAccessTokens(this.requester);
    this.issues = new Issues(this.requester);
    this.groupIssues = new GroupIssues(this.requester);
    this.mergeRequests = new MergeRequests(this.requester);
    this.groupMilestones = new GroupMilestones(this.requester);
    this.projectMilestones = new ProjectMilestones(this.requester);
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
    this.epicStateEvents = new EpicStateEvents(this.requester);
    this.jobTokenScopes = new JobTokenScopes(this.requester);
    this.applicationSettings = new ApplicationSettingsResource(this.requester);
  }

  version(): Promise<VersionInfo> {
    return this.requester.get('version');
  }
}
