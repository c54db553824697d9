import type { CreatePersonalAccessTokenInput, ListPersonalAccessTokensInput, PersonalAccessTokenEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListPersonalAccessTokensParams = ListParams<ListPersonalAccessTokensInput>;
export type CreatePersonalAccessTokenParams = Omit<CreatePersonalAccessTokenInput, 'user_id'>;
/** `expires_at` (YYYY-MM-DD) defaults to one week from now. */
export interface RotatePersonalAccessTokenParams {
  expires_at?: string;
  /** The new token lives as long as the old one did (not with `expires_at`). */
  keep_token_lifetime?: boolean;
}

/** `/personal_access_tokens`, `/users/:user_id/personal_access_tokens`. */
export class PersonalAccessTokens {
  constructor(private readonly requester: Requester) {}

  /** The caller's own tokens; admins see everyone's (filter with `user_id`). */
  all(params: ListPersonalAccessTokensParams = {}): Paginated<PersonalAccessTokenEntity> {
    return new Paginated(this.requester, 'personal_access_tokens', params);
  }

  show(tokenId: number): Promise<PersonalAccessTokenEntity> {
    return this.requester.get(endpoint`personal_access_tokens/${tokenId}`);
  }

  /** The token this client authenticates with. */
  showSelf(): Promise<PersonalAccessTokenEntity> {
    return this.requester.get('personal_access_tokens/self');
  }

  /** Admin only. The answer holds the clear `token`, shown only once. */
  createForUser(userId: number, params: CreatePersonalAccessTokenParams): Promise<PersonalAccessTokenEntity & { token: string }> {
    return this.requester.post(endpoint`users/${userId}/personal_access_tokens`, params);
  }

  revoke(tokenId: number): Promise<void> {
    return this.requester.delete(endpoint`personal_access_tokens/${tokenId}`);
  }

  /** Revokes the token this client authenticates with. */
  revokeSelf(): Promise<void> {
    return this.requester.delete('personal_access_tokens/self');
  }

  /** Revokes a token (or `'self'`) and issues a new one; the answer holds the new clear `token`. */
  rotate(tokenId: number | 'self', params: RotatePersonalAccessTokenParams = {}): Promise<PersonalAccessTokenEntity & { token: string }> {
    return this.requester.post(endpoint`personal_access_tokens/${tokenId}/rotate`, params);
  }
}
