/**
 * GitLab's GraphQL for accounts: `currentUser`, `project(fullPath:)`, `group(fullPath:)` and
 * the `UserCore`, `CurrentUser`, `Project`, `Group` and `Namespace` types other domains extend
 * (app/graphql/types/{user_type,project_type,group_type,namespace_type}.rb). Answered from the
 * REST use cases' entities, so both contracts read the same records through the same policy.
 */
import { GraphQLEnumType, type GraphQLOutputType } from 'graphql';
import { gql, orNull, type GraphqlBuilder, type GraphqlModule, type GqlFields } from '../../kernel/graphql.js';
import { isDomainError } from '../../kernel/errors.js';
import type { Ctx } from '../../access/context.js';
import { can, type ProjectAbility } from '../../access/policy.js';
import type { ProjectRow } from '../../access/project.table.js';
import { findProject } from '../../access/lookup.js';
import type { UserDetailEntity, UserEntity } from '../../access/user.entity.js';
import { currentUser, getUser } from './users.js';
import { getProject } from './projects.js';
import { getGroup, listDescendantGroups, listSubgroups, ListSubgroupsInput } from './groups.js';
import { listGroupProjects, ListGroupProjectsInput } from './projects.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { ProjectEntity } from './project.entity.js';
import type { GroupEntity, NamespaceEntity } from './group.entity.js';

const { nn, string, int, boolean, from, gid } = gql;
const webPath = (src: { web_url: string }) => new URL(src.web_url).pathname;

/** `project(fullPath:)`'s answer for a path (null when missing or hidden); other domains resolve a record's project with it. */
export async function projectByPath(ctx: Ctx, fullPath: string): Promise<ProjectEntity | null> {
  const project = await orNull(getProject(ctx, fullPath));
  // A CI job token reaches another project only through that project's inbound job token scope.
  if (project && ctx.actor.job && ctx.actor.job.projectId !== project.id) {
    const row = await findProject(ctx, String(project.id));
    if (!(await can(ctx, 'read_project', { kind: 'project', project: row }))) return null;
  }
  return project;
}

export function groupByPath(ctx: Ctx, fullPath: string): Promise<GroupEntity | null> {
  return orNull(getGroup(ctx, fullPath));
}

/** A user field that a UserBasic entity (an author, an assignee) lacks: read from the full user (GET /users/:id's answer), once per request. */
function fullUserField(type: GraphQLOutputType, key: string, description: string): GqlFields[string] {
  return {
    type,
    description,
    resolve: async (src: Record<string, unknown>, _args: unknown, ctx: Ctx) => {
      if (key in src) return src[key] ?? null;
      const cacheKey = `graphql:user:${String(src.id)}`;
      let full = ctx.cache.get(cacheKey) as Promise<Record<string, unknown> | null> | undefined;
      if (!full) ctx.cache.set(cacheKey, (full = orNull(getUser(ctx, src.id as number)) as Promise<Record<string, unknown> | null>));
      return (await full)?.[key] ?? null;
    },
  };
}

function userFields(g: GraphqlBuilder): GqlFields {
  return {
    id: gid('User', 'Global ID of the user.'),
    username: from(nn(string), 'username', 'Username of the user. Unique within the instance of GitLab.'),
    name: from(nn(string), 'name', 'Human-readable name of the user. Returns `****` if the user is a project bot and the requester does not have permission to view the project.'),
    state: from(nn(g.type('UserState')), 'state', 'State of the user.'),
    webUrl: from(nn(string), 'web_url', 'Web URL of the user.'),
    webPath: { type: nn(string), description: 'Web path of the user.', resolve: webPath },
    avatarUrl: from(string, 'avatar_url', "URL of the user's avatar."),
    publicEmail: fullUserField(string, 'public_email', "User's public email."),
    bot: fullUserField(nn(boolean), 'bot', 'Indicates if the user is a bot.'),
    location: fullUserField(string, 'location', 'Location of the user.'),
    bio: fullUserField(string, 'bio', 'Bio of the user.'),
    jobTitle: fullUserField(string, 'job_title', 'Job title of the user.'),
    organization: fullUserField(string, 'organization', 'Who the user represents or works for.'),
    createdAt: fullUserField(g.type('Time'), 'created_at', 'Timestamp of when the user was created.'),
  };
}

