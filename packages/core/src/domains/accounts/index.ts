export { userRoutes } from './users.routes.js';
export { tokenRoutes, impersonationTokenRoutes } from './tokens.routes.js';
export { groupRoutes } from './groups.routes.js';
export { projectRoutes } from './projects.routes.js';
export { membersRoutes } from './members.routes.js';
export { namespaceRoutes } from './namespaces.routes.js';
export { deployTokenRoutes } from './deploy-tokens.routes.js';
export type { DeployTokenEntity, ListDeployTokensInput, CreateDeployTokenInput } from './deploy-tokens.js';
export { DEPLOY_TOKEN_SCOPES, listAllDeployTokens, listDeployTokens, getDeployToken, createDeployToken, deleteDeployToken } from './deploy-tokens.js';
export { authenticate, checkScopes, recordActivity, settledUntil, type Credentials, type JobTokenResolver } from '../../access/authenticate.js';
export { findGroup, findProject, findUser } from '../../access/lookup.js';
export { insertTokenWithValue, TOKEN_SCOPES } from './tokens.js';
export { insertUserWithNamespace } from './user.queries.js';
export type { UserBasicEntity, UserEntity, UserDetailEntity } from '../../access/user.entity.js';
export type { GroupEntity, NamespaceEntity } from './group.entity.js';
export type { NamespaceDetailEntity } from './namespace.entity.js';
export type { ImpersonationTokenEntity, ListImpersonationTokensInput, CreateImpersonationTokenInput } from './impersonation-tokens.js';
export { listImpersonationTokens, getImpersonationToken, createImpersonationToken, revokeImpersonationToken } from './impersonation-tokens.js';
export type { ListNamespacesInput, NamespaceExistsInput, NamespaceExistenceEntity } from './namespaces.js';
export { listNamespaces, getNamespace, namespaceExists } from './namespaces.js';
export type { ProjectEntity, ProjectSimpleEntity } from './project.entity.js';
export type { MemberEntity } from './member.entity.js';
export type { PersonalAccessTokenEntity, ResourceAccessTokenEntity } from './token.entity.js';
export type { CreateUserInput, UpdateUserInput, ListUsersInput } from './users.js';
export { CreateGroupInput } from './groups.js';
export type { UpdateGroupInput, ListGroupsInput, ListSubgroupsInput } from './groups.js';
export { CreateProjectInput } from './projects.js';
export type { UpdateProjectInput, ListProjectsInput, ListGroupProjectsInput } from './projects.js';
export type { ListProjectUsersInput } from './project-users.js';
export type { AddMemberInput, EditMemberInput, ListMembersInput } from './members.js';
export type { CreatePersonalAccessTokenInput, ListPersonalAccessTokensInput, CreateResourceAccessTokenInput } from './tokens.js';
export type { UserRow } from '../../access/user.table.js';
export type { ProjectRow } from '../../access/project.table.js';
export type { NamespaceRow } from '../../access/namespace.table.js';
export { listUsers, getUser, currentUser, createUser, updateUser, deleteUser } from './users.js';
export { listGroups, listSubgroups, listDescendantGroups, getGroup, createGroup, updateGroup, deleteGroup } from './groups.js';
export { listProjects, listGroupProjects, getProject, createProject, updateProject, deleteProject } from './projects.js';
export { listProjectUsers } from './project-users.js';
/** For ci: legacy runner registration with a project's token. */
export { projectOfRunnersToken, projectRunnersToken } from './runners-token.js';
export { listMembers, listAllMembers, getMember, addMember, editMember, removeMember } from './members.js';
export {
  createPersonalAccessToken, listPersonalAccessTokens, getPersonalAccessToken, revokePersonalAccessToken, rotatePersonalAccessToken,
  createResourceAccessToken, listResourceAccessTokens, getResourceAccessToken, revokeResourceAccessToken, rotateResourceAccessToken,
} from './tokens.js';
// for other domains
export { toGroupEntity } from './group.entity.js';
export { presentSimpleProjects, toProjectSimpleEntity } from './project.entity.js';
export { ROOT_TOKEN_SCOPES, bootstrapRoot } from './bootstrap.js';
export type { BootstrapResult } from './bootstrap.js';
/** For the wiring: reactions to members, groups, projects and users written (webhooks' system, member, subgroup and project events). */
export { registerAccountHooks, type AccountHooks, type MemberChange, type MemberSource, type GroupChange, type ProjectChange, type UserChange } from './account-hooks.js';
/** GraphQL: currentUser, project(fullPath:), group(fullPath:) and the types other domains extend. */
export { accountsGraphql, projectByPath, groupByPath } from './accounts.graphql.js';
