import type { CreateDeployTokenInput, DeployTokenEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListDeployTokensParams = PaginationParams & { active?: boolean };
/** `expires_at`: an ISO 8601 time (none: never); `username` defaults to `gitlab+deploy-token-<id>`. */
export type CreateDeployTokenParams = Omit<CreateDeployTokenInput, 'id' | 'expires_at'> & { expires_at?: string };

/** `/deploy_tokens` (administrators): every deploy token of the instance. */
export class DeployTokens {
  constructor(private readonly requester: Requester) {}

  all(params: ListDeployTokensParams = {}): Paginated<DeployTokenEntity> {
    return new Paginated(this.requester, 'deploy_tokens', params);
  }
}

/** Deploy tokens of projects and groups: one template for both. */
export class ResourceDeployTokens {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  all(id: ResourceId, params: ListDeployTokensParams = {}): Paginated<DeployTokenEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/deploy_tokens`, params);
  }

  show(id: ResourceId, tokenId: number): Promise<DeployTokenEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/deploy_tokens/${tokenId}`);
  }

  /** The answer holds the clear `token`, shown only once. */
  create(id: ResourceId, params: CreateDeployTokenParams): Promise<DeployTokenEntity & { token: string }> {
    return this.requester.post(endpoint`${this.prefix}/${id}/deploy_tokens`, params);
  }

  remove(id: ResourceId, tokenId: number): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/deploy_tokens/${tokenId}`);
  }
}

export class ProjectDeployTokens extends ResourceDeployTokens {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}

export class GroupDeployTokens extends ResourceDeployTokens {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
