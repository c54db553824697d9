/**
 * Agent flows in GitLab's GraphQL API: the flows list `duoWorkflowWorkflows` (GitLab lists flows
 * only there) with its type `DuoWorkflow`, and `aiDuoWorkflowCreate`. Resolvers call this
 * domain's use cases (the REST trigger's rules apply unchanged).
 */
import { GraphQLEnumType, GraphQLList, type GraphQLFieldConfigMap } from 'graphql';
import type { Ctx } from '../../access/context.js';
import { BadRequestError } from '../../kernel/errors.js';
import { getProject } from '../accounts/index.js';
import { gql, orNull, parseGlobalId, toGlobalId, type GqlContext, type GraphqlModule } from '../../kernel/graphql.js';
import { connectionArgs, resolveConnection, type ConnectionArgs } from '../../kernel/graphql-connection.js';
import { ENVIRONMENTS } from './flows.schema.js';
import { TRANSITIONS, createFlow } from './flows.js';
import { FLOW_SORTS, FLOW_STATUS_GROUPS, listFlows, type FlowFilters, type FlowRecord, type FlowSort } from './list-flows.js';

const { nn, string, int, boolean, id: idType } = gql;
const FLOW_TYPES = ['Ai::DuoWorkflows::Workflow', 'DuoWorkflow'];
const STATUSES = [...new Set(['created', ...Object.values(TRANSITIONS).flatMap((t) => [...t.from, t.to])])];

const upper = (values: readonly string[], describe: (v: string) => string) =>
  Object.fromEntries(values.map((v) => [v.toUpperCase(), { value: v, description: describe(v) }]));
const humanize = (status: string) => status.replace(/_/g, ' ');

/** The record GraphQL shows for a flow the REST use case answered. */
async function flowRecord(ctx: Ctx, id: number): Promise<FlowRecord> {
  const page = await listFlows(ctx, { ids: [id] }, { page: 1, per_page: 1 });
  return page.items[0]!;
}

