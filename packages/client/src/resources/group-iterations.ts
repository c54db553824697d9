import type { CreateIterationInput, IterationEntity, ListGroupIterationsInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Filters of `GET /groups/:id/iterations`; datetimes as Date or ISO-8601 text. */
export type ListGroupIterationsParams = Omit<ListParams<ListGroupIterationsInput>, 'updated_before' | 'updated_after'> & {
  updated_before?: Date | string;
  updated_after?: Date | string;
};
export type CreateIterationParams = Omit<CreateIterationInput, 'id'>;

/**
 * `GET /groups/:id/iterations` (Premium and Ultimate), and Forgelet's
 * `POST /forgelet/groups/:id/iterations` for iterations of manual cadences.
 */
export class GroupIterations {
  constructor(private readonly requester: Requester) {}

  /** Iterations of the group and, by default, its ancestors; `state` is 1 upcoming, 2 current, 3 closed. */
  all(id: ResourceId, params: ListGroupIterationsParams = {}): Paginated<IterationEntity> {
    return new Paginated(this.requester, endpoint`groups/${id}/iterations`, params);
  }

  /** An iteration in one of the group's manual cadences (Forgelet extension; GitLab does this in GraphQL). */
  create(id: ResourceId, params: CreateIterationParams): Promise<IterationEntity> {
    return this.requester.post(endpoint`forgelet/groups/${id}/iterations`, params);
  }
}
