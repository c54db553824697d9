/** Resource state events: one template mounted under issues and merge requests. */
import type { ListStateEventsInput, ResourceStateEventEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListStateEventsParams = ListParams<ListStateEventsInput>;

export class ResourceStateEvents {
  constructor(
    private readonly requester: Requester,
    private readonly segment: 'issues' | 'merge_requests',
  ) {}

  /** Close, reopen and merge events, oldest first; empty for a resource never closed or reopened. */
  all(projectId: ResourceId, iid: number, params: ListStateEventsParams = {}): Paginated<ResourceStateEventEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/${this.segment}/${iid}/resource_state_events`, params);
  }

  show(projectId: ResourceId, iid: number, eventId: number): Promise<ResourceStateEventEntity> {
    return this.requester.get(endpoint`projects/${projectId}/${this.segment}/${iid}/resource_state_events/${eventId}`);
  }
}
