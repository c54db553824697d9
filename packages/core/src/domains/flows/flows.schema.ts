import { paginationParams } from '../../kernel/pagination.js';
import { p, params } from '../../kernel/params.js';

export const ENVIRONMENTS = ['ide', 'web', 'chat_partial', 'chat', 'ambient'] as const;
export const STATUS_EVENTS = [
  'start', 'pause', 'resume', 'finish', 'drop', 'stop', 'retry', 'require_input', 'require_plan_approval', 'require_tool_call_approval',
] as const;
export type StatusEvent = (typeof STATUS_EVENTS)[number];

export const CreateFlowInput = params(
  {
    project_id: p.string().optional(),
    namespace_id: p.string().optional(),
    start_workflow: p.boolean().optional(),
    goal: p.string().max(16384).optional(),
    agent_privileges: p.array(p.integer()).optional(),
    pre_approved_agent_privileges: p.array(p.integer()).optional(),
    workflow_definition: p.string().optional(),
    allow_agent_to_request_user: p.boolean().optional(),
    image: p.string().max(2048).optional(),
    source_branch: p.string().optional(),
    environment: p.enum(ENVIRONMENTS).optional(),
    additional_context: p.array(p.json()).optional(),
    ai_catalog_item_consumer_id: p.integer().optional(),
    ai_catalog_item_version_id: p.integer().optional(),
    issue_id: p.integer().optional(),
    merge_request_id: p.integer().optional(),
    shallow_clone: p.boolean().optional(),
    source: p.string().optional(),
    callback_hook_id: p.integer().optional(),
  },
  { exactlyOneOf: [['project_id', 'namespace_id']] },
);

export const FlowRefInput = params({ id: p.id() });
export const TraceInput = params({ workflow_id: p.id(), thread: p.string().optional() });
export const UpdateFlowInput = params({ id: p.id(), status_event: p.enum(STATUS_EVENTS) });
export const CreateCheckpointInput = params({
  id: p.id(),
  thread_ts: p.string().nonBlank(),
  parent_ts: p.string().optional(),
  checkpoint: p.json(),
  metadata: p.json().optional(),
});
export const ListCheckpointsInput = params({ id: p.id(), ...paginationParams });

export const CreateCallbackInput = params({
  url: p.string().nonBlank(),
  name: p.string().max(255).optional(),
  signing_token: p.string().optional(),
  token: p.string().max(1024).optional(),
});
export const CallbackRefInput = params({ id: p.id() });
export const ListCallbacksInput = params({ ...paginationParams });
export const ListDeliveriesInput = params({ id: p.id(), ...paginationParams });
export const OwnerInput = params({ user_id: p.id() });
export const ListOwnersInput = params({ ...paginationParams });
