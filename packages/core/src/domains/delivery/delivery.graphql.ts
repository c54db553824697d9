/**
 * GitLab's GraphQL environments and deployments (app/graphql/types/environment_type.rb,
 * deployment_type.rb, deployment_status_enum.rb, deployment_tier_enum.rb):
 * `Project.environments/environment`, `Environment.lastDeployment(status:)` and
 * `Environment.deployments`, over GET …/environments[/:id] and GET …/deployments (Reporter,
 * or anyone who sees a public project's pipelines); `Environment.protectedEnvironments` (EE):
 * the project's protection of the environment's name and its groups' of its tier, the only
 * place GitLab's GraphQL shows group protected environments.
 */
import { GraphQLEnumType, GraphQLInputObjectType } from 'graphql';
import { gql, orNull, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, visibleConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { parseParams } from '../../kernel/params.js';
import type { Ctx } from '../../access/context.js';
import { listEnvironmentProtections, listEnvironments, type EnvironmentProtectionEntity } from './environments.js';
import { getUser } from '../accounts/index.js';
import { groupByPath, projectByPath } from '../accounts/index.js';
import type { DeployAccessLevelEntity, ProtectedEnvironmentApprovalRuleEntity } from './delivery.entity.js';
import { listDeployments } from './deployments.js';
import { ListDeploymentsInput, ListEnvironmentsInput } from './delivery.schema.js';
import { DEPLOYMENT_STATUSES, ENVIRONMENT_TIERS } from './delivery.table.js';
import type { DeploymentEntity, EnvironmentEntity } from './delivery.entity.js';

const { nn, string, int, from } = gql;

type Environment = EnvironmentEntity & { project_id: number; project_path: string };
type Deployment = DeploymentEntity & { project_id: number };

const upperEnum = (name: string, description: string, values: readonly string[]) =>
  new GraphQLEnumType({ name, description, values: Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v }])) });

/** GitLab's `DeploymentsOrderByInput` (one of `createdAt`, `finishedAt`, with ASC or DESC). */
interface DeploymentOrder {
  createdAt?: string | null;
  finishedAt?: string | null;
}

function deploymentsOf(ctx: Ctx, env: Environment, args: ConnectionArgs & { statuses?: string[] | null; orderBy?: DeploymentOrder | null }) {
  const order = args.orderBy?.finishedAt ? { order_by: 'finished_at', sort: args.orderBy.finishedAt.toLowerCase() } : { order_by: 'created_at', sort: (args.orderBy?.createdAt ?? 'ASC').toLowerCase() };
  const input = parseParams(ListDeploymentsInput, { id: String(env.project_id), environment: env.name, ...order, ...gql.given({ status: args.statuses?.[0] }) });
  return visibleConnection(
    resolveConnection(args, async (page) => {
      const answer = await listDeployments(ctx, { ...input, ...page });
      return { ...answer, items: answer.items.map((d): Deployment => ({ ...d, project_id: env.project_id })) };
    }),
  );
}

