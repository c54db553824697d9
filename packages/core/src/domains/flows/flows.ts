/**
 * Agent flows (GitLab's Duo Workflows): creation with the trigger attributes and their rules,
 * the status machine driven by `status_event`, checkpoints (the agent's saved state, its chat
 * log in `channel_values.ui_chat_log`), the JSON Lines trace, and the CI workload an executor
 * takes through the runner API with a token limited to the flow's privileges.
 */
import type { Kysely } from 'kysely';
import type { Ctx, ForgeConfig } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import { digestToken, randomToken } from '../../kernel/ids.js';
import { paginate, type Page } from '../../kernel/pagination.js';
import type { InferShape } from '../../kernel/params.js';
import { authorize, requireUser } from '../../access/policy.js';
import type { Database } from '../../storage/database.js';
import { isPostgres } from '../../storage/migrations/helpers.js';
import { findGroup, findProject } from '../../access/lookup.js';
import type { NamespaceRow } from '../../access/namespace.table.js';
import type { ProjectRow } from '../../access/project.table.js';
import { lockPipeline, noteJob, pipelineChange, processPipeline } from '../ci/index.js';
import { CANCELABLE_STATUSES, COMPLETED_STATUSES } from '../ci/index.js';
import { createWorkloadIn } from '../ci/index.js';
import { emitFlowEvent } from './callbacks.js';
import { catalogVersionForFlow, consumedFlow, type ConsumedFlow } from '../ai-catalog/index.js';
import type { AiFlowCheckpointRow, AiFlowRow } from './flows.table.js';
import type { CreateCheckpointInput, CreateFlowInput, ListCheckpointsInput, StatusEvent, TraceInput, UpdateFlowInput } from './flows.schema.js';

export interface AgentPrivilege {
  id: number;
  name: string;
  description: string;
  default_enabled: boolean;
}

export const AGENT_PRIVILEGES: AgentPrivilege[] = [
  { id: 1, name: 'read_write_files', description: 'Allow local filesystem read/write access', default_enabled: true },
  { id: 2, name: 'read_only_platform', description: 'Allow read only access to the platform APIs', default_enabled: true },
  { id: 3, name: 'read_write_platform', description: 'Allow write access to the platform APIs', default_enabled: true },
  { id: 4, name: 'run_commands', description: 'Allow running any commands', default_enabled: true },
  { id: 5, name: 'use_git', description: 'Allow git commits, push and other git commands', default_enabled: true },
  { id: 6, name: 'run_mcp_tools', description: 'Allow running MCP tools', default_enabled: true },
];
const PRIVILEGE_NAMES = new Map(AGENT_PRIVILEGES.map((p) => [p.id, p.name]));
const ALL_PRIVILEGE_IDS = AGENT_PRIVILEGES.map((p) => p.id);
/** GitLab's database default for pre-approved privileges (read/write files, read-only API). */
const DEFAULT_PRE_APPROVED = [1, 2];

export const READ_ONLY_PLATFORM = 2;
export const READ_WRITE_PLATFORM = 3;
export const RUN_MCP_TOOLS = 6;
/** Scope of flow tokens: the flow API only, plus what the privileges allow. */
export const FLOW_TOKEN_SCOPE = 'ai_workflows';
export const FLOW_PIPELINE_SOURCE = 'duo_workflow';
export const FLOW_JOB_NAME = 'agent_flow';

export const TERMINAL_STATUSES = ['finished', 'failed', 'stopped'];
const WAITING = ['paused', 'input_required', 'plan_approval_required', 'tool_call_approval_required'];
const ACTIVE = ['created', 'running', ...WAITING];

/** GitLab's workflow state machine: event → (from states → to state). */
export const TRANSITIONS: Record<StatusEvent, { from: string[]; to: string }> = {
  start: { from: ['created'], to: 'running' },
  pause: { from: ['running'], to: 'paused' },
  require_input: { from: ['running'], to: 'input_required' },
  require_plan_approval: { from: ['running'], to: 'plan_approval_required' },
  require_tool_call_approval: { from: ['running'], to: 'tool_call_approval_required' },
  resume: { from: WAITING, to: 'running' },
  retry: { from: ['running', 'stopped', 'failed'], to: 'running' },
  finish: { from: ['running'], to: 'finished' },
  drop: { from: ACTIVE, to: 'failed' },
  stop: { from: ACTIVE, to: 'stopped' },
};

