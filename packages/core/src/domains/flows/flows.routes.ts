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

/** The spec's segment and GitLab's own: both serve the same API. */
function flowRoutes(segment: string): Route[] {
  const base = `/ai/${segment}`;
  return [
    route('GET', `${base}/workflows/agent_privileges`, { auth: 'required', scopes: READ_SCOPES, tag, summary: 'Every agent privilege' },
      async () => ok({ all_privileges: AGENT_PRIVILEGES })),
    route('POST', `${base}/workflows`, { auth: 'required', params: CreateFlowInput, tag, summary: 'Create (and optionally start) an agent flow' },
      async (ctx, input) => created(await createFlow(ctx, input))),
    route('GET', `${base}/workflows/:id`, { auth: 'required', params: FlowRefInput, scopes: READ_SCOPES, tag, summary: 'One of the caller’s flows' },
      async (ctx, input) => ok(await getFlow(ctx, input.id))),
    route('PATCH', `${base}/workflows/:id`, { auth: 'required', params: UpdateFlowInput, scopes: WRITE_SCOPES, tag, summary: 'Move a flow through its states (status_event)' },
      async (ctx, input) => ok(await updateFlowStatus(ctx, input))),
    route('POST', `${base}/workflows/:id/checkpoints`, { auth: 'required', params: CreateCheckpointInput, scopes: WRITE_SCOPES, tag, summary: 'Save a checkpoint of the agent’s state' },
      async (ctx, input) => created(await createCheckpoint(ctx, input))),
    route('GET', `${base}/workflows/:id/checkpoints`, { auth: 'required', params: ListCheckpointsInput, scopes: READ_SCOPES, tag, summary: 'A flow’s checkpoints, newest first' },
      async (ctx, input) => paged(await listCheckpoints(ctx, input))),
    route('GET', `${base}/workflows/:workflow_id/trace.jsonl`, { auth: 'required', params: TraceInput, scopes: READ_SCOPES, tag, summary: 'The flow’s chat log as JSON Lines' },
      async (ctx, input) => text(await flowTrace(ctx, input), 'application/x-ndjson')),
    route('POST', `${base}/flow_callbacks`, { auth: 'required', params: CreateCallbackInput, tag, summary: 'Register a flow callback endpoint (organization owner)' },
      async (ctx, input) => created(await createCallback(ctx, input))),
    route('GET', `${base}/flow_callbacks`, { auth: 'required', params: ListCallbacksInput, tag, summary: 'Flow callback endpoints' },
      async (ctx, input) => paged(await listCallbacks(ctx, input))),
    route('GET', `${base}/flow_callbacks/:id`, { auth: 'required', params: CallbackRefInput, tag, summary: 'One flow callback endpoint' },
      async (ctx, input) => ok(await getCallback(ctx, input.id))),
    route('DELETE', `${base}/flow_callbacks/:id`, { auth: 'required', params: CallbackRefInput, tag, summary: 'Delete a flow callback endpoint' },
      async (ctx, input) => {
        await deleteCallback(ctx, input.id);
        return noContent();
      }),
    // Forgelet extension: the delivery log of an endpoint, every attempt with its status and error.
    route('GET', `${base}/flow_callbacks/:id/deliveries`, { auth: 'required', params: ListDeliveriesInput, tag, summary: 'Deliveries to a callback endpoint and their attempts' },
      async (ctx, input) => paged(await listDeliveries(ctx, input))),
  ];
}

export const flowsRoutes: Route[] = [
  ...flowRoutes('agent_workflows'),
  ...flowRoutes('duo_workflows'),
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
