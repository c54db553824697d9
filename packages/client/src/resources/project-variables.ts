import { ResourceVariables } from '../templates/resource-variables.js';
import type { Requester } from '../infrastructure/requester.js';

/** Project CI/CD variables (Maintainers): `/projects/:id/variables[/:key]`. */
export class ProjectVariables extends ResourceVariables {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
