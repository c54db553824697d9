import type { CreateProjectInput, ListProjectsInput, ListProjectUsersInput, ProjectEntity, ProjectSimpleEntity, UpdateProjectInput, UserBasicEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListProjectsParams = ListParams<ListProjectsInput>;
/** `name` or `path` (or both); `namespace_id` is a namespace id or full path. */
export type CreateProjectParams = Omit<CreateProjectInput, 'namespace_id' | 'name' | 'path'> &
  AtLeastOne<Pick<CreateProjectInput, 'name' | 'path'>> & { namespace_id?: ResourceId };
export type EditProjectParams = Omit<UpdateProjectInput, 'id'>;
export type ListProjectUsersParams = ListParams<ListProjectUsersInput>;

/** `/projects`. */
export class Projects {
  constructor(private readonly requester: Requester) {}

  /** Projects the caller can see; `simple: true` gives the short shape. */
  all(params: ListProjectsParams & { simple: true }): Paginated<ProjectSimpleEntity>;
  all(params?: ListProjectsParams & { simple?: false }): Paginated<ProjectEntity>;
  all(params?: ListProjectsParams): Paginated<ProjectEntity | ProjectSimpleEntity>;
  all(params: ListProjectsParams = {}): Paginated<ProjectEntity | ProjectSimpleEntity> {
    return new Paginated(this.requester, 'projects', params);
  }

  /** With the caller's `permissions`. */
  show(id: ResourceId): Promise<ProjectEntity> {
    return this.requester.get(endpoint`projects/${id}`);
  }

  /** Users with access to the project (its and its groups' members); `search`, `skip_users`. */
  users(id: ResourceId, params: ListProjectUsersParams = {}): Paginated<UserBasicEntity> {
    return new Paginated(this.requester, endpoint`projects/${id}/users`, params);
  }

  /** In the caller's namespace, or in `namespace_id` (a group id or path). Needs `name` or `path`. */
  create(params: CreateProjectParams): Promise<ProjectEntity> {
    return this.requester.post('projects', params);
  }

  edit(id: ResourceId, params: EditProjectParams): Promise<ProjectEntity> {
    return this.requester.put(endpoint`projects/${id}`, params);
  }

  /** Makes the project read-only (Maintainer); the project. */
  archive(id: ResourceId): Promise<ProjectEntity> {
    return this.requester.post(endpoint`projects/${id}/archive`, {});
  }

  unarchive(id: ResourceId): Promise<ProjectEntity> {
    return this.requester.post(endpoint`projects/${id}/unarchive`, {});
  }

  /** Deletes the project (202 Accepted). */
  remove(id: ResourceId): Promise<void> {
    return this.requester.delete(endpoint`projects/${id}`);
  }
}
