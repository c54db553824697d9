import { created, noContent, ok, paged, route, type Route } from '../../kernel/route.js';
import {
  CreateDeploymentInput,
  CreateEnvironmentInput,
  DeploymentApprovalInput,
  DeploymentMergeRequestsInput,
  DeploymentRefInput,
  DoraMetricsInput,
  EnvironmentRefInput,
  GroupProtectedEnvironmentRefInput,
  ListDeploymentsInput,
  ListEnvironmentsInput,
  ListGroupProtectedEnvironmentsInput,
  ProtectGroupEnvironmentInput,
  StopEnvironmentInput,
  UpdateDeploymentInput,
  UpdateEnvironmentInput,
  UpdateGroupProtectedEnvironmentInput,
} from './delivery.schema.js';
import {
  approveDeployment,
  createDeployment,
  deleteDeployment,
  getDeployment,
  listDeploymentMergeRequests,
  listDeployments,
  updateDeployment,
} from './deployments.js';
import { doraMetrics } from './dora.js';
import { createEnvironment, deleteEnvironment, getEnvironment, listEnvironments, stopEnvironment, updateEnvironment } from './environments.js';
import {
  getGroupProtectedEnvironment,
  listGroupProtectedEnvironments,
  protectGroupEnvironment,
  unprotectGroupEnvironment,
  updateGroupProtectedEnvironment,
} from './protected-environments.js';

const environments = 'environments';
const deployments = 'deployments';
const protectedEnvironments = 'group_protected_environments';
const dora = 'dora_metrics';

export const deliveryRoutes: Route[] = [
  route('GET', '/projects/:id/environments', { auth: 'required', jobToken: true, params: ListEnvironmentsInput, tag: environments, summary: 'List environments' },
    async (ctx, input) => paged(await listEnvironments(ctx, input))),
  route('POST', '/projects/:id/environments', { auth: 'required', jobToken: true, params: CreateEnvironmentInput, tag: environments, summary: 'Create an environment (Developer)' },
    async (ctx, input) => created(await createEnvironment(ctx, input))),
  route('GET', '/projects/:id/environments/:environment_id', { auth: 'required', jobToken: true, params: EnvironmentRefInput, tag: environments, summary: 'Get an environment with its last deployment' },
    async (ctx, input) => ok(await getEnvironment(ctx, input))),
  route('PUT', '/projects/:id/environments/:environment_id', { auth: 'required', jobToken: true, params: UpdateEnvironmentInput, tag: environments, summary: 'Update an environment (Developer)' },
    async (ctx, input) => ok(await updateEnvironment(ctx, input))),
  route('DELETE', '/projects/:id/environments/:environment_id', { auth: 'required', params: EnvironmentRefInput, tag: environments, summary: 'Delete a stopped environment (Developer)' },
    async (ctx, input) => {
      await deleteEnvironment(ctx, input);
      return noContent();
    }),
  route('POST', '/projects/:id/environments/:environment_id/stop', { auth: 'required', jobToken: true, params: StopEnvironmentInput, tag: environments, summary: 'Stop an environment (Developer)' },
    async (ctx, input) => ok(await stopEnvironment(ctx, input))),

  route('GET', '/projects/:id/deployments', { auth: 'required', jobToken: true, params: ListDeploymentsInput, tag: deployments, summary: 'List deployments' },
    async (ctx, input) => paged(await listDeployments(ctx, input))),
  route('POST', '/projects/:id/deployments', { auth: 'required', jobToken: true, params: CreateDeploymentInput, tag: deployments, summary: 'Create a deployment (Developer allowed to deploy)' },
    async (ctx, input) => created(await createDeployment(ctx, input))),
  route('GET', '/projects/:id/deployments/:deployment_id', { auth: 'required', jobToken: true, params: DeploymentRefInput, tag: deployments, summary: 'Get a deployment with its approvals' },
    async (ctx, input) => ok(await getDeployment(ctx, input))),
  route('PUT', '/projects/:id/deployments/:deployment_id', { auth: 'required', jobToken: true, params: UpdateDeploymentInput, tag: deployments, summary: "Update a deployment's status (API deployments only)" },
    async (ctx, input) => ok(await updateDeployment(ctx, input))),
  route('DELETE', '/projects/:id/deployments/:deployment_id', { auth: 'required', params: DeploymentRefInput, tag: deployments, summary: 'Delete a deployment (Maintainer)' },
    async (ctx, input) => {
      await deleteDeployment(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/deployments/:deployment_id/merge_requests', { auth: 'required', params: DeploymentMergeRequestsInput, tag: deployments, summary: 'Merge requests a deployment shipped' },
    async (ctx, input) => paged(await listDeploymentMergeRequests(ctx, input))),
  route('POST', '/projects/:id/deployments/:deployment_id/approval', { auth: 'required', params: DeploymentApprovalInput, tag: deployments, summary: 'Approve or reject a blocked deployment' },
    async (ctx, input) => created(await approveDeployment(ctx, input))),

  route('GET', '/groups/:id/protected_environments', { tier: 'premium', auth: 'required', params: ListGroupProtectedEnvironmentsInput, tag: protectedEnvironments, summary: "List a group's protected environments (Premium, Maintainer)" },
    async (ctx, input) => paged(await listGroupProtectedEnvironments(ctx, input))),
  route('POST', '/groups/:id/protected_environments', { tier: 'premium', auth: 'required', params: ProtectGroupEnvironmentInput, tag: protectedEnvironments, summary: 'Protect the environments of a tier below the group' },
    async (ctx, input) => created(await protectGroupEnvironment(ctx, input))),
  route('GET', '/groups/:id/protected_environments/:name', { tier: 'premium', auth: 'required', params: GroupProtectedEnvironmentRefInput, tag: protectedEnvironments, summary: 'Get a protected environment by tier' },
    async (ctx, input) => ok(await getGroupProtectedEnvironment(ctx, input))),
  route('PUT', '/groups/:id/protected_environments/:name', { tier: 'premium', auth: 'required', params: UpdateGroupProtectedEnvironmentInput, tag: protectedEnvironments, summary: 'Update deployers, approval rules and the required approval count' },
    async (ctx, input) => ok(await updateGroupProtectedEnvironment(ctx, input))),
  route('DELETE', '/groups/:id/protected_environments/:name', { tier: 'premium', auth: 'required', params: GroupProtectedEnvironmentRefInput, tag: protectedEnvironments, summary: 'Unprotect a tier (200)' },
    async (ctx, input) => ok(await unprotectGroupEnvironment(ctx, input))),

  route('GET', '/projects/:id/dora/metrics', { tier: 'ultimate', auth: 'optional', params: DoraMetricsInput, tag: dora, summary: 'DORA metrics of a project (Ultimate, Reporter)' },
    async (ctx, input) => ok(await doraMetrics(ctx, 'projects', input))),
  route('GET', '/groups/:id/dora/metrics', { tier: 'ultimate', auth: 'optional', params: DoraMetricsInput, tag: dora, summary: 'DORA metrics of the projects below a group (Ultimate, Reporter)' },
    async (ctx, input) => ok(await doraMetrics(ctx, 'groups', input))),
];
