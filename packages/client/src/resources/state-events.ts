import type { Requester } from '../infrastructure/requester.js';
import { ResourceStateEvents } from '../templates/resource-state-events.js';

/** `/projects/:id/issues/:issue_iid/resource_state_events`. */
export class IssueStateEvents extends ResourceStateEvents {
  constructor(requester: Requester) {
    super(requester, 'issues');
  }
}

/** `/projects/:id/merge_requests/:merge_request_iid/resource_state_events`. */
export class MergeRequestStateEvents extends ResourceStateEvents {
  constructor(requester: Requester) {
    super(requester, 'merge_requests');
  }
}