/** The lifecycle event a transition emits, if any. */
function eventOf(from: string, to: string): 'flow.started' | 'flow.completed' | 'flow.failed' | null {
  if (from === 'created' && to === 'running') return 'flow.started';
  if (to === 'finished') return 'flow.completed';
  if (to === 'failed') return 'flow.failed';
  return null;
}

export interface FlowEntity {
  id: number;
  project_id: number | null;
  namespace_id: number | null;
  agent_privileges: number[];
  agent_privileges_names: string[];
  pre_approved_agent_privileges: number[];
  pre_approved_agent_privileges_names: string[];
  workflow_definition: string | null;
  status: string;
  allow_agent_to_request_user: boolean;
  image: string | null;
  environment: string | null;
  ai_catalog_item_version_id: number | null;
  mcp_enabled: boolean;
  instance_url: string;
  summary: string;
  title: string;
  workload?: { id: string | null; message: string | null };
}

export function presentFlow(ctx: { config: Pick<ForgeConfig, 'externalUrl'> }, row: AiFlowRow): FlowEntity {
  const privileges = JSON.parse(row.agent_privileges) as number[];
  const preApproved = JSON.parse(row.pre_approved_agent_privileges) as number[];
  return {
    id: row.id,
    project_id: row.project_id,
    namespace_id: row.namespace_id,
    agent_privileges: privileges,
    agent_privileges_names: privileges.map((p) => PRIVILEGE_NAMES.get(p) ?? String(p)),
    pre_approved_agent_privileges: preApproved,
    pre_approved_agent_privileges_names: preApproved.map((p) => PRIVILEGE_NAMES.get(p) ?? String(p)),
    workflow_definition: row.workflow_definition,
    status: row.status,
    allow_agent_to_request_user: row.allow_agent_to_request_user === 1,
    image: row.image,
    environment: row.environment,
    ai_catalog_item_version_id: row.ai_catalog_item_version_id,
    mcp_enabled: row.mcp_enabled === 1,
    instance_url: ctx.config.externalUrl,
    summary: row.summary,
    title: row.title,
  };
}

function checkPrivileges(field: string, label: string, list: number[]): void {
  for (const p of list) if (!PRIVILEGE_NAMES.has(p)) throw new BadRequestError(`${label} contains an invalid value ${p}`);
  void field;
}

/** Each element: an object with string `Category` and `Content`, the content valid serialized JSON. */
function checkAdditionalContext(list: unknown[]): void {
  list.forEach((el, i) => {
    const at = `additional_context[${i}]`;
    if (el === null || typeof el !== 'object' || Array.isArray(el)) throw new ValidationError([{ field: at, message: 'is invalid' }]);
    const o = el as Record<string, unknown>;
    for (const key of ['Category', 'Content']) {
      if (o[key] === undefined || o[key] === null) throw new ValidationError([{ field: `${at}[${key}]`, message: 'is missing' }]);
      if (typeof o[key] !== 'string') throw new ValidationError([{ field: `${at}[${key}]`, message: 'is invalid' }]);
    }
    try {
      JSON.parse(o.Content as string);
    } catch {
      throw new ValidationError([{ field: `${at}[Content]`, message: 'must hold valid serialized JSON' }]);
    }
  });
}

/** The namespace a flow runs in: a group the caller may run flows in, or the caller's own namespace. */
async function flowNamespace(ctx: Ctx, ref: string): Promise<NamespaceRow> {
  const user = requireUser(ctx);
  const numeric = /^\d+$/.test(ref);
  const q = ctx.db.selectFrom('namespaces').selectAll();
  const ns = numeric ? await q.where('id', '=', Number(ref)).executeTakeFirst() : await q.where('full_path', '=', ref).executeTakeFirst();
  if (ns && ns.kind === 'user') {
    if (ns.owner_id === user.id || ctx.actor.isAdmin) return ns;
    throw new NotFoundError('Namespace');
  }
  const group = await findGroup(ctx, ref).catch(() => {
    throw new NotFoundError('Namespace');
  });
  await authorize(ctx, 'create_agent_flow', { kind: 'group', group });
  return group;
}

export type CreateFlowParams = InferShape<typeof CreateFlowInput.shape>;

