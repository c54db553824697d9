/** Parameters of the environments, deployments, group protected environments and DORA endpoints, as GitLab declares them. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { DEPLOYMENT_STATUSES, ENVIRONMENT_TIERS } from './delivery.table.js';

// ---- environments --------------------------------------------------------------------------

export const ENVIRONMENT_STATES = ['available', 'stopping', 'stopped'] as const;

export const ListEnvironmentsInput = params(
  {
    id: p.string(),
    name: p.string().optional().describe('Exact name.'),
    search: p.search().optional().describe('Name contains (3 characters at least).'),
    states: p.enum(ENVIRONMENT_STATES).optional(),
    ...paginationParams,
  },
);
export type ListEnvironmentsInput = InferShape<typeof ListEnvironmentsInput.shape>;

export const EnvironmentRefInput = params({ id: p.string(), environment_id: p.integer() });
export type EnvironmentRefInput = InferShape<typeof EnvironmentRefInput.shape>;

export const StopEnvironmentInput = params({ id: p.string(), environment_id: p.integer(), force: p.boolean().default(false) });
export type StopEnvironmentInput = InferShape<typeof StopEnvironmentInput.shape>;

const environmentFields = {
  external_url: p.string().nullable().optional(),
  slug: p.json().optional().describe('Generated: sending it is refused with `slug is automatically generated and cannot be changed`.'),
  tier: p.enum(ENVIRONMENT_TIERS).optional(),
  description: p.string().nullable().optional(),
  auto_stop_setting: p.enum(['always', 'with_action'] as const).optional(),
};

export const CreateEnvironmentInput = params({ id: p.string(), name: p.string(), ...environmentFields });
export type CreateEnvironmentInput = InferShape<typeof CreateEnvironmentInput.shape>;

export const UpdateEnvironmentInput = params({ id: p.string(), environment_id: p.integer(), name: p.string().optional(), ...environmentFields });
export type UpdateEnvironmentInput = InferShape<typeof UpdateEnvironmentInput.shape>;

// ---- deployments ---------------------------------------------------------------------------

export const DEPLOYMENT_ORDER_BY = ['id', 'iid', 'created_at', 'updated_at', 'finished_at', 'ref'] as const;

export const ListDeploymentsInput = params({
  id: p.string(),
  order_by: p.enum(DEPLOYMENT_ORDER_BY).default('id'),
  sort: p.enum(['asc', 'desc'] as const).default('asc'),
  updated_after: p.datetime().optional(),
  updated_before: p.datetime().optional(),
  finished_after: p.datetime().optional(),
  finished_before: p.datetime().optional(),
  environment: p.string().optional(),
  status: p.enum(DEPLOYMENT_STATUSES).optional(),
  ...paginationParams,
});
export type ListDeploymentsInput = InferShape<typeof ListDeploymentsInput.shape>;

export const DeploymentRefInput = params({ id: p.string(), deployment_id: p.integer() });
export type DeploymentRefInput = InferShape<typeof DeploymentRefInput.shape>;

/** What the API may set a deployment to (created and blocked are the system's). */
export const WRITABLE_DEPLOYMENT_STATUSES = ['running', 'success', 'failed', 'canceled'] as const;
export type WritableDeploymentStatus = (typeof WRITABLE_DEPLOYMENT_STATUSES)[number];

export const CreateDeploymentInput = params({
  id: p.string(),
  environment: p.string(),
  sha: p.string(),
  ref: p.string(),
  tag: p.boolean(),
  status: p.enum(WRITABLE_DEPLOYMENT_STATUSES),
});
export type CreateDeploymentInput = InferShape<typeof CreateDeploymentInput.shape>;

export const UpdateDeploymentInput = params({ id: p.string(), deployment_id: p.integer(), status: p.enum(WRITABLE_DEPLOYMENT_STATUSES) });
export type UpdateDeploymentInput = InferShape<typeof UpdateDeploymentInput.shape>;

export const DeploymentMergeRequestsInput = params({
  id: p.string(),
  deployment_id: p.integer(),
  state: p.enum(['opened', 'closed', 'locked', 'merged', 'all'] as const).default('all'),
  order_by: p.enum(['created_at', 'updated_at', 'merged_at', 'title'] as const).default('created_at'),
  sort: p.enum(['asc', 'desc'] as const).default('desc'),
  ...paginationParams,
});
export type DeploymentMergeRequestsInput = InferShape<typeof DeploymentMergeRequestsInput.shape>;

export const DeploymentApprovalInput = params({
  id: p.string(),
  deployment_id: p.integer(),
  status: p.enum(['approved', 'rejected'] as const),
  comment: p.string().optional(),
  represented_as: p.string().optional(),
});
export type DeploymentApprovalInput = InferShape<typeof DeploymentApprovalInput.shape>;

// ---- group protected environments ----------------------------------------------------------

export const DEPLOY_ACCESS_LEVELS = [30, 40, 60] as const;

const entryShape = {
  access_level: p.enum(DEPLOY_ACCESS_LEVELS).optional(),
  user_id: p.integer().optional(),
  group_id: p.integer().optional(),
  group_inheritance_type: p.enum([0, 1] as const).optional(),
};
const updateShape = { id: p.integer().optional(), _destroy: p.boolean().optional() };

export const GroupProtectedEnvironmentRefInput = params({ id: p.string(), name: p.string() });
export type GroupProtectedEnvironmentRefInput = InferShape<typeof GroupProtectedEnvironmentRefInput.shape>;

export const ListGroupProtectedEnvironmentsInput = params({ id: p.string(), ...paginationParams });
export type ListGroupProtectedEnvironmentsInput = InferShape<typeof ListGroupProtectedEnvironmentsInput.shape>;

const approvalRule = p.object({ ...entryShape, ...updateShape, required_approvals: p.integer().default(1) });

export const ProtectGroupEnvironmentInput = params({
  id: p.string(),
  name: p.string(),
  deploy_access_levels: p.array(p.object(entryShape)),
  required_approval_count: p.integer().default(0),
  approval_rules: p.array(approvalRule).optional(),
});
export type ProtectGroupEnvironmentInput = InferShape<typeof ProtectGroupEnvironmentInput.shape>;

export const UpdateGroupProtectedEnvironmentInput = params({
  id: p.string(),
  name: p.string(),
  deploy_access_levels: p.array(p.object({ ...entryShape, ...updateShape })).optional(),
  required_approval_count: p.integer().optional(),
  approval_rules: p.array(approvalRule).optional(),
});
export type UpdateGroupProtectedEnvironmentInput = InferShape<typeof UpdateGroupProtectedEnvironmentInput.shape>;

export type ProtectionEntryInput = {
  id?: number;
  _destroy?: boolean;
  access_level?: number;
  user_id?: number;
  group_id?: number;
  group_inheritance_type?: number;
  required_approvals?: number;
};

// ---- DORA ----------------------------------------------------------------------------------

export const DoraMetricsInput = params({
  id: p.string(),
  metric: p.string(),
  start_date: p.date().optional(),
  end_date: p.date().optional(),
  interval: p.string().optional(),
  environment_tiers: p.array(p.string()).optional(),
});
export type DoraMetricsInput = InferShape<typeof DoraMetricsInput.shape>;