const USER_STATES = ['active', 'blocked', 'deactivated', 'banned', 'ldap_blocked', 'blocked_pending_approval'];

/** ProjectPermissions fields (app/graphql/types/permission_types/project.rb) Forgelet has an ability for. */
const PROJECT_PERMISSIONS: Record<string, [ProjectAbility, string]> = {
  adminOperations: ['admin_operations', 'If `true`, the user can perform `admin_operations` on this resource'],
  adminProject: ['admin_project', 'If `true`, the user can perform `admin_project` on this resource'],
  archiveProject: ['archive_project', 'If `true`, the user can perform `archive_project` on this resource'],
  createIssue: ['create_issue', 'If `true`, the user can perform `create_issue` on this resource'],
  createLabel: ['admin_label', 'If `true`, the user can perform `create_label` on this resource'],
  createMergeRequestIn: ['create_merge_request', 'If `true`, the user can perform `create_merge_request_in` on this resource'],
  createPipeline: ['create_pipeline', 'If `true`, the user can perform `create_pipeline` on this resource'],
  createPipelineSchedule: ['create_pipeline_schedule', 'If `true`, the user can perform `create_pipeline_schedule` on this resource'],
  createSnippet: ['create_snippet', 'If `true`, the user can perform `create_snippet` on this resource'],
  downloadCode: ['read_code', 'If `true`, the user can perform `download_code` on this resource'],
  pushCode: ['push_code', 'If `true`, the user can perform `push_code` on this resource'],
  readEnvironment: ['read_environment', 'If `true`, the user can perform `read_environment` on this resource'],
  readMergeRequest: ['read_merge_request', 'If `true`, the user can perform `read_merge_request` on this resource'],
  readProject: ['read_project', 'If `true`, the user can perform `read_project` on this resource'],
  readProjectMember: ['read_project_member', 'If `true`, the user can perform `read_project_member` on this resource'],
  removeProject: ['remove_project', 'If `true`, the user can perform `remove_project` on this resource'],
};

