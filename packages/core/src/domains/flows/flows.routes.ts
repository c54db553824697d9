import type { Ctx } from '../../access/context.js';
import type { Infer } from '../../kernel/params.js';
import { created, noContent, ok, paged, route, text, type Route } from '../../kernel/route.js';
import {
  addOrganizationOwner,
  createCallback,
  deleteCallback,
  getCallback,
  listCallbacks,
  listDeliveries,
  listOrganizationOwners,
  removeOrganizationOwner,
} from './callbacks.js';
import { AGENT_PRIVILEGES, createCheckpoint, createFlow, flowTrace, getFlow, listCheckpoints, updateFlowStatus } from './flows.js';
import {
  CallbackRefInput,
  CreateCallbackInput,
  CreateCheckpointInput,
  CreateFlowInput,
  FlowRefInput,
  ListCallbacksInput,
  ListCheckpointsInput,
  ListDeliveriesInput,
  ListOwnersInput,
  OwnerInput,
  TraceInput,
  UpdateFlowInput,
} from './flows.schema.js';

const tag = 'agent flows';
/** Flow tokens (scope ai_workflows) reach the flow API; personal tokens need api (read_api for reads). */
const READ_SCOPES = ['api', 'read_api', 'ai_workflows'];
const WRITE_SCOPES = ['api', 'ai_workflows'];

/** `DELETE …/flow_callbacks/:id` under both segments. */
const removeCallback = async (ctx: Ctx, input: Infer<typeof CallbackRefInput>) => {
  await deleteCallback(ctx, input.id);
  return noContent();
};