export const deliveryGraphql: GraphqlModule = (g) => {
  g.add(upperEnum('DeploymentStatus', 'All deployment statuses.', DEPLOYMENT_STATUSES));
  g.add(upperEnum('DeploymentTier', 'All environment deployment tiers.', ENVIRONMENT_TIERS));
  g.add(new GraphQLEnumType({ name: 'SortDirectionEnum', description: 'Values for sort direction', values: { ASC: { value: 'ASC', description: 'Ascending order.' }, DESC: { value: 'DESC', description: 'Descending order.' } } }));
  g.add(
    new GraphQLInputObjectType({
      name: 'DeploymentsOrderByInput',
      description: 'Values for ordering deployments by a specific field',
      fields: () => ({
        createdAt: { type: g.input('SortDirectionEnum'), description: 'Order by Created time.' },
        finishedAt: { type: g.input('SortDirectionEnum'), description: 'Order by Finished time.' },
      }),
    }),
  );
  // GitLab's AccessLevel (app/graphql/types/access_level_type.rb) and the protected environment types (EE).
  const LEVELS: Record<number, [string, string]> = { 0: ['NO_ACCESS', 'No access'], 5: ['MINIMAL_ACCESS', 'Minimal Access'], 10: ['GUEST', 'Guest'], 15: ['PLANNER', 'Planner'], 20: ['REPORTER', 'Reporter'], 30: ['DEVELOPER', 'Developer'], 40: ['MAINTAINER', 'Maintainer'], 50: ['OWNER', 'Owner'], 60: ['ADMIN', 'Admin'] };
  g.add(new GraphQLEnumType({ name: 'AccessLevelEnum', description: 'Access level to a resource', values: Object.fromEntries(Object.values(LEVELS).map(([name]) => [name, { value: name }])) }));
  g.defineObject('AccessLevel', {
    description: 'Represents the access level of a relationship between a User and object that it is related to',
    fields: () => ({
      integerValue: { type: gql.int, description: 'Integer representation of access level.', resolve: (level: number) => level },
      stringValue: { type: g.type('AccessLevelEnum'), description: 'String representation of access level.', resolve: (level: number) => LEVELS[level]?.[0] ?? null },
      humanAccess: { type: string, description: 'Human-readable display name for the access level.', resolve: (level: number) => LEVELS[level]?.[1] ?? null },
    }),
  });
  /** Who an entry names: a role (accessLevel), a user or a group, each read through its REST use case. */
  const entryFields = () => ({
    accessLevel: { type: g.object('AccessLevel'), description: 'Role details. Present if it is role specific access control.', resolve: (e: DeployAccessLevelEntity) => e.access_level },
    user: { type: g.object('UserCore'), description: 'User details. Present if it is user specific access control.', resolve: (e: DeployAccessLevelEntity, _a: unknown, ctx: Ctx) => (e.user_id === null ? null : orNull(getUser(ctx, e.user_id))) },
    group: { type: g.object('Group'), description: 'Group details. Present if it is group specific access control.', resolve: (e: DeployAccessLevelEntity, _a: unknown, ctx: Ctx) => (e.group_id === null ? null : groupByPath(ctx, String(e.group_id))) },
  });
  g.defineObject('ProtectedEnvironmentDeployAccessLevel', { description: 'Which group, user or role is allowed to execute deployments to the environment.', fields: entryFields });
  g.defineObject('ProtectedEnvironmentApprovalRule', {
    description: 'Which group, user or role is allowed to approve deployments to the environment.',
    fields: () => ({ ...entryFields(), requiredApprovals: from(int, 'required_approvals', 'Number of required approvals.') }),
  });
  g.defineObject('ProtectedEnvironment', {
    description: 'Protected Environments of the environment.',
    fields: () => ({
      name: from(string, 'name', "Name of the environment if it's a project-level protected environment. Tier of the environment if it's a group-level protected environment."),
      project: { type: g.object('Project'), description: "Project details. Present if it's project-level protected environment.", resolve: (p: EnvironmentProtectionEntity, _a: unknown, ctx: Ctx) => (p.project_id === null ? null : projectByPath(ctx, String(p.project_id))) },
      group: { type: g.object('Group'), description: "Group details. Present if it's group-level protected environment.", resolve: (p: EnvironmentProtectionEntity, _a: unknown, ctx: Ctx) => (p.group_id === null ? null : groupByPath(ctx, String(p.group_id))) },
      deployAccessLevels: { type: g.connection('ProtectedEnvironmentDeployAccessLevel'), description: 'Which group, user or role is allowed to execute deployments to the environment.', resolve: (p: EnvironmentProtectionEntity) => gql.wholeList(p.deploy_access_levels) },
      approvalRules: { type: g.connection('ProtectedEnvironmentApprovalRule'), description: 'Which group, user or role is allowed to approve deployments to the environment.', resolve: (p: EnvironmentProtectionEntity) => gql.wholeList(p.approval_rules as ProtectedEnvironmentApprovalRuleEntity[]) },
      requiredApprovalCount: from(int, 'required_approval_count', 'Required approval count for Unified Approval Setting.'),
    }),
  });
  g.defineObject('Deployment', {
    description: 'The deployment of an environment',
    fields: () => ({
      id: gql.gid('Deployment', 'Global ID of the deployment.'),
      iid: { type: gql.id, description: 'Project-level internal ID of the deployment.', resolve: (d: Deployment) => String(d.iid) },
      ref: from(string, 'ref', 'Git-Ref that the deployment ran on.'),
      sha: from(string, 'sha', 'Git-SHA that the deployment ran on.'),
      status: from(g.type('DeploymentStatus'), 'status', 'Status of the deployment.'),
      createdAt: from(g.type('Time'), 'created_at', 'When the deployment record was created.'),
      updatedAt: from(g.type('Time'), 'updated_at', 'When the deployment record was updated.'),
      triggerer: from(g.object('UserCore'), 'user', 'User who executed the deployment.'),
      job: from(g.object('CiJob'), 'deployable', 'Pipeline job of the deployment.'),
    }),
  });
  g.defineObject('Environment', {
    description: 'Describes where code is deployed for a project',
    fields: () => ({
      id: gql.gid('Environment', 'ID of the environment.'),
      name: from(nn(string), 'name', 'Human-readable name of the environment.'),
      slug: from(string, 'slug', 'Slug of the environment.'),
      externalUrl: from(string, 'external_url', 'External URL of the environment.'),
      state: from(nn(string), 'state', 'State of the environment, for example: available/stopped.'),
      tier: from(g.type('DeploymentTier'), 'tier', 'Deployment tier of the environment.'),
      description: from(string, 'description', 'Description of the environment.'),
      autoStopAt: from(g.type('Time'), 'auto_stop_at', 'When the environment is going to be stopped automatically.'),
      autoStopSetting: { type: string, description: 'Auto stop setting of the environment.', resolve: (e: Environment) => e.auto_stop_setting.toUpperCase() },
      createdAt: from(g.type('Time'), 'created_at', 'When the environment was created.'),
      updatedAt: from(g.type('Time'), 'updated_at', 'When the environment was updated.'),
      path: { type: nn(string), description: 'Path to the environment.', resolve: (e: Environment) => `/${e.project_path}/-/environments/${e.id}` },
      environmentType: { type: string, description: 'Folder name of the environment.', resolve: (e: Environment) => (e.name.includes('/') ? e.name.split('/')[0]! : null) },
      lastDeployment: {
        type: g.object('Deployment'),
        description: 'Last deployment of the environment.',
        args: { status: { type: nn(g.input('DeploymentStatus')), description: 'Status of the Deployment.' } },
        resolve: async (e: Environment, args: { status: string }, ctx: Ctx) => {
          const input = parseParams(ListDeploymentsInput, { id: String(e.project_id), environment: e.name, status: args.status, order_by: 'id', sort: 'desc' });
          const page = await visibleConnection(resolveConnection({ first: 1 }, async (p) => {
            const answer = await listDeployments(ctx, { ...input, ...p });
            return { ...answer, items: answer.items.map((d): Deployment => ({ ...d, project_id: e.project_id })) };
          }));
          return page.nodes[0] ?? null;
        },
      },
      protectedEnvironments: {
        type: g.connection('ProtectedEnvironment'),
        description: 'Protected Environments for the environment.',
        // At most one project-level protection and one per ancestor group: the whole list.
        resolve: async (e: Environment, _a: unknown, ctx: Ctx) => gql.wholeList((await orNull(listEnvironmentProtections(ctx, { id: String(e.project_id), environment_id: e.id }))) ?? []),
      },
      deployments: {
        type: g.connection('Deployment'),
        description: 'Deployments of the environment. This field can only be resolved for one environment in any single request.',
        args: {
          ...connectionArgs,
          statuses: { type: gql.list(g.input('DeploymentStatus')), description: 'Statuses of the deployments.' },
          orderBy: { type: g.input('DeploymentsOrderByInput'), description: 'Order by a specified field.' },
        },
        resolve: (e: Environment, args: ConnectionArgs & { statuses?: string[] | null; orderBy?: DeploymentOrder | null }, ctx: Ctx) => deploymentsOf(ctx, e, args),
      },
    }),
  });
  const listEnvs = (ctx: Ctx, project: { id: number; path_with_namespace: string }, args: ConnectionArgs & { name?: string | null; search?: string | null; states?: string[] | null }) => {
    const input = parseParams(ListEnvironmentsInput, { id: String(project.id), ...gql.given({ name: args.name, search: args.search, states: args.states?.[0] }) });
    return visibleConnection(
      resolveConnection(args, async (page) => {
        const answer = await listEnvironments(ctx, { ...input, ...page });
        return { ...answer, items: answer.items.map((e): Environment => ({ ...e, project_id: project.id, project_path: project.path_with_namespace })) };
      }),
    );
  };
  const envArgs = {
    name: { type: string, description: 'Name of the environment.' },
    search: { type: string, description: 'Search query for environment name.' },
    states: { type: gql.list(string), description: 'States of environments that should be included in result.' },
  };
  g.extend('Project', () => ({
    environments: {
      type: g.connection('Environment'),
      description: 'Environments of the project. This field can only be resolved for one project in any single request.',
      args: { ...connectionArgs, ...envArgs },
      resolve: (project: { id: number; path_with_namespace: string }, args: ConnectionArgs & { name?: string | null; search?: string | null; states?: string[] | null }, ctx: Ctx) => listEnvs(ctx, project, args),
    },
    environment: {
      type: g.object('Environment'),
      description: 'A single environment of the project.',
      args: envArgs,
      resolve: async (project: { id: number; path_with_namespace: string }, args: { name?: string | null; search?: string | null; states?: string[] | null }, ctx: Ctx) =>
        (await listEnvs(ctx, project, { ...args, first: 1 })).nodes[0] ?? null,
    },
  }));
};
