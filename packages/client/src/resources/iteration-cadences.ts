import type {
  CreateIterationCadenceInput,
  IterationCadenceEntity,
  ListIterationCadencesInput,
  UpdateIterationCadenceInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListIterationCadencesParams = ListParams<ListIterationCadencesInput>;
export type CreateIterationCadenceParams = Omit<CreateIterationCadenceInput, 'id'>;
export type EditIterationCadenceParams = Omit<UpdateIterationCadenceInput, 'id' | 'cadence_id'>;

/**
 * Forgelet's `/forgelet/groups/:id/iteration_cadences[/:cadence_id]` (GitLab manages cadences
 * in GraphQL only). Automatic cadences schedule their iterations on the server.
 */
export class IterationCadences {
  constructor(private readonly requester: Requester) {}

  all(id: ResourceId, params: ListIterationCadencesParams = {}): Paginated<IterationCadenceEntity> {
    return new Paginated(this.requester, endpoint`forgelet/groups/${id}/iteration_cadences`, params);
  }

  show(id: ResourceId, cadenceId: number): Promise<IterationCadenceEntity> {
    return this.requester.get(endpoint`forgelet/groups/${id}/iteration_cadences/${cadenceId}`);
  }

  /** Automatic (the default) needs start_date, duration_in_weeks (1-4) and iterations_in_advance (1-10). */
  create(id: ResourceId, params: CreateIterationCadenceParams): Promise<IterationCadenceEntity> {
    return this.requester.post(endpoint`forgelet/groups/${id}/iteration_cadences`, params);
  }

  edit(id: ResourceId, cadenceId: number, params: EditIterationCadenceParams): Promise<IterationCadenceEntity> {
    return this.requester.put(endpoint`forgelet/groups/${id}/iteration_cadences/${cadenceId}`, params);
  }

  /** Deletes the cadence with its iterations (204). */
  remove(id: ResourceId, cadenceId: number): Promise<void> {
    return this.requester.delete(endpoint`forgelet/groups/${id}/iteration_cadences/${cadenceId}`);
  }
}