/** The executor's flow configuration schema for catalog flows (GitLab's `flow_config_schema_version`). */
const CATALOG_FLOW_CONFIG_SCHEMA_VERSION = 'v1';

/**
 * What a flow started from a catalog item consumer takes from the consumed version, as GitLab's
 * Ai::Catalog::ExecuteWorkflowService sets it: the definition as the executor's flow config,
 * workflow_definition `ai_catalog_agent`, environment `web`, every privilege pre-approved, and
 * the item's description as the goal when none is given.
 */
function catalogFlowSettings(consumed: ConsumedFlow) {
  return {
    flowConfig: JSON.stringify(consumed.version.definition),
    workflowDefinition: 'ai_catalog_agent',
    environment: 'web',
    agentPrivileges: ALL_PRIVILEGE_IDS,
    preApprovedAgentPrivileges: ALL_PRIVILEGE_IDS,
    goal: consumed.item.description,
  };
}

export async function createFlow(ctx: Ctx, input: CreateFlowParams): Promise<FlowEntity> {
  const user = requireUser(ctx);
  let project: ProjectRow | null = null;
  let namespace: NamespaceRow | null = null;
  if (input.project_id !== undefined) {
    project = await findProject(ctx, input.project_id);
    await authorize(ctx, 'create_agent_flow', { kind: 'project', project });
  } else if (input.namespace_id !== undefined) {
    namespace = await flowNamespace(ctx, input.namespace_id);
  }
  for (const key of ['issue_id', 'merge_request_id', 'ai_catalog_item_consumer_id'] as const) {
    if (input[key] !== undefined && !project) throw new BadRequestError(`${key} requires project_id`);
  }
  const requestedPrivileges = input.agent_privileges ?? ALL_PRIVILEGE_IDS;
  checkPrivileges('agent_privileges', 'Agent privileges', requestedPrivileges);
  const requestedPreApproved = input.pre_approved_agent_privileges ?? DEFAULT_PRE_APPROVED.filter((p) => requestedPrivileges.includes(p));
  checkPrivileges('pre_approved_agent_privileges', 'Pre approved agent privileges', requestedPreApproved);
  for (const p of requestedPreApproved) {
    if (!requestedPrivileges.includes(p)) throw new BadRequestError(`Pre approved agent privileges contains privilege ${p} not present in agent_privileges`);
  }
  const context = input.additional_context ?? [];
  checkAdditionalContext(context);
  if (project && input.issue_id !== undefined) {
    const issue = await ctx.db.selectFrom('issues').select('id').where('project_id', '=', project.id).where('iid', '=', input.issue_id).executeTakeFirst();
    if (!issue) throw new NotFoundError('Issue');
  }
  if (project && input.merge_request_id !== undefined) {
    const mr = await ctx.db.selectFrom('merge_requests').select('id').where('project_id', '=', project.id).where('iid', '=', input.merge_request_id).executeTakeFirst();
    if (!mr) throw new NotFoundError('Merge Request');
  }
  if (input.callback_hook_id !== undefined) {
    const hook = await ctx.db.selectFrom('ai_flow_callbacks').select('id').where('id', '=', input.callback_hook_id).executeTakeFirst();
    if (!hook) throw new ValidationError([{ field: 'callback_hook_id', message: 'does not have a valid value' }]);
  }
  // A catalog item consumer decides the flow's configuration (a workflow_definition given with it
  // is ignored): it must be enabled for this project, and its flow's version is recorded.
  const consumed = project && input.ai_catalog_item_consumer_id !== undefined ? await consumedFlow(ctx, input.ai_catalog_item_consumer_id, project) : null;
  const version = consumed ? consumed.version : input.ai_catalog_item_version_id !== undefined ? await catalogVersionForFlow(ctx, input.ai_catalog_item_version_id) : null;
  const catalog = consumed && catalogFlowSettings(consumed);
  const privileges = catalog?.agentPrivileges ?? requestedPrivileges;
  const preApproved = catalog?.preApprovedAgentPrivileges ?? requestedPreApproved;
  const definition = catalog?.workflowDefinition ?? input.workflow_definition ?? null;
  const goal = input.goal ?? catalog?.goal ?? null;
  const now = nowIso(ctx);
  const title = (goal ?? definition ?? 'Agent flow').split('\n')[0]!.slice(0, 255);
  const row = {
    user_id: user.id,
    project_id: project?.id ?? null,
    // A project flow reports namespace_id null (GitLab sets it only for namespace flows).
    namespace_id: project ? null : namespace!.id,
    status: 'created',
    workflow_definition: definition,
    goal,
    agent_privileges: JSON.stringify(privileges),
    pre_approved_agent_privileges: JSON.stringify(preApproved),
    allow_agent_to_request_user: input.allow_agent_to_request_user === false ? 0 : 1,
    shallow_clone: input.shallow_clone === false ? 0 : 1,
    image: input.image ?? null,
    environment: catalog?.environment ?? input.environment ?? null,
    source: input.source ?? null,
    source_branch: input.source_branch ?? null,
    issue_iid: input.issue_id ?? null,
    merge_request_iid: input.merge_request_id ?? null,
    ai_catalog_item_version_id: version?.id ?? null,
    ai_catalog_item_consumer_id: consumed?.consumer.id ?? null,
    flow_config: catalog?.flowConfig ?? null,
    additional_context: JSON.stringify(context),
    mcp_enabled: privileges.includes(RUN_MCP_TOOLS) ? 1 : 0,
    title,
    summary: '',
    callback_id: input.callback_hook_id ?? null,
    created_at: now,
    updated_at: now,
  };
  let workload: { id: string | null; message: string | null } = { id: null, message: null };
  const flow = await ctx.db.transaction().execute(async (trx) => {
    let flow = await trx.insertInto('ai_flows').values(row).returningAll().executeTakeFirstOrThrow();
    if (input.start_workflow) {
      if (!project) workload = { id: null, message: 'Starting a flow in CI requires project_id' };
      else if (project.jobs_enabled === 0) workload = { id: null, message: 'CI/CD is disabled for the project' };
      else {
        const started = await startWorkload(trx, ctx, flow, project, now);
        workload = { id: String(started.jobId), message: 'Workload started' };
        flow = await transitionIn(trx, ctx, flow, 'start', now);
      }
    }
    return flow;
  });
  return { ...presentFlow(ctx, flow), workload };
}

