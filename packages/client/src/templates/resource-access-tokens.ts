/** Project and group access tokens (each with its bot member): one template for both. */
import type { CreateResourceAccessTokenInput, ResourceAccessTokenEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId, WithOptional } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

// Core does not export the list input's type; this mirrors ListResourceAccessTokensInput.
export type ListAccessTokensParams = PaginationParams & { state?: 'active' | 'inactive' };
/** `access_level` defaults to Maintainer (40). */
export type CreateAccessTokenParams = WithOptional<Omit<CreateResourceAccessTokenInput, 'id'>, 'access_level'>;
/** `expires_at` (YYYY-MM-DD) defaults to one week from now. */
export interface RotateAccessTokenParams {
  expires_at?: string;
  /** The new token lives as long as the old one did (not with `expires_at`). */
  keep_token_lifetime?: boolean;
}

export class ResourceAccessTokens {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  all(id: ResourceId, params: ListAccessTokensParams = {}): Paginated<ResourceAccessTokenEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/access_tokens`, params);
  }

  show(id: ResourceId, tokenId: number): Promise<ResourceAccessTokenEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/access_tokens/${tokenId}`);
  }

  /** The answer holds the clear `token`, shown only once. */
  create(id: ResourceId, params: CreateAccessTokenParams): Promise<ResourceAccessTokenEntity & { token: string }> {
    return this.requester.post(endpoint`${this.prefix}/${id}/access_tokens`, params);
  }

  /** Revokes the token and removes its bot member. */
  revoke(id: ResourceId, tokenId: number): Promise<void> {
    return this.requester.delete(endpoint`${this.prefix}/${id}/access_tokens/${tokenId}`);
  }

  /** Revokes the token and issues a new one; the answer holds the new clear `token`. */
  rotate(id: ResourceId, tokenId: number, params: RotateAccessTokenParams = {}): Promise<ResourceAccessTokenEntity & { token: string }> {
    return this.requester.post(endpoint`${this.prefix}/${id}/access_tokens/${tokenId}/rotate`, params);
  }
}
