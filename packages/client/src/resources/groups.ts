import type {
  CreateGroupInput,
  GroupEntity,
  ListGroupProjectsInput,
  ListGroupsInput,
  ListSubgroupsInput,
  ProjectEntity,
  ProjectSimpleEntity,
  UpdateGroupInput,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListGroupsParams = ListParams<ListGroupsInput>;
export type ListSubgroupsParams = ListParams<ListSubgroupsInput>;
export type ListGroupProjectsParams = ListParams<ListGroupProjectsInput>;
export type CreateGroupParams = CreateGroupInput;
export type EditGroupParams = Omit<UpdateGroupInput, 'id'>;

/** `/groups`, `/groups/:id/subgroups`, `/groups/:id/descendant_groups`, `/groups/:id/projects`. */
export class Groups {
  constructor(private readonly requester: Requester) {}

  all(params: ListGroupsParams = {}): Paginated<GroupEntity> {
    return new Paginated(this.requester, 'groups', params);
  }

  show(id: ResourceId): Promise<GroupEntity> {
    return this.requester.get(endpoint`groups/${id}`);
  }

  /** A top-level group, or a subgroup with `parent_id`; the caller becomes Owner. */
  create(params: CreateGroupParams): Promise<GroupEntity> {
    return this.requester.post('groups', params);
  }

  edit(id: ResourceId, params: EditGroupParams): Promise<GroupEntity> {
    return this.requester.put(endpoint`groups/${id}`, params);
  }

  /** Deletes the group with its subgroups and projects (202 Accepted). */
  remove(id: ResourceId): Promise<void> {
    return this.requester.delete(endpoint`groups/${id}`);
  }

  /** Direct subgroups. */
  subgroups(id: ResourceId, params: ListSubgroupsParams = {}): Paginated<GroupEntity> {
    return new Paginated(this.requester, endpoint`groups/${id}/subgroups`, params);
  }

  /** Subgroups at any depth. */
  descendantGroups(id: ResourceId, params: ListSubgroupsParams = {}): Paginated<GroupEntity> {
    return new Paginated(this.requester, endpoint`groups/${id}/descendant_groups`, params);
  }

  /** The group's projects (`include_subgroups` for the whole tree); `simple: true` gives the short shape. */
  projects(id: ResourceId, params: ListGroupProjectsParams & { simple: true }): Paginated<ProjectSimpleEntity>;
  projects(id: ResourceId, params?: ListGroupProjectsParams & { simple?: false }): Paginated<ProjectEntity>;
  projects(id: ResourceId, params?: ListGroupProjectsParams): Paginated<ProjectEntity | ProjectSimpleEntity>;
  projects(id: ResourceId, params: ListGroupProjectsParams = {}): Paginated<ProjectEntity | ProjectSimpleEntity> {
    return new Paginated(this.requester, endpoint`groups/${id}/projects`, params);
  }
}
