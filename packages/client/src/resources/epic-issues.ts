import type { EpicIssueEntity, EpicIssueLinkEntity, ListEpicIssuesInput, ReorderEpicIssueInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListEpicIssuesParams = ListParams<Omit<ListEpicIssuesInput, 'epic_iid'>>;
export type EditEpicIssueParams = Partial<Omit<ReorderEpicIssueInput, 'id' | 'epic_iid' | 'epic_issue_id'>>;

/**
 * Issues of an epic (Premium): `/groups/:id/epics/:epic_iid/issues[/:epic_issue_id]`. An issue is
 * assigned by its global id; the association (`epic_issue_id`) is what is moved and removed.
 */
export class EpicIssues {
  constructor(private readonly requester: Requester) {}

  /** The epic's issues the caller can read, in the epic's order. */
  all(groupId: ResourceId, epicIid: number, params: ListEpicIssuesParams = {}): Paginated<EpicIssueEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/epics/${epicIid}/issues`, params);
  }

  /** Puts the issue first in the epic (moving it from another epic); the association. */
  assign(groupId: ResourceId, epicIid: number, issueId: number): Promise<EpicIssueLinkEntity> {
    return this.requester.post(endpoint`groups/${groupId}/epics/${epicIid}/issues/${issueId}`);
  }

  /** Moves the issue after `move_before_id` and/or before `move_after_id` (association ids); a page of the epic's issues in order (`page`, `per_page`). */
  edit(groupId: ResourceId, epicIid: number, epicIssueId: number, params: EditEpicIssueParams): Promise<EpicIssueEntity[]> {
    return this.requester.put(endpoint`groups/${groupId}/epics/${epicIid}/issues/${epicIssueId}`, params);
  }

  /** Takes the issue out of the epic; the former association. */
  async remove(groupId: ResourceId, epicIid: number, epicIssueId: number): Promise<EpicIssueLinkEntity> {
    const path = endpoint`groups/${groupId}/epics/${epicIid}/issues/${epicIssueId}`;
    return (await this.requester.send<EpicIssueLinkEntity>('DELETE', this.requester.url(path))).data;
  }
}
