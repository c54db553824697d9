import type { Requester } from '../infrastructure/requester.js';
import { ResourceAccessTokens } from '../templates/resource-access-tokens.js';

/** Group access tokens: `/groups/:id/access_tokens`. */
export class GroupAccessTokens extends ResourceAccessTokens {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