export const flowsGraphql: GraphqlModule = (g) => {
  const ProjectID = g.globalId('Project');
  const NamespaceID = g.globalId('Namespace', { aliases: ['Group'] });
  const UserID = g.globalId('User');
  const WorkflowID = g.globalId(FLOW_TYPES[0]!, { aliases: FLOW_TYPES.slice(1) });
  const VersionID = g.globalId('Ai::Catalog::ItemVersion', { aliases: ['AiCatalogItemVersion'] });
  const ConsumerID = g.globalId('AiCatalogItemConsumer', { aliases: ['Ai::Catalog::ItemConsumer'] });
  const Environment = g.add(new GraphQLEnumType({ name: 'WorkflowEnvironment', description: 'The environment of a workflow.', values: upper(ENVIRONMENTS, (v) => `${v} environment`) }));
  const Status = g.add(new GraphQLEnumType({ name: 'DuoWorkflowStatus', description: 'The status of the workflow.', values: upper(STATUSES, (v) => `The workflow is ${v}.`) }));
  const StatusGroup = g.add(
    new GraphQLEnumType({
      name: 'DuoWorkflowStatusGroup',
      description: 'The status group of the flow session.',
      values: upper(Object.keys(FLOW_STATUS_GROUPS), (v) => `Flow sessions with a status group of ${v}.`),
    }),
  );
  const Sort = g.add(new GraphQLEnumType({ name: 'DuoWorkflowsWorkflowSort', description: 'Values for sorting Duo Workflows.', values: upper(FLOW_SORTS, (v) => `By ${v.replace('_', ' ')}.`) }));
  const groupOf = (status: string) => Object.entries(FLOW_STATUS_GROUPS).find(([, list]) => list.includes(status))?.[0] ?? null;

  g.defineObject('DuoWorkflow', {
    description: 'GitLab Duo Agent Platform session (an agent flow; only its user reads it)',
    fields: (): GraphQLFieldConfigMap<FlowRecord, GqlContext> => ({
      id: { type: nn(idType), description: 'ID of the session.', resolve: (f) => toGlobalId(FLOW_TYPES[0]!, f.id) },
      userId: { type: nn(UserID), description: 'ID of the user.', resolve: (f) => toGlobalId('User', f.user_id) },
      projectId: { type: ProjectID, description: 'ID of the project.', resolve: (f) => (f.project_id === null ? null : toGlobalId('Project', f.project_id)) },
      project: { type: g.type('Project'), description: 'Project that the session is in.', resolve: (f, _a, ctx) => (f.project_id === null ? null : orNull(getProject(ctx, String(f.project_id)))) },
      namespaceId: { type: NamespaceID, description: 'ID of the namespace.', resolve: (f) => (f.namespace_id === null ? null : toGlobalId('Namespace', f.namespace_id)) },
      humanStatus: { type: nn(string), description: 'Human-readable status of the session.', resolve: (f) => humanize(f.status) },
      status: { type: Status, description: 'Status of the session.' },
      statusName: { type: string, description: 'Status name of the session.', resolve: (f) => f.status },
      statusGroup: { type: StatusGroup, description: 'Status group of the flow session.', resolve: (f) => groupOf(f.status) },
      createdAt: { type: nn(g.type('Time')), description: 'Timestamp of when the session was created.', resolve: (f) => f.created_at },
      updatedAt: { type: nn(g.type('Time')), description: 'Timestamp of when the session was last updated.', resolve: (f) => f.updated_at },
      goal: { type: string, description: 'Goal of the session.' },
      workflowDefinition: { type: string, description: 'Flow type based on its capabilities.', resolve: (f) => f.workflow_definition },
      environment: { type: Environment, description: 'Environment, like IDE or web.' },
      agentPrivilegesNames: { type: new GraphQLList(string), description: 'Privileges granted to the agent during execution.', resolve: (f) => f.agent_privileges_names },
      preApprovedAgentPrivilegesNames: { type: new GraphQLList(string), description: 'Privileges pre-approved for the agent during execution.', resolve: (f) => f.pre_approved_agent_privileges_names },
      mcpEnabled: { type: boolean, description: 'Has MCP been enabled for the namespace.', resolve: (f) => f.mcp_enabled },
      allowAgentToRequestUser: { type: boolean, description: 'Allow the agent to request user input.', resolve: (f) => f.allow_agent_to_request_user },
      summary: { type: string, description: 'Summary of the session.' },
      title: { type: string, description: 'Title of the session.' },
      aiCatalogItemVersionId: {
        type: VersionID,
        description: 'ID of the AI catalog item version that triggered the workflow.',
        resolve: (f) => (f.ai_catalog_item_version_id === null ? null : toGlobalId('Ai::Catalog::ItemVersion', f.ai_catalog_item_version_id)),
      },
      resourceIid: { type: int, description: 'IID of the associated resource (issue or merge request).', resolve: (f) => f.issue_iid ?? f.merge_request_iid },
    }),
  });

  type ListArgs = ConnectionArgs & {
    projectPath?: string | null; type?: string | null; excludeTypes?: string[] | null; sort: FlowSort; environment?: string | null;
    workflowId?: string | null; ids?: string[] | null; search?: string | null; statusGroup?: string | null; updatedAfter?: string | null;
  };
  g.extend('Query', () => ({
    duoWorkflowWorkflows: {
      type: nn(g.connection('DuoWorkflow')),
      description: "List the current user's agent flows (GitLab Duo Agent Platform sessions), newest first.",
      args: {
        projectPath: { type: idType, description: 'Full path of the project that contains the flows.' },
        type: { type: string, description: 'Type of flow to filter by (for example, software_development).' },
        excludeTypes: { type: new GraphQLList(nn(string)), description: 'Types of flows to exclude (for example, ["software_development", "chat"]).' },
        sort: { type: Sort, defaultValue: 'created_desc', description: 'Sort flows by the criteria.' },
        environment: { type: Environment, description: 'Environment, for example, IDE or web.' },
        workflowId: { type: WorkflowID, description: 'Flow ID to filter by.' },
        ids: { type: new GraphQLList(nn(WorkflowID)), description: 'Filter flows by a list of IDs.' },
        search: { type: string, description: 'Flow title or goal to search for.' },
        statusGroup: { type: StatusGroup, description: 'Status group to filter flow sessions by.' },
        updatedAfter: { type: g.type('Time') as never, description: 'Filters flows updated after a given date.' },
        ...connectionArgs,
      },
      resolve: (_s, args: ListArgs, ctx) => {
        const ids = args.workflowId != null ? [parseGlobalId(args.workflowId, FLOW_TYPES)] : args.ids != null ? args.ids.map((id) => parseGlobalId(id, FLOW_TYPES)) : undefined;
        const filters: FlowFilters = {
          ...(args.projectPath != null && { projectPath: args.projectPath }),
          ...(args.type != null && { type: args.type }),
          ...(args.excludeTypes != null && { excludeTypes: args.excludeTypes }),
          ...(args.environment != null && { environment: args.environment }),
          ...(ids !== undefined && { ids }),
          ...(args.search != null && { search: args.search }),
          ...(args.statusGroup != null && { statusGroup: args.statusGroup }),
          ...(args.updatedAfter != null && { updatedAfter: new Date(args.updatedAfter).toISOString() }),
          sort: args.sort,
        };
        return resolveConnection(args, (page) => listFlows(ctx, filters, page));
      },
    },
  }));

  type CreateInput = {
    projectId?: string | null; namespaceId?: string | null; goal?: string | null; agentPrivileges?: number[] | null; preApprovedAgentPrivileges?: number[] | null;
    workflowDefinition?: string | null; allowAgentToRequestUser?: boolean | null; environment?: string | null; aiCatalogItemConsumerId?: string | null;
  };
  g.mutation('aiDuoWorkflowCreate', {
    description: "Creates an agent flow: the REST trigger's rules (Developers of the project); a catalog consumer configures it.",
    input: () => ({
      projectId: { type: ProjectID, description: 'Global ID of the project the user is acting on.' },
      namespaceId: { type: NamespaceID, description: 'Global ID of the namespace the user is acting on.' },
      goal: { type: string, description: 'Goal of the workflow.' },
      agentPrivileges: { type: new GraphQLList(nn(int)), description: 'Actions the agent is allowed to perform.' },
      preApprovedAgentPrivileges: { type: new GraphQLList(nn(int)), description: 'Actions the agent can perform without asking for approval.' },
      workflowDefinition: { type: string, description: 'Workflow type based on its capability.' },
      allowAgentToRequestUser: { type: boolean, description: 'When enabled, the flow may stop to ask the user questions before proceeding.' },
      environment: { type: Environment, description: 'Environment for the workflow.' },
      aiCatalogItemConsumerId: { type: ConsumerID, description: 'Catalog item consumer (enabled for the project) whose flow to run.' },
    }),
    payload: () => ({ workflow: { type: g.type('DuoWorkflow'), description: 'Created workflow.' } }),
    resolve: async (ctx, input: CreateInput) => {
      const flow = await createFlow(ctx, {
        ...(input.projectId != null && { project_id: String(parseGlobalId(input.projectId, ['Project'])) }),
        ...(input.namespaceId != null && { namespace_id: String(parseGlobalId(input.namespaceId, ['Namespace', 'Group'])) }),
        ...(input.goal != null && { goal: input.goal }),
        ...(input.agentPrivileges != null && { agent_privileges: input.agentPrivileges }),
        ...(input.preApprovedAgentPrivileges != null && { pre_approved_agent_privileges: input.preApprovedAgentPrivileges }),
        ...(input.workflowDefinition != null && { workflow_definition: input.workflowDefinition }),
        ...(input.allowAgentToRequestUser != null && { allow_agent_to_request_user: input.allowAgentToRequestUser }),
        ...(input.environment != null && { environment: input.environment as (typeof ENVIRONMENTS)[number] }),
        ...(input.aiCatalogItemConsumerId != null && { ai_catalog_item_consumer_id: parseGlobalId(input.aiCatalogItemConsumerId, ['AiCatalogItemConsumer', 'Ai::Catalog::ItemConsumer']) }),
      }).catch((err: unknown) => {
        // The trigger's refusals are the payload's errors, without REST's status prefix.
        if (err instanceof BadRequestError && typeof err.body.message === 'string') throw new BadRequestError([err.body.message.replace(/^400 Bad request - /, '')], { raw: true });
        throw err;
      });
      return { workflow: await flowRecord(ctx, flow.id) };
    },
  });
};
