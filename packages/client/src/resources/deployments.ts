import type {
  CreateDeploymentInput,
  DeploymentApprovalEntity,
  DeploymentEntity,
  DeploymentExtendedEntity,
  DeploymentMergeRequestsInput,
  ListDeploymentsInput,
  MergeRequestEntity,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };

export type ListDeploymentsParams = Datetimes<ListParams<ListDeploymentsInput>>;
export type CreateDeploymentParams = Omit<CreateDeploymentInput, 'id'>;
export type DeploymentStatusParam = CreateDeploymentInput['status'];
export type DeploymentMergeRequestsParams = ListParams<Omit<DeploymentMergeRequestsInput, 'deployment_id'>>;
export interface DeploymentApprovalParams {
  comment?: string;
  /** The user's, group's or role's name of the approval rule to approve for. */
  represented_as?: string;
}

/**
 * Deployments: `/projects/:id/deployments[/:deployment_id]`, the merge requests each shipped
 * and approvals of deployments to protected environments.
 */
export class Deployments {
  constructor(private readonly requester: Requester) {}

  all(projectId: ResourceId, params: ListDeploymentsParams = {}): Paginated<DeploymentEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/deployments`, params);
  }

  /** With `approvals`, `pending_approval_count` and `approval_summary`. */
  show(projectId: ResourceId, deploymentId: number): Promise<DeploymentExtendedEntity> {
    return this.requester.get(endpoint`projects/${projectId}/deployments/${deploymentId}`);
  }

  /**
   * Developers allowed to deploy to the environment (created when missing). Where approvals
   * are required the deployment waits `blocked` and proceeds to `status` once approved.
   */
  create(projectId: ResourceId, params: CreateDeploymentParams): Promise<DeploymentExtendedEntity> {
    return this.requester.post(endpoint`projects/${projectId}/deployments`, params);
  }

  /** Deployments of CI jobs follow their jobs and cannot be updated (403). */
  edit(projectId: ResourceId, deploymentId: number, status: DeploymentStatusParam): Promise<DeploymentExtendedEntity> {
    return this.requester.put(endpoint`projects/${projectId}/deployments/${deploymentId}`, { status });
  }

  /** Maintainers; not a running deployment, nor the one the environment runs. */
  remove(projectId: ResourceId, deploymentId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/deployments/${deploymentId}`);
  }

  /** The merge requests the deployment shipped (linked when it succeeded). */
  mergeRequests(projectId: ResourceId, deploymentId: number, params: DeploymentMergeRequestsParams = {}): Paginated<MergeRequestEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/deployments/${deploymentId}/merge_requests`, params);
  }

  /** Approves or rejects a blocked deployment (not one's own). */
  approval(projectId: ResourceId, deploymentId: number, status: 'approved' | 'rejected', params: DeploymentApprovalParams = {}): Promise<DeploymentApprovalEntity> {
    return this.requester.post(endpoint`projects/${projectId}/deployments/${deploymentId}/approval`, { status, ...params });
  }
}
