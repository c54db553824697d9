import type { ResourceStateEventEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';
import { ResourceStateEvents, type ListStateEventsParams } from '../templates/resource-state-events.js';

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

/** `/groups/:id/epics/:epic_id/resource_state_events`: `epic_id` is the epic's global id, as in GitLab. */
export class EpicStateEvents {
  constructor(private readonly requester: Requester) {}

  all(groupId: ResourceId, epicId: number, params: ListStateEventsParams = {}): Paginated<ResourceStateEventEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/epics/${epicId}/resource_state_events`, params);
  }

  show(groupId: ResourceId, epicId: number, eventId: number): Promise<ResourceStateEventEntity> {
    return this.requester.get(endpoint`groups/${groupId}/epics/${epicId}/resource_state_events/${eventId}`);
  }
}