export const accountsGraphql: GraphqlModule = (g) => {
  g.defineObject('ProjectPermissions', {
    description: 'Check permissions for the current user on a project',
    fields: () =>
      gql.permissionFields<ProjectRow>(Object.fromEntries(Object.entries(PROJECT_PERMISSIONS).map(([field, [ability, description]]) => [field, [description, (project, ctx) => can(ctx, ability, { kind: 'project', project })]]))),
  });
  g.add(
    new GraphQLEnumType({
      name: 'UserState',
      description: 'Possible states of a user',
      values: Object.fromEntries(USER_STATES.map((s) => [s, { value: s, description: `User is ${s.replace(/_/g, ' ')}.` }])),
    }),
  );
  g.defineObject('UserCore', { description: 'Core represention of a GitLab user.', fields: () => userFields(g) });
  g.defineObject('CurrentUser', {
    description: 'The currently authenticated GitLab user.',
    fields: () => ({
      ...userFields(g),
      lastActivityOn: from(g.type('Date'), 'last_activity_on', 'Date the user last performed any actions.'),
    }),
  });
  g.defineObject('Namespace', {
    description: 'A namespace: a group or a personal namespace.',
    fields: () => ({
      id: gid('Namespace', 'ID of the namespace.'),
      name: from(nn(string), 'name', 'Name of the namespace.'),
      path: from(nn(string), 'path', 'Path of the namespace.'),
      fullName: { type: nn(string), description: 'Full name of the namespace.', resolve: (ns: NamespaceEntity) => ns.name },
      fullPath: from(nn(string), 'full_path', 'Full path of the namespace.'),
      webUrl: from(string, 'web_url', 'URL of the namespace.'),
    }),
  });
  g.defineObject('Group', {
    description: 'A group.',
    fields: () => ({
      id: gid('Group', 'ID of the namespace.'),
      name: from(nn(string), 'name', 'Name of the namespace.'),
      path: from(nn(string), 'path', 'Path of the namespace.'),
      fullName: from(nn(string), 'full_name', 'Full name of the namespace.'),
      fullPath: from(nn(string), 'full_path', 'Full path of the namespace.'),
      description: from(string, 'description', 'Description of the namespace.'),
      visibility: from(string, 'visibility', 'Visibility of the namespace.'),
      webUrl: from(nn(string), 'web_url', 'Web URL of the group.'),
      avatarUrl: from(string, 'avatar_url', 'Avatar URL of the group.'),
      createdAt: from(g.type('Time'), 'created_at', 'Timestamp of the group creation.'),
      lfsEnabled: from(boolean, 'lfs_enabled', 'Indicates if Large File Storage (LFS) is enabled for namespace.'),
      requestAccessEnabled: from(boolean, 'request_access_enabled', 'Indicates if users can request access to namespace.'),
      shareWithGroupLock: from(boolean, 'share_with_group_lock', 'Indicates if sharing a project with another group within this group is prevented.'),
      requireTwoFactorAuthentication: from(boolean, 'require_two_factor_authentication', 'Indicates if all users in this group are required to set up two-factor authentication.'),
      twoFactorGracePeriod: from(int, 'two_factor_grace_period', 'Time before two-factor authentication is enforced.'),
      projectCreationLevel: from(string, 'project_creation_level', 'Permission level required to create projects in the group.'),
      subgroupCreationLevel: from(string, 'subgroup_creation_level', 'Permission level required to create subgroups within the group.'),
      autoDevopsEnabled: from(boolean, 'auto_devops_enabled', 'Indicates whether Auto DevOps is enabled for all projects within this group.'),
      emailsDisabled: from(boolean, 'emails_disabled', 'Indicates if a group has email notifications disabled.'),
      mentionsDisabled: from(boolean, 'mentions_disabled', 'Indicates if a group is disabled from getting mentioned.'),
      projects: {
        type: g.connection('Project'),
        description: 'Projects within this namespace.',
        args: {
          ...connectionArgs,
          includeSubgroups: { type: boolean, defaultValue: false, description: 'Include also subgroup projects.' },
          search: { type: string, description: 'Search project with most similar names or paths.' },
        },
        resolve: (group: GroupEntity, args: ConnectionArgs & { includeSubgroups: boolean; search?: string | null }, ctx: Ctx) => {
          const input = parseParams(ListGroupProjectsInput, { id: String(group.id), include_subgroups: args.includeSubgroups, ...(args.search ? { search: args.search } : {}) });
          return resolveConnection(args, (page) => listGroupProjects(ctx, { ...input, ...page }));
        },
      },
      descendantGroups: {
        type: g.connection('Group'),
        description: 'List of descendant groups of the group.',
        args: {
          ...connectionArgs,
          includeParentDescendants: { type: boolean, defaultValue: true, description: 'List of descendant groups of the parent group.' },
          owned: { type: boolean, defaultValue: false, description: 'Limit result to groups owned by authenticated user.' },
          search: { type: string, description: 'Search query for group name or group full path.' },
        },
        resolve: (group: GroupEntity, args: ConnectionArgs & { includeParentDescendants: boolean; owned: boolean; search?: string | null }, ctx: Ctx) => {
          // GitLab's `includeParentDescendants: false` lists the direct children only (GET /groups/:id/subgroups).
          const input = parseParams(ListSubgroupsInput, { id: String(group.id), ...gql.given({ owned: args.owned || undefined, search: args.search }) });
          const list = args.includeParentDescendants ? listDescendantGroups : listSubgroups;
          return visibleConnection(resolveConnection(args, (page) => list(ctx, { ...input, ...page })));
        },
      },
      parent: {
        type: g.object('Group'),
        description: 'Parent group.',
        resolve: (group: GroupEntity, _args: unknown, ctx: Ctx) => (group.parent_id === null ? null : orNull(getGroup(ctx, String(group.parent_id)))),
      },
    }),
  });
  g.defineObject('Project', {
    description: 'A project.',
    fields: () => ({
      id: gid('Project', 'ID of the project.'),
      name: from(nn(string), 'name', 'Name of the project without the namespace.'),
      path: from(nn(string), 'path', 'Path of the project.'),
      fullPath: from(nn(string), 'path_with_namespace', 'Full path of the project.'),
      nameWithNamespace: from(nn(string), 'name_with_namespace', 'Name of the project including the namespace.'),
      description: from(string, 'description', 'Short description of the project.'),
      visibility: from(string, 'visibility', 'Visibility of the project.'),
      archived: from(boolean, 'archived', 'Indicates the archived status of the project.'),
      webUrl: from(string, 'web_url', 'Web URL of the project.'),
      httpUrlToRepo: from(string, 'http_url_to_repo', 'URL to connect to the project via HTTPS.'),
      sshUrlToRepo: from(string, 'ssh_url_to_repo', 'URL to connect to the project via SSH.'),
      avatarUrl: from(string, 'avatar_url', 'URL to avatar image file of the project.'),
      createdAt: from(g.type('Time'), 'created_at', 'Timestamp of the project creation.'),
      lastActivityAt: from(g.type('Time'), 'last_activity_at', 'Timestamp of the project last activity.'),
      starCount: from(nn(int), 'star_count', 'Number of times the project has been starred.'),
      forksCount: from(nn(int), 'forks_count', 'Number of times the project has been forked.'),
      openIssuesCount: from(int, 'open_issues_count', 'Number of open issues for the project.'),
      topics: from(gql.list(string), 'topics', 'List of project topics.'),
      issuesEnabled: from(boolean, 'issues_enabled', '(Deprecated) Indicates if Issues are enabled for the current user.'),
      mergeRequestsEnabled: from(boolean, 'merge_requests_enabled', '(Deprecated) Indicates if Merge requests are enabled for the current user.'),
      jobsEnabled: from(boolean, 'jobs_enabled', '(Deprecated) Indicates if CI/CD pipeline jobs are enabled for the current user.'),
      wikiEnabled: from(boolean, 'wiki_enabled', '(Deprecated) Indicates if Wikis are enabled for the current user.'),
      snippetsEnabled: from(boolean, 'snippets_enabled', '(Deprecated) Indicates if Snippets are enabled for the current user.'),
      namespace: from(g.object('Namespace'), 'namespace', 'Namespace of the project.'),
      userPermissions: {
        type: nn(g.object('ProjectPermissions')),
        description: 'Permissions for the current user on the resource.',
        resolve: (project: ProjectEntity, _args: unknown, ctx: Ctx) => findProject(ctx, String(project.id)),
      },
      group: {
        type: g.object('Group'),
        description: 'Group of the project.',
        resolve: (project: ProjectEntity, _args: unknown, ctx: Ctx) => (project.namespace.kind === 'group' ? groupByPath(ctx, project.namespace.full_path) : null),
      },
    }),
  });
  g.extend('Query', () => ({
    currentUser: {
      type: g.object('CurrentUser'),
      description: 'Get information about current user.',
      resolve: async (_src: unknown, _args: unknown, ctx: Ctx): Promise<UserDetailEntity | UserEntity | null> => {
        if (!ctx.actor.user) return null;
        try {
          return await currentUser(ctx);
        } catch (err) {
          if (isDomainError(err)) return null;
          throw err;
        }
      },
    },
    project: {
      type: g.object('Project'),
      description: 'Find a project.',
      args: { fullPath: { type: nn(gql.id), description: 'Full path of the project. For example, `gitlab-org/gitlab-foss`.' } },
      resolve: (_src: unknown, args: { fullPath: string }, ctx: Ctx) => projectByPath(ctx, args.fullPath),
    },
    group: {
      type: g.object('Group'),
      description: 'Find a group.',
      args: { fullPath: { type: nn(gql.id), description: 'Full path of the project, group, or namespace. For example, `gitlab-org/gitlab-foss`.' } },
      resolve: (_src: unknown, args: { fullPath: string }, ctx: Ctx) => groupByPath(ctx, args.fullPath),
    },
  }));
};
