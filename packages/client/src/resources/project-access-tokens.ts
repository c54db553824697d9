import type { Requester } from '../infrastructure/requester.js';
import { ResourceAccessTokens } from '../templates/resource-access-tokens.js';

/** Project access tokens: `/projects/:id/access_tokens`. */
export class ProjectAccessTokens extends ResourceAccessTokens {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
