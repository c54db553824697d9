import type { Requester } from '../infrastructure/requester.js';
import { ResourceMembers } from '../templates/resource-members.js';

/** Members of a project: `/projects/:id/members`. */
export class ProjectMembers extends ResourceMembers {
  constructor(requester: Requester) {
    super(requester, 'projects');
  }
}
