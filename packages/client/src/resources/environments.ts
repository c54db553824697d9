import type { CreateEnvironmentInput, EnvironmentEntity, ListEnvironmentsInput, UpdateEnvironmentInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListEnvironmentsParams = ListParams<ListEnvironmentsInput>;
export type CreateEnvironmentParams = Omit<CreateEnvironmentInput, 'id' | 'name' | 'slug'>;
export type EditEnvironmentParams = Omit<UpdateEnvironmentInput, 'id' | 'environment_id' | 'slug'>;

/**
 * Environments: `/projects/:id/environments[/:environment_id]`. `tier` is production,
 * staging, testing, development or other (guessed from the name when not given).
 */
export class Environments {
  constructor(private readonly requester: Requester) {}

  /** By id; `name` (exact) or `search` (3+ characters), `states`. */
  all(projectId: ResourceId, params: ListEnvironmentsParams = {}): Paginated<EnvironmentEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/environments`, params);
  }

  /** With `last_deployment` (the last successful one), without `project`. */
  show(projectId: ResourceId, environmentId: number): Promise<EnvironmentEntity> {
    return this.requester.get(endpoint`projects/${projectId}/environments/${environmentId}`);
  }

  /** Developers and up. */
  create(projectId: ResourceId, name: string, params: CreateEnvironmentParams = {}): Promise<EnvironmentEntity> {
    return this.requester.post(endpoint`projects/${projectId}/environments`, { name, ...params });
  }

  edit(projectId: ResourceId, environmentId: number, params: EditEnvironmentParams): Promise<EnvironmentEntity> {
    return this.requester.put(endpoint`projects/${projectId}/environments/${environmentId}`, params);
  }

  /** Stops it (state `stopped`). */
  stop(projectId: ResourceId, environmentId: number, params: { force?: boolean } = {}): Promise<EnvironmentEntity> {
    return this.requester.post(endpoint`projects/${projectId}/environments/${environmentId}/stop`, params);
  }

  /** Only a stopped environment may be deleted (403 otherwise). */
  remove(projectId: ResourceId, environmentId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/environments/${environmentId}`);
  }
}