export const flowsRoutes: Route[] = [
  // The spec's segment…
  route('GET', '/ai/agent_workflows/workflows/agent_privileges', { auth: 'required', scopes: READ_SCOPES, tag, summary: 'Every agent privilege' },
    async () => ok({ all_privileges: AGENT_PRIVILEGES })),
  route('POST', '/ai/agent_workflows/workflows', { auth: 'required', params: CreateFlowInput, tag, summary: 'Create (and optionally start) an agent flow' },
    async (ctx, input) => created(await createFlow(ctx, input))),
  route('GET', '/ai/agent_workflows/workflows/:id', { auth: 'required', params: FlowRefInput, scopes: READ_SCOPES, tag, summary: 'One of the caller’s flows' },
    async (ctx, input) => ok(await getFlow(ctx, input.id))),
  route('PATCH', '/ai/agent_workflows/workflows/:id', { auth: 'required', params: UpdateFlowInput, scopes: WRITE_SCOPES, tag, summary: 'Move a flow through its states (status_event)' },
    async (ctx, input) => ok(await updateFlowStatus(ctx, input))),
  route('POST', '/ai/agent_workflows/workflows/:id/checkpoints', { auth: 'required', params: CreateCheckpointInput, scopes: WRITE_SCOPES, tag, summary: 'Save a checkpoint of the agent’s state' },
    async (ctx, input) => created(await createCheckpoint(ctx, input))),
  route('GET', '/ai/agent_workflows/workflows/:id/checkpoints', { auth: 'required', params: ListCheckpointsInput, scopes: READ_SCOPES, tag, summary: 'A flow’s checkpoints, newest first' },
    async (ctx, input) => paged(await listCheckpoints(ctx, input))),
  route('GET', '/ai/agent_workflows/workflows/:workflow_id/trace.jsonl', { auth: 'required', params: TraceInput, scopes: READ_SCOPES, tag, summary: 'The flow’s chat log as JSON Lines' },
    async (ctx, input) => text(await flowTrace(ctx, input), 'application/x-ndjson')),
  route('POST', '/ai/agent_workflows/flow_callbacks', { auth: 'required', params: CreateCallbackInput, tag, summary: 'Register a flow callback endpoint (organization owner)' },
    async (ctx, input) => created(await createCallback(ctx, input))),
  route('GET', '/ai/agent_workflows/flow_callbacks', { auth: 'required', params: ListCallbacksInput, tag, summary: 'Flow callback endpoints' },
    async (ctx, input) => paged(await listCallbacks(ctx, input))),
  route('GET', '/ai/agent_workflows/flow_callbacks/:id', { auth: 'required', params: CallbackRefInput, tag, summary: 'One flow callback endpoint' },
    async (ctx, input) => ok(await getCallback(ctx, input.id))),
  route('DELETE', '/ai/agent_workflows/flow_callbacks/:id', { auth: 'required', params: CallbackRefInput, tag, summary: 'Delete a flow callback endpoint' },
    removeCallback),
  // Forgelet extension: the delivery log of an endpoint, every attempt with its status and error.
  route('GET', '/ai/agent_workflows/flow_callbacks/:id/deliveries', { auth: 'required', params: ListDeliveriesInput, tag, summary: 'Deliveries to a callback endpoint and their attempts' },
    async (ctx, input) => paged(await listDeliveries(ctx, input))),

  // …and GitLab's own: both serve the same API.
  route('GET', '/ai/duo_workflows/workflows/agent_privileges', { auth: 'required', scopes: READ_SCOPES, tag, summary: 'Every agent privilege' },
    async () => ok({ all_privileges: AGENT_PRIVILEGES })),
  route('POST', '/ai/duo_workflows/workflows', { auth: 'required', params: CreateFlowInput, tag, summary: 'Create (and optionally start) an agent flow' },
    async (ctx, input) => created(await createFlow(ctx, input))),
  route('GET', '/ai/duo_workflows/workflows/:id', { auth: 'required', params: FlowRefInput, scopes: READ_SCOPES, tag, summary: 'One of the caller’s flows' },
    async (ctx, input) => ok(await getFlow(ctx, input.id))),
  route('PATCH', '/ai/duo_workflows/workflows/:id', { auth: 'required', params: UpdateFlowInput, scopes: WRITE_SCOPES, tag, summary: 'Move a flow through its states (status_event)' },
    async (ctx, input) => ok(await updateFlowStatus(ctx, input))),
  route('POST', '/ai/duo_workflows/workflows/:id/checkpoints', { auth: 'required', params: CreateCheckpointInput, scopes: WRITE_SCOPES, tag, summary: 'Save a checkpoint of the agent’s state' },
    async (ctx, input) => created(await createCheckpoint(ctx, input))),
  route('GET', '/ai/duo_workflows/workflows/:id/checkpoints', { auth: 'required', params: ListCheckpointsInput, scopes: READ_SCOPES, tag, summary: 'A flow’s checkpoints, newest first' },
    async (ctx, input) => paged(await listCheckpoints(ctx, input))),
  route('GET', '/ai/duo_workflows/workflows/:workflow_id/trace.jsonl', { auth: 'required', params: TraceInput, scopes: READ_SCOPES, tag, summary: 'The flow’s chat log as JSON Lines' },
    async (ctx, input) => text(await flowTrace(ctx, input), 'application/x-ndjson')),
  route('POST', '/ai/duo_workflows/flow_callbacks', { auth: 'required', params: CreateCallbackInput, tag, summary: 'Register a flow callback endpoint (organization owner)' },
    async (ctx, input) => created(await createCallback(ctx, input))),
  route('GET', '/ai/duo_workflows/flow_callbacks', { auth: 'required', params: ListCallbacksInput, tag, summary: 'Flow callback endpoints' },
    async (ctx, input) => paged(await listCallbacks(ctx, input))),
  route('GET', '/ai/duo_workflows/flow_callbacks/:id', { auth: 'required', params: CallbackRefInput, tag, summary: 'One flow callback endpoint' },
    async (ctx, input) => ok(await getCallback(ctx, input.id))),
  route('DELETE', '/ai/duo_workflows/flow_callbacks/:id', { auth: 'required', params: CallbackRefInput, tag, summary: 'Delete a flow callback endpoint' },
    removeCallback),
  // Forgelet extension: the delivery log of an endpoint, every attempt with its status and error.
  route('GET', '/ai/duo_workflows/flow_callbacks/:id/deliveries', { auth: 'required', params: ListDeliveriesInput, tag, summary: 'Deliveries to a callback endpoint and their attempts' },
    async (ctx, input) => paged(await listDeliveries(ctx, input))),
  // Forgelet extension: owners of the default organization (administrators grant the role).
  route('GET', '/organizations/default/owners', { auth: 'admin', params: ListOwnersInput, tag, summary: 'Owners of the default organization (besides administrators)' },
    async (ctx, input) => paged(await listOrganizationOwners(ctx, input))),
  route('POST', '/organizations/default/owners', { auth: 'admin', params: OwnerInput, tag, summary: 'Grant the organization Owner role' },
    async (ctx, input) => created(await addOrganizationOwner(ctx, input.user_id))),
  route('DELETE', '/organizations/default/owners/:user_id', { auth: 'admin', params: OwnerInput, tag, summary: 'Revoke the organization Owner role' },
    async (ctx, input) => {
      await removeOrganizationOwner(ctx, input.user_id);
      return noContent();
    }),
];
