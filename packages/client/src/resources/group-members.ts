import type { Requester } from '../infrastructure/requester.js';
import { ResourceMembers } from '../templates/resource-members.js';

/** Members of a group: `/groups/:id/members`. */
export class GroupMembers extends ResourceMembers {
  constructor(requester: Requester) {
    super(requester, 'groups');
  }
}
