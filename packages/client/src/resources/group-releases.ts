import type { BasicReleaseEntity, ReleaseEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export interface ListGroupReleasesParams extends PaginationParams {
  /** By `released_at` then id; `desc` by default. */
  sort?: 'asc' | 'desc';
  /** Only name, tag_name, description, created_at, released_at, upcoming_release. */
  simple?: boolean;
}

/** Releases of the projects of a group and its subgroups the caller may see: `/groups/:id/releases` (Guest of the group). */
export class GroupReleases {
  constructor(private readonly requester: Requester) {}

  all(groupId: ResourceId, params: ListGroupReleasesParams & { simple: true }): Paginated<BasicReleaseEntity>;
  all(groupId: ResourceId, params?: ListGroupReleasesParams & { simple?: false }): Paginated<ReleaseEntity>;
  all(groupId: ResourceId, params: ListGroupReleasesParams = {}): Paginated<ReleaseEntity | BasicReleaseEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/releases`, params);
  }
}
