import type { CreateReleaseInput, ListReleasesInput, ReleaseEntity, UpdateReleaseInput } from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

/** Datetimes as Date or ISO-8601 text. */
type Datetimes<T> = { [K in keyof T]: [NonNullable<T[K]>] extends [Date] ? Date | string : T[K] };

export type ListReleasesParams = Datetimes<ListParams<ListReleasesInput>>;
export type CreateReleaseParams = Datetimes<Omit<CreateReleaseInput, 'id' | 'tag_name'>>;
export type EditReleaseParams = Datetimes<Omit<UpdateReleaseInput, 'id' | 'tag_name'>>;
export interface ShowReleaseParams {
  include_html_description?: boolean;
}

/**
 * Project releases: `/projects/:id/releases[/:tag_name]`. Tags may hold slashes
 * (`release/1.0`); they are sent URL-encoded.
 */
export class Releases {
  constructor(private readonly requester: Requester) {}

  /** By `released_at` (or `created_at`), newest first unless `sort: 'asc'`. */
  all(projectId: ResourceId, params: ListReleasesParams = {}): Paginated<ReleaseEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/releases`, params);
  }

  show(projectId: ResourceId, tagName: string, params: ShowReleaseParams = {}): Promise<ReleaseEntity> {
    return this.requester.get(endpoint`projects/${projectId}/releases/${tagName}`, params);
  }

  /** The release with the latest `released_at` (the server redirects; the client follows). */
  showLatest(projectId: ResourceId, params: ShowReleaseParams = {}): Promise<ReleaseEntity> {
    return this.requester.get(endpoint`projects/${projectId}/releases/permalink/latest`, params);
  }

  /**
   * Where `…/releases/permalink/latest[/<suffixPath>]` redirects to: the same path under the
   * latest release (`suffixPath` e.g. `assets/links`), or null when it does not redirect.
   */
  showLatestUrl(projectId: ResourceId, suffixPath = '', params: ShowReleaseParams = {}): Promise<string | null> {
    const suffix = suffixPath ? `/${suffixPath.split('/').map(encodeURIComponent).join('/')}` : '';
    return this.requester.location(`${endpoint`projects/${projectId}/releases/permalink/latest`}${suffix}`, params);
  }

  /** The URL of the release's asset link with this `direct_asset_path` (what `…/downloads/*path` redirects to). */
  downloadUrl(projectId: ResourceId, tagName: string, directAssetPath: string): Promise<string | null> {
    const path = String(directAssetPath).replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/');
    return this.requester.location(`${endpoint`projects/${projectId}/releases/${tagName}/downloads`}/${path}`);
  }

  /** Developers and up. A missing tag is created from `ref` (annotated with `tag_message`). */
  create(projectId: ResourceId, tagName: string, params: CreateReleaseParams = {}): Promise<ReleaseEntity> {
    return this.requester.post(endpoint`projects/${projectId}/releases`, { tag_name: tagName, ...params });
  }

  /** Needs at least one field; `milestones: []` removes all milestones. */
  edit(projectId: ResourceId, tagName: string, params: EditReleaseParams): Promise<ReleaseEntity> {
    return this.requester.put(endpoint`projects/${projectId}/releases/${tagName}`, params);
  }

  /** Deletes the release (the tag stays); answers the release as it was. */
  async remove(projectId: ResourceId, tagName: string): Promise<ReleaseEntity> {
    return (await this.requester.send<ReleaseEntity>('DELETE', this.requester.url(endpoint`projects/${projectId}/releases/${tagName}`))).data;
  }
}
