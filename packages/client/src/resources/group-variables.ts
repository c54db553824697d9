import { ResourceVariables } from '../templates/resource-variables.js';
import type { Requester } from '../infrastructure/requester.js';

/** Group CI/CD variables (Owners): `/groups/:id/variables[/:key]`; `environment_scope` on Premium and up. */
export class GroupVariables extends ResourceVariables {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
