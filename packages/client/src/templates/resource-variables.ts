/**
 * Project and group CI/CD variables: one template mounted under `projects/:id` and `groups/:id`.
 * A key held by several environment scopes needs `filter: { environment_scope }` to pick one
 * (409 otherwise).
 */
import type { CiVariableEntity, CreateProjectVariableInput, UpdateProjectVariableInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** `masked` values must pass GitLab's masking rules; `masked_and_hidden` values are never answered again. */
export type CreateVariableParams = Omit<CreateProjectVariableInput, 'id' | 'key' | 'value'>;
export type EditVariableParams = Omit<UpdateProjectVariableInput, 'id' | 'key' | 'filter'>;
/** Picks among the environment scopes of a key. */
export interface VariableFilter {
  filter?: { environment_scope?: string };
}

export class ResourceVariables {
  constructor(
    private readonly requester: Requester,
    private readonly prefix: 'projects' | 'groups',
  ) {}

  all(id: ResourceId, params: PaginationParams = {}): Paginated<CiVariableEntity> {
    return new Paginated(this.requester, endpoint`${this.prefix}/${id}/variables`, params);
  }

  show(id: ResourceId, key: string, options: VariableFilter = {}): Promise<CiVariableEntity> {
    return this.requester.get(endpoint`${this.prefix}/${id}/variables/${key}`, { ...options });
  }

  create(id: ResourceId, key: string, value: string, params: CreateVariableParams = {}): Promise<CiVariableEntity> {
    return this.requester.post(endpoint`${this.prefix}/${id}/variables`, { key, value, ...params });
  }

  edit(id: ResourceId, key: string, params: EditVariableParams & VariableFilter): Promise<CiVariableEntity> {
    return this.requester.put(endpoint`${this.prefix}/${id}/variables/${key}`, params);
  }

  /** 204. */
  async remove(id: ResourceId, key: string, options: VariableFilter = {}): Promise<void> {
    await this.requester.send('DELETE', this.requester.url(endpoint`${this.prefix}/${id}/variables/${key}`, { ...options }));
  }
}
