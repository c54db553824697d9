/** Agent flows (GitLab's Duo Workflows): flows, checkpoints, trace, workloads, callbacks. */
export { flowsRoutes } from './flows.routes.js';
export {
  AGENT_PRIVILEGES,
  TRANSITIONS,
  FLOW_PIPELINE_SOURCE,
  FLOW_JOB_NAME,
  FLOW_TOKEN_SCOPE,
  createFlow,
  getFlow,
  updateFlowStatus,
  createCheckpoint,
  listCheckpoints,
  flowTrace,
  flowOfJob,
  presentFlow,
  type FlowEntity,
  type CheckpointEntity,
  type AgentPrivilege,
} from './flows.js';
export {
  registerFlowJobs,
  signPayload,
  backoffAfter,
  MAX_DELIVERY_ATTEMPTS,
  DELIVERY_JOB,
  createCallback,
  listCallbacks,
  getCallback,
  deleteCallback,
  listDeliveries,
  isOrganizationOwner,
  addOrganizationOwner,
  removeOrganizationOwner,
  listOrganizationOwners,
  type FlowCallbackEntity,
  type DeliveryEntity,
  type DeliveryAttemptEntity,
} from './callbacks.js';
export type { AiFlowRow, AiFlowCheckpointRow, AiFlowCallbackRow } from './flows.table.js';
export { flowsPipelineHooks } from './workload-sync.js';
export { flowsGraphql } from './flows.graphql.js';
export { listFlows, FLOW_STATUS_GROUPS, FLOW_SORTS, type FlowFilters, type FlowSort, type FlowRecord } from './list-flows.js';
