import type { CreateImpersonationTokenInput, ImpersonationTokenEntity, ListImpersonationTokensInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListImpersonationTokensParams = ListParams<Omit<ListImpersonationTokensInput, 'user_id'>>;
export type CreateImpersonationTokenParams = Omit<CreateImpersonationTokenInput, 'user_id'>;

/** `/users/:user_id/impersonation_tokens` (administrators): tokens that act as the user. */
export class UserImpersonationTokens {
  constructor(private readonly requester: Requester) {}

  /** `state`: all (default), active or inactive. */
  all(userId: number, params: ListImpersonationTokensParams = {}): Paginated<ImpersonationTokenEntity> {
    return new Paginated(this.requester, endpoint`users/${userId}/impersonation_tokens`, params);
  }

  show(userId: number, tokenId: number): Promise<ImpersonationTokenEntity> {
    return this.requester.get(endpoint`users/${userId}/impersonation_tokens/${tokenId}`);
  }

  /** The answer holds the clear `token`, shown only once. */
  create(userId: number, params: CreateImpersonationTokenParams): Promise<ImpersonationTokenEntity & { token: string }> {
    return this.requester.post(endpoint`users/${userId}/impersonation_tokens`, params);
  }

  revoke(userId: number, tokenId: number): Promise<void> {
    return this.requester.delete(endpoint`users/${userId}/impersonation_tokens/${tokenId}`);
  }
}
