import type { IssueEntity, ListGroupIssuesInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';
import type { IssueListParams } from './issues.js';

export type ListGroupIssuesParams = IssueListParams<ListParams<ListGroupIssuesInput>>;

/** `/groups/:id/issues`: issues of the group's and its subgroups' projects that the caller can read. */
export class GroupIssues {
  constructor(private readonly requester: Requester) {}

  all(id: ResourceId, params: ListGroupIssuesParams = {}): Paginated<IssueEntity> {
    return new Paginated(this.requester, endpoint`groups/${id}/issues`, params);
  }
}
