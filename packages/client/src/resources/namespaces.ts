import type { ListNamespacesInput, NamespaceDetailEntity, NamespaceExistenceEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListNamespacesParams = ListParams<ListNamespacesInput>;

/** `/namespaces`: the caller's user namespace and groups (administrators: all). */
export class Namespaces {
  constructor(private readonly requester: Requester) {}

  all(params: ListNamespacesParams = {}): Paginated<NamespaceDetailEntity> {
    return new Paginated(this.requester, 'namespaces', params);
  }

  /** By id or full path; 404 unless the caller belongs to the namespace. */
  show(id: ResourceId): Promise<NamespaceDetailEntity> {
    return this.requester.get(endpoint`namespaces/${id}`);
  }

  /** Whether `path` is taken among `parent_id`'s children (or the top level), with a free suggestion. */
  exists(path: string, params: { parent_id?: number } = {}): Promise<NamespaceExistenceEntity> {
    return this.requester.get(endpoint`namespaces/${path}/exists`, params);
  }
}
