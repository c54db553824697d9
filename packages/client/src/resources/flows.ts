import type { AgentPrivilege, CheckpointEntity, DeliveryEntity, FlowCallbackEntity, FlowEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { Requester } from '../infrastructure/requester.js';

export type FlowEnvironment = 'ide' | 'web' | 'chat_partial' | 'chat' | 'ambient';
export type FlowStatusEvent =
  | 'start' | 'pause' | 'resume' | 'finish' | 'drop' | 'stop' | 'retry' | 'require_input' | 'require_plan_approval' | 'require_tool_call_approval';

/** Trigger attributes (exactly one of project_id / namespace_id). */
export interface CreateFlowParams {
  project_id?: string | number;
  namespace_id?: string | number;
  goal?: string;
  start_workflow?: boolean;
  workflow_definition?: string;
  agent_privileges?: number[];
  pre_approved_agent_privileges?: number[];
  allow_agent_to_request_user?: boolean;
  image?: string;
  source_branch?: string;
  environment?: FlowEnvironment;
  additional_context?: { Category: string; Content: string; [key: string]: unknown }[];
  ai_catalog_item_consumer_id?: number;
  ai_catalog_item_version_id?: number;
  issue_id?: number;
  merge_request_id?: number;
  shallow_clone?: boolean;
  source?: string;
  /** A registered flow callback endpoint receiving flow.started / flow.completed / flow.failed. */
  callback_hook_id?: number;
}

export interface CreateCheckpointParams {
  thread_ts: string;
  parent_ts?: string;
  checkpoint: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface CreateFlowCallbackParams {
  /** HTTPS (plain HTTP only to loopback on instances allowing local egress). */
  url: string;
  name?: string;
  /** `whsec_` + base64 of 32 bytes: signs deliveries (Standard Webhooks). */
  signing_token?: string;
  /** Sent verbatim in `X-Service-Token`. */
  token?: string;
}

type PageParams = { page?: number; per_page?: number };

/**
 * Agent flows (`/ai/agent_workflows/...`, GitLab's Duo Workflows): create and start flows, drive
 * their status, save checkpoints, read the JSON Lines trace; flow callback endpoints
 * (organization owners) and their delivery log.
 */
export class AgentFlows {
  constructor(private readonly requester: Requester) {}

  create(params: CreateFlowParams): Promise<FlowEntity> {
    return this.requester.post('ai/agent_workflows/workflows', { ...params, ...(params.project_id !== undefined ? { project_id: String(params.project_id) } : {}), ...(params.namespace_id !== undefined ? { namespace_id: String(params.namespace_id) } : {}) });
  }

  show(flowId: number): Promise<FlowEntity> {
    return this.requester.get(endpoint`ai/agent_workflows/workflows/${flowId}`);
  }

  /** Moves the flow through its states; 400 on an illegal move. */
  async updateStatus(flowId: number, statusEvent: FlowStatusEvent): Promise<FlowEntity> {
    const r = await this.requester.send<FlowEntity>('PATCH', this.requester.url(endpoint`ai/agent_workflows/workflows/${flowId}`), { status_event: statusEvent });
    return r.data;
  }

  createCheckpoint(flowId: number, params: CreateCheckpointParams): Promise<CheckpointEntity> {
    return this.requester.post(endpoint`ai/agent_workflows/workflows/${flowId}/checkpoints`, params);
  }

  /** Newest first. */
  checkpoints(flowId: number, params: PageParams = {}): Paginated<CheckpointEntity> {
    return new Paginated(this.requester, endpoint`ai/agent_workflows/workflows/${flowId}/checkpoints`, params);
  }

  /** The chat log entries (`thread` omitted: all; `latest`; or a thread id). */
  async trace(flowId: number, params: { thread?: string } = {}): Promise<Record<string, unknown>[]> {
    const r = await this.requester.send<unknown>('GET', this.requester.url(endpoint`ai/agent_workflows/workflows/${flowId}/trace.jsonl`, params));
    // The requester parses a body whose type mentions json: a one-line trace arrives parsed.
    if (r.data === undefined || r.data === null) return [];
    if (typeof r.data !== 'string') return [r.data as Record<string, unknown>];
    return r.data.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  }

  async agentPrivileges(): Promise<AgentPrivilege[]> {
    const r = await this.requester.get<{ all_privileges: AgentPrivilege[] }>('ai/agent_workflows/workflows/agent_privileges');
    return r.all_privileges;
  }

  createCallback(params: CreateFlowCallbackParams): Promise<FlowCallbackEntity> {
    return this.requester.post('ai/agent_workflows/flow_callbacks', params);
  }

  callbacks(params: PageParams = {}): Paginated<FlowCallbackEntity> {
    return new Paginated(this.requester, 'ai/agent_workflows/flow_callbacks', params);
  }

  showCallback(callbackId: number): Promise<FlowCallbackEntity> {
    return this.requester.get(endpoint`ai/agent_workflows/flow_callbacks/${callbackId}`);
  }

  removeCallback(callbackId: number): Promise<void> {
    return this.requester.delete(endpoint`ai/agent_workflows/flow_callbacks/${callbackId}`);
  }

  /** Forgelet extension: deliveries to an endpoint with every attempt's status and error. */
  deliveries(callbackId: number, params: PageParams = {}): Paginated<DeliveryEntity> {
    return new Paginated(this.requester, endpoint`ai/agent_workflows/flow_callbacks/${callbackId}/deliveries`, params);
  }

  /** Forgelet extension (administrators): grant the default organization's Owner role. */
  addOrganizationOwner(userId: number): Promise<{ user_id: number; username: string; created_at: string }> {
    return this.requester.post('organizations/default/owners', { user_id: userId });
  }

  /** Forgelet extension (administrators): the default organization's Owners (besides administrators). */
  organizationOwners(params: PageParams = {}): Paginated<{ user_id: number; username: string; created_at: string }> {
    return new Paginated(this.requester, 'organizations/default/owners', params);
  }

  removeOrganizationOwner(userId: number): Promise<void> {
    return this.requester.delete(endpoint`organizations/default/owners/${userId}`);
  }
}
