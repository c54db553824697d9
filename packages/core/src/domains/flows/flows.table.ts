import type { Generated, Selectable } from 'kysely';

export interface AiFlowTable {
  id: Generated<number>;
  user_id: number;
  project_id: number | null;
  namespace_id: number | null;
  status: string;
  workflow_definition: string | null;
  goal: string | null;
  agent_privileges: string; // JSON integer array
  pre_approved_agent_privileges: string; // JSON integer array
  allow_agent_to_request_user: number;
  shallow_clone: number;
  image: string | null;
  environment: string | null;
  source: string | null;
  source_branch: string | null;
  issue_iid: number | null;
  merge_request_iid: number | null;
  ai_catalog_item_version_id: number | null;
  ai_catalog_item_consumer_id: number | null;
  /** The configuration (definition JSON) of the catalog item version a consumer started the flow from. */
  flow_config: Generated<string | null>;
  additional_context: string; // JSON array
  mcp_enabled: number;
  title: string;
  summary: string;
  callback_id: number | null;
  pipeline_id: number | null;
  job_id: number | null;
  access_token_id: number | null;
  created_at: string;
  updated_at: string;
}
export type AiFlowRow = Selectable<AiFlowTable>;

export interface AiFlowCheckpointTable {
  id: Generated<number>;
  flow_id: number;
  thread_ts: string;
  parent_ts: string | null;
  checkpoint: string; // JSON
  metadata: string; // JSON
  created_at: string;
}
export type AiFlowCheckpointRow = Selectable<AiFlowCheckpointTable>;

/** Owners of the default organization (besides the instance administrators). */
export interface OrganizationOwnerTable {
  user_id: number;
  created_at: string;
}

export interface AiFlowCallbackTable {
  id: Generated<number>;
  name: string | null;
  url_encrypted: string;
  signing_token_encrypted: string | null;
  token_encrypted: string | null;
  created_by_id: number | null;
  created_at: string;
}
export type AiFlowCallbackRow = Selectable<AiFlowCallbackTable>;

export interface AiFlowCallbackDeliveryTable {
  id: Generated<number>;
  callback_id: number;
  flow_id: number | null;
  event: string;
  /** Standard Webhooks `webhook-id`: the same on every attempt. */
  webhook_id: string;
  payload: string;
  status: string; // pending | delivered | failed
  attempts: Generated<number>;
  next_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}
export type AiFlowCallbackDeliveryRow = Selectable<AiFlowCallbackDeliveryTable>;

export interface AiFlowCallbackAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  attempted_at: string;
}

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    ai_flows: AiFlowTable;
    ai_flow_checkpoints: AiFlowCheckpointTable;
    organization_owners: OrganizationOwnerTable;
    ai_flow_callbacks: AiFlowCallbackTable;
    ai_flow_callback_deliveries: AiFlowCallbackDeliveryTable;
    ai_flow_callback_attempts: AiFlowCallbackAttemptTable;
  }
}