/**
 * The pipeline and job the executor takes, with the flow's inputs as job variables and its token
 * (a fresh one: the flow's previous token, if any, is revoked).
 */
async function startWorkload(trx: Kysely<Database>, ctx: Ctx, flow: AiFlowRow, project: ProjectRow, now: string): Promise<{ jobId: number }> {
  if (flow.access_token_id !== null) await trx.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', flow.access_token_id).execute();
  const privileges = JSON.parse(flow.agent_privileges) as number[];
  const scopes = [FLOW_TOKEN_SCOPE];
  if (privileges.includes(READ_WRITE_PLATFORM)) scopes.push('api');
  else if (privileges.includes(READ_ONLY_PLATFORM)) scopes.push('read_api');
  const token = randomToken('glpat-');
  const expires = new Date(ctx.clock.now().getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
  const tokenRow = await trx
    .insertInto('access_tokens')
    .values({
      user_id: flow.user_id,
      name: `Agent flow ${flow.id}`,
      description: `Token of agent flow ${flow.id}, limited to its privileges; revoked when the flow ends`,
      token_digest: digestToken(token),
      scopes: JSON.stringify(scopes),
      expires_at: expires,
      revoked: 0,
      last_used_at: null,
      resource_kind: null,
      resource_id: null,
      access_level: null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const names = (list: string) => (JSON.parse(list) as number[]).map((p) => PRIVILEGE_NAMES.get(p)).join(',');
  const { pipeline, job } = await createWorkloadIn(
    trx,
    ctx,
    {
      project,
      branch: flow.source_branch,
      source: FLOW_PIPELINE_SOURCE,
      userId: flow.user_id,
      jobName: FLOW_JOB_NAME,
      script: ['forgelet flow-executor'],
      image: flow.image,
      variables: [
        { key: 'DUO_WORKFLOW_WORKFLOW_ID', value: String(flow.id) },
        { key: 'DUO_WORKFLOW_DEFINITION', value: flow.workflow_definition ?? '' },
        { key: 'DUO_WORKFLOW_AGENT_PRIVILEGES', value: names(flow.agent_privileges) },
        { key: 'DUO_WORKFLOW_PRE_APPROVED_AGENT_PRIVILEGES', value: names(flow.pre_approved_agent_privileges) },
        { key: 'DUO_WORKFLOW_ALLOW_AGENT_TO_REQUEST_USER', value: flow.allow_agent_to_request_user ? 'true' : 'false' },
        { key: 'DUO_WORKFLOW_SHALLOW_CLONE', value: flow.shallow_clone ? 'true' : 'false' },
        { key: 'DUO_WORKFLOW_SOURCE_BRANCH', value: flow.source_branch ?? project.default_branch ?? '' },
        ...(flow.issue_iid !== null ? [{ key: 'DUO_WORKFLOW_ISSUE_IID', value: String(flow.issue_iid) }] : []),
        ...(flow.merge_request_iid !== null ? [{ key: 'DUO_WORKFLOW_MERGE_REQUEST_IID', value: String(flow.merge_request_iid) }] : []),
        ...(flow.environment ? [{ key: 'DUO_WORKFLOW_ENVIRONMENT', value: flow.environment }] : []),
        ...(flow.flow_config !== null
          ? [
              { key: 'DUO_WORKFLOW_FLOW_CONFIG', value: flow.flow_config },
              { key: 'DUO_WORKFLOW_FLOW_CONFIG_SCHEMA_VERSION', value: CATALOG_FLOW_CONFIG_SCHEMA_VERSION },
            ]
          : []),
      ],
      secretVariables: [
        { key: 'DUO_WORKFLOW_GOAL', value: flow.goal ?? '' },
        { key: 'DUO_WORKFLOW_ADDITIONAL_CONTEXT', value: flow.additional_context },
        { key: 'GITLAB_OAUTH_TOKEN', value: token },
      ],
    },
    now,
  );
  await trx.updateTable('ai_flows').set({ pipeline_id: pipeline.id, job_id: job.id, access_token_id: tokenRow.id }).where('id', '=', flow.id).execute();
  return { jobId: job.id };
}

type Lifecycle = 'flow.started' | 'flow.completed' | 'flow.failed';

/**
 * Moves the flow by `event` inside `trx` (a conditional update on the status it was read with);
 * a terminal status revokes its token. Null when the status changed meanwhile. Emits nothing:
 * the caller delivers the returned lifecycle event.
 */
export async function applyTransition(
  trx: Kysely<Database>,
  flow: AiFlowRow,
  event: StatusEvent,
  now: string,
  extra: { summary?: string } = {},
): Promise<{ updated: AiFlowRow; lifecycle: Lifecycle | null } | null> {
  const rule = TRANSITIONS[event];
  const done = await trx
    .updateTable('ai_flows')
    .set({ status: rule.to, updated_at: now, ...(extra.summary !== undefined ? { summary: extra.summary } : {}) })
    .where('id', '=', flow.id)
    .where('status', '=', flow.status)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) return null;
  const updated = await trx.selectFrom('ai_flows').selectAll().where('id', '=', flow.id).executeTakeFirstOrThrow();
  if (TERMINAL_STATUSES.includes(rule.to) && updated.access_token_id !== null) {
    await trx.updateTable('access_tokens').set({ revoked: 1 }).where('id', '=', updated.access_token_id).execute();
  }
  return { updated, lifecycle: eventOf(flow.status, rule.to) };
}

function checkTransition(flow: AiFlowRow, event: StatusEvent): void {
  if (!TRANSITIONS[event].from.includes(flow.status)) throw new BadRequestError(`Can not ${event} workflow that has status ${flow.status}`);
}

/** Applies a status event inside `trx`: 400 on an illegal move; emits the lifecycle event. */
async function transitionIn(trx: Kysely<Database>, ctx: Ctx, flow: AiFlowRow, event: StatusEvent, now: string): Promise<AiFlowRow> {
  checkTransition(flow, event);
  const moved = await applyTransition(trx, flow, event, now);
  if (!moved) throw new BadRequestError(`Can not ${event} workflow that has status changed concurrently`);
  const { updated, lifecycle } = moved;
  if (lifecycle && updated.callback_id !== null) await emitFlowEvent(trx, ctx, updated, lifecycle, presentFlow(ctx, updated), now);
  return updated;
}

/**
 * The caller's own flow; others' flows are 404. A flow token (scope `ai_workflows` without
 * `api`) reaches only the flow it was minted for.
 */
export async function loadFlow(ctx: Ctx, id: number): Promise<AiFlowRow> {
  const user = requireUser(ctx);
  const flow = await ctx.db.selectFrom('ai_flows').selectAll().where('id', '=', id).where('user_id', '=', user.id).executeTakeFirst();
  if (!flow) throw new NotFoundError(null, { exact: '404 Not found' });
  const token = ctx.actor.token;
  if (token && token.kind !== 'job' && token.scopes.includes(FLOW_TOKEN_SCOPE) && !token.scopes.includes('api') && flow.access_token_id !== token.id) {
    throw new NotFoundError(null, { exact: '404 Not found' });
  }
  return flow;
}

export async function getFlow(ctx: Ctx, id: number): Promise<FlowEntity> {
  return presentFlow(ctx, await loadFlow(ctx, id));
}

export async function updateFlowStatus(ctx: Ctx, input: InferShape<typeof UpdateFlowInput.shape>): Promise<FlowEntity> {
  const flow = await loadFlow(ctx, input.id);
  const now = nowIso(ctx);
  if (input.status_event === 'retry' && flow.pipeline_id !== null && flow.project_id !== null) {
    const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', flow.project_id).executeTakeFirst();
    if (project) return retryInCi(ctx, flow, project, now);
  }
  const updated = await ctx.db.transaction().execute((trx) => transitionIn(trx, ctx, flow, input.status_event, now));
  return presentFlow(ctx, updated);
}

/**
 * `retry` of a flow that runs in CI (it had a workload): unless its workload job is still live
 * and its token alive (the flow is running), a fresh pipeline and job with a fresh token, as
 * `start_workflow` makes, in the transaction of the status change. A live job of a stopped or
 * failed flow (its token already revoked, so the executor there cannot go on) is canceled first.
 * With CI/CD disabled nothing moves and the response says so, as on creation.
 */
async function retryInCi(ctx: Ctx, flow: AiFlowRow, project: ProjectRow, now: string): Promise<FlowEntity> {
  await authorize(ctx, 'create_agent_flow', { kind: 'project', project });
  let workload: { id: string | null; message: string | null } = { id: null, message: null };
  const updated = await ctx.db.transaction().execute(async (trx) => {
    // The workload's pipeline, then the flow: the order CI processing takes them in (PostgreSQL).
    await lockPipeline(trx, flow.pipeline_id!);
    let lockQuery = trx.selectFrom('ai_flows').selectAll().where('id', '=', flow.id);
    if (isPostgres(trx)) lockQuery = lockQuery.forUpdate();
    const current = await lockQuery.executeTakeFirstOrThrow();
    checkTransition(current, 'retry');
    const job = current.job_id !== null ? await trx.selectFrom('ci_jobs').selectAll().where('id', '=', current.job_id).executeTakeFirst() : undefined;
    const live = job !== undefined && job.retried === 0 && !COMPLETED_STATUSES.includes(job.status);
    if (live && current.status === 'running') {
      workload = { id: String(job.id), message: 'Workload already running' };
      return transitionIn(trx, ctx, current, 'retry', now);
    }
    if (project.jobs_enabled === 0) {
      workload = { id: null, message: 'CI/CD is disabled for the project' };
      return current;
    }
    if (live) {
      if (job.pipeline_id !== flow.pipeline_id) await lockPipeline(trx, job.pipeline_id);
      const canceled = await trx
        .updateTable('ci_jobs')
        .set({ status: 'canceled', finished_at: now, updated_at: now })
        .where('id', '=', job.id)
        .where('status', 'in', CANCELABLE_STATUSES)
        .executeTakeFirst();
      if (Number(canceled.numUpdatedRows) > 0) {
        const change = pipelineChange(ctx);
        noteJob(change, job.id, job.status);
        await processPipeline(trx, job.pipeline_id, now, change);
      }
    }
    const started = await startWorkload(trx, ctx, current, project, now);
    workload = { id: String(started.jobId), message: 'Workload started' };
    const restarted = await trx.selectFrom('ai_flows').selectAll().where('id', '=', flow.id).executeTakeFirstOrThrow();
    return transitionIn(trx, ctx, restarted, 'retry', now);
  });
  return { ...presentFlow(ctx, updated), workload };
}

export interface CheckpointEntity {
  id: number;
  thread_ts: string;
  parent_ts: string | null;
  checkpoint: unknown;
  metadata: unknown;
}

function presentCheckpoint(row: AiFlowCheckpointRow): CheckpointEntity {
  return { id: row.id, thread_ts: row.thread_ts, parent_ts: row.parent_ts, checkpoint: JSON.parse(row.checkpoint), metadata: JSON.parse(row.metadata) };
}

export async function createCheckpoint(ctx: Ctx, input: InferShape<typeof CreateCheckpointInput.shape>): Promise<CheckpointEntity> {
  const flow = await loadFlow(ctx, input.id);
  if (input.checkpoint === null || typeof input.checkpoint !== 'object' || Array.isArray(input.checkpoint)) {
    throw new ValidationError([{ field: 'checkpoint', message: 'is invalid' }]);
  }
  if (input.metadata !== undefined && (input.metadata === null || typeof input.metadata !== 'object' || Array.isArray(input.metadata))) {
    throw new ValidationError([{ field: 'metadata', message: 'is invalid' }]);
  }
  if (TERMINAL_STATUSES.includes(flow.status) && ctx.actor.token?.scopes.includes(FLOW_TOKEN_SCOPE) === true) throw new ForbiddenError();
  const now = nowIso(ctx);
  const row = await ctx.db
    .insertInto('ai_flow_checkpoints')
    .values({
      flow_id: flow.id,
      thread_ts: input.thread_ts,
      parent_ts: input.parent_ts ?? null,
      checkpoint: JSON.stringify(input.checkpoint),
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await ctx.db.updateTable('ai_flows').set({ updated_at: now }).where('id', '=', flow.id).execute();
  return presentCheckpoint(row);
}

export async function listCheckpoints(ctx: Ctx, input: InferShape<typeof ListCheckpointsInput.shape>): Promise<Page<CheckpointEntity>> {
  const flow = await loadFlow(ctx, input.id);
  const query = ctx.db.selectFrom('ai_flow_checkpoints').selectAll().where('flow_id', '=', flow.id).orderBy('id', 'desc');
  return paginate(ctx.db, query, input, (rows) => rows.map(presentCheckpoint));
}

/** The chat log a checkpoint holds (`channel_values.ui_chat_log`). */
function chatLogOf(row: AiFlowCheckpointRow): unknown[] {
  const cp = JSON.parse(row.checkpoint) as { channel_values?: { ui_chat_log?: unknown } };
  const log = cp?.channel_values?.ui_chat_log;
  return Array.isArray(log) ? log : [];
}

/**
 * The trace as JSON Lines: `thread` omitted, every entry once (a checkpoint carrying its
 * parent's log plus new entries contributes only the new ones); `latest`, the most recent
 * checkpoint's log; a thread id, the log of the checkpoint with that `thread_ts`.
 */
export async function flowTrace(ctx: Ctx, input: InferShape<typeof TraceInput.shape>): Promise<string> {
  const flow = await loadFlow(ctx, input.workflow_id);
  const base = ctx.db.selectFrom('ai_flow_checkpoints').selectAll().where('flow_id', '=', flow.id);
  let entries: unknown[] = [];
  if (input.thread === 'latest') {
    const last = await base.orderBy('id', 'desc').limit(1).executeTakeFirst();
    entries = last ? chatLogOf(last) : [];
  } else if (input.thread !== undefined) {
    const row = await base.where('thread_ts', '=', input.thread).orderBy('id', 'desc').limit(1).executeTakeFirst();
    entries = row ? chatLogOf(row) : [];
  } else {
    const rows = await base.orderBy('id').execute();
    const lengths = new Map<string, unknown[]>();
    for (const row of rows) {
      const log = chatLogOf(row);
      const parent = row.parent_ts !== null ? lengths.get(row.parent_ts) : undefined;
      const isExtension = parent !== undefined && parent.length <= log.length && parent.every((e, i) => JSON.stringify(e) === JSON.stringify(log[i]));
      entries.push(...(isExtension ? log.slice(parent.length) : log));
      lengths.set(row.thread_ts, log);
    }
  }
  return entries.map((e) => `${JSON.stringify(e)}\n`).join('');
}

/** The flow whose workload is this CI job (for the executor and CI hooks). */
export async function flowOfJob(db: Kysely<Database>, jobId: number): Promise<AiFlowRow | undefined> {
  return db.selectFrom('ai_flows').selectAll().where('job_id', '=', jobId).executeTakeFirst();
}
