/** Delivery: environments and deployments, group-level protected environments with deployment approvals, DORA metrics. */
export { deliveryRoutes } from './delivery.routes.js';
export { registerDelivery, protectionsFor, protectedFrom, needsApproval, pendingApprovalCount, type Protection } from './protection.js';
export { syncJobDeployments, deliveryPipelineHooks, expandedEnvironmentName } from './ci-hook.js';
export { registerDeploymentHooks, type DeploymentHooks, type DeploymentTransition } from './deployment-hooks.js';
export { refreshDoraDay, refreshIncidentMetrics, deliveryIssueHooks, doraMetrics, median, monthsBefore, DORA_METRICS, DORA_INTERVALS, type DoraPoint, type DoraMetric } from './dora.js';
export { listEnvironments, getEnvironment, createEnvironment, updateEnvironment, deleteEnvironment, stopEnvironment, listEnvironmentProtections, type EnvironmentProtectionEntity } from './environments.js';
export { guessTier, environmentSlug } from './environment-model.js';
export {
  listDeployments,
  getDeployment,
  createDeployment,
  updateDeployment,
  deleteDeployment,
  listDeploymentMergeRequests,
  approveDeployment,
} from './deployments.js';
export {
  listGroupProtectedEnvironments,
  getGroupProtectedEnvironment,
  protectGroupEnvironment,
  updateGroupProtectedEnvironment,
  unprotectGroupEnvironment,
} from './protected-environments.js';
export type {
  EnvironmentEntity,
  EnvironmentBasicEntity,
  DeploymentEntity,
  DeploymentExtendedEntity,
  DeploymentApprovalEntity,
  ProtectedEnvironmentEntity,
  DeployAccessLevelEntity,
  ProtectedEnvironmentApprovalRuleEntity,
} from './delivery.entity.js';
export type {
  ListEnvironmentsInput,
  EnvironmentRefInput,
  StopEnvironmentInput,
  CreateEnvironmentInput,
  UpdateEnvironmentInput,
  ListDeploymentsInput,
  DeploymentRefInput,
  CreateDeploymentInput,
  UpdateDeploymentInput,
  DeploymentMergeRequestsInput,
  DeploymentApprovalInput,
  ListGroupProtectedEnvironmentsInput,
  GroupProtectedEnvironmentRefInput,
  ProtectGroupEnvironmentInput,
  UpdateGroupProtectedEnvironmentInput,
  ProtectionEntryInput,
  DoraMetricsInput,
} from './delivery.schema.js';
export type { EnvironmentRow, DeploymentRow, ProtectedEnvironmentRow, EnvironmentTier, DeploymentStatus } from './delivery.table.js';
export { ENVIRONMENT_TIERS, DEPLOYMENT_STATUSES } from './delivery.table.js';
export { deliveryGraphql } from './delivery.graphql.js';
