import type { CreateReleaseLinkInput, LinkType, ReleaseLinkEntity } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, PaginationParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type CreateReleaseLinkParams = Partial<Omit<CreateReleaseLinkInput, 'id' | 'tag_name' | 'name' | 'url'>>;
export type EditReleaseLinkParams = AtLeastOne<{ name: string; url: string }> & {
  direct_asset_path?: string;
  /** Deprecated spelling of `direct_asset_path`. */
  filepath?: string;
  link_type?: LinkType;
};

/** Asset links of a release: `/projects/:id/releases/:tag_name/assets/links[/:link_id]`. */
export class ReleaseLinks {
  constructor(private readonly requester: Requester) {}

  /** Newest first. */
  all(projectId: ResourceId, tagName: string, params: PaginationParams = {}): Paginated<ReleaseLinkEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/releases/${tagName}/assets/links`, params);
  }

  show(projectId: ResourceId, tagName: string, linkId: number): Promise<ReleaseLinkEntity> {
    return this.requester.get(endpoint`projects/${projectId}/releases/${tagName}/assets/links/${linkId}`);
  }

  /** Developers and up; `name`, `url` and `direct_asset_path` are unique in the release. */
  create(projectId: ResourceId, tagName: string, name: string, url: string, params: CreateReleaseLinkParams = {}): Promise<ReleaseLinkEntity> {
    return this.requester.post(endpoint`projects/${projectId}/releases/${tagName}/assets/links`, { name, url, ...params });
  }

  edit(projectId: ResourceId, tagName: string, linkId: number, params: EditReleaseLinkParams): Promise<ReleaseLinkEntity> {
    return this.requester.put(endpoint`projects/${projectId}/releases/${tagName}/assets/links/${linkId}`, params);
  }

  /** Answers the deleted link. */
  async remove(projectId: ResourceId, tagName: string, linkId: number): Promise<ReleaseLinkEntity> {
    const url = this.requester.url(endpoint`projects/${projectId}/releases/${tagName}/assets/links/${linkId}`);
    return (await this.requester.send<ReleaseLinkEntity>('DELETE', url)).data;
  }
}
