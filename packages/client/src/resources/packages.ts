import type {
  ListGroupPackagesInput,
  ListPackagesInput,
  PackageEntity,
  PackageFileEntity,
  PackageFilesInput,
  PackageSettingsEntity,
  PackageVersionsEntity,
  RegistrationIndexEntity,
  SearchResultEntity,
  ServiceIndexEntity,
  VersionMetadataEntity,
} from '@forgelet/core';
import { endpoint } from '../infrastructure/endpoint.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester } from '../infrastructure/requester.js';

export type ListPackagesParams = ListParams<ListPackagesInput>;
export type ListGroupPackagesParams = ListParams<ListGroupPackagesInput>;
export type ListPackageFilesParams = Partial<Omit<PackageFilesInput, 'id' | 'package_id'>>;
export type EditPackageSettingsParams = AtLeastOne<{
  nuget_duplicates_allowed: boolean;
  /** Names or versions matching it may be published again while duplicates are refused; null clears it. */
  nuget_duplicate_exception_regex: string | null;
  nuget_symbol_server_enabled: boolean;
}>;

/** Search parameters of the NuGet v3 search service. */
export interface FeedSearchParams {
  q?: string;
  skip?: number;
  /** At most 30. */
  take?: number;
  /** Default true. */
  prerelease?: boolean;
}

/**
 * Packages of a project or group (GitLab's generic package API: `/projects/:id/packages`,
 * `/groups/:id/packages`), and the group package settings (the Forgelet extension
 * `/forgelet/groups/:id/package_settings`, Maintainers of the group).
 */
export class Packages {
  constructor(private readonly requester: Requester) {}

  /** Default order: `created_at` ascending. */
  all(projectId: ResourceId, params: ListPackagesParams = {}): Paginated<PackageEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/packages`, params);
  }

  /** Packages of the projects of a group (and its subgroups unless `exclude_subgroups`) the caller may read. */
  allOfGroup(groupId: ResourceId, params: ListGroupPackagesParams = {}): Paginated<PackageEntity> {
    return new Paginated(this.requester, endpoint`groups/${groupId}/packages`, params);
  }

  show(projectId: ResourceId, packageId: number): Promise<PackageEntity> {
    return this.requester.get(endpoint`projects/${projectId}/packages/${packageId}`);
  }

  files(projectId: ResourceId, packageId: number, params: ListPackageFilesParams = {}): Paginated<PackageFileEntity> {
    return new Paginated(this.requester, endpoint`projects/${projectId}/packages/${packageId}/package_files`, params);
  }

  /** Maintainers and up; the package's files (and symbol files) go with it. */
  remove(projectId: ResourceId, packageId: number): Promise<void> {
    return this.requester.delete(endpoint`projects/${projectId}/packages/${packageId}`);
  }

  settings(groupId: ResourceId): Promise<PackageSettingsEntity> {
    return this.requester.get(endpoint`forgelet/groups/${groupId}/package_settings`);
  }

  editSettings(groupId: ResourceId, params: EditPackageSettingsParams): Promise<PackageSettingsEntity> {
    return this.requester.put(endpoint`forgelet/groups/${groupId}/package_settings`, params);
  }
}

/**
 * The JSON side of a NuGet feed (v3), read with the client's token: service index, search,
 * registration and the package index. Publishing is multipart; use a NuGet client for it.
 */
export class NugetFeed {
  constructor(private readonly requester: Requester) {}

  private prefix(target: { projectId: ResourceId } | { groupId: ResourceId }): string {
    return 'projectId' in target ? endpoint`projects/${target.projectId}/packages/nuget` : endpoint`groups/${target.groupId}/-/packages/nuget`;
  }

  serviceIndex(target: { projectId: ResourceId } | { groupId: ResourceId }): Promise<ServiceIndexEntity> {
    return this.requester.get(`${this.prefix(target)}/index.json`);
  }

  search(target: { projectId: ResourceId } | { groupId: ResourceId }, params: FeedSearchParams = {}): Promise<SearchResultEntity> {
    return this.requester.get(`${this.prefix(target)}/query`, { ...params });
  }

  /** Every version of a package (registration index, one page, inlined). */
  metadata(target: { projectId: ResourceId } | { groupId: ResourceId }, name: string): Promise<RegistrationIndexEntity> {
    return this.requester.get(`${this.prefix(target)}/${endpoint`metadata/${name}`}/index.json`);
  }

  versionMetadata(target: { projectId: ResourceId } | { groupId: ResourceId }, name: string, version: string): Promise<VersionMetadataEntity> {
    return this.requester.get(`${this.prefix(target)}/${endpoint`metadata/${name}/${version}`}.json`);
  }

  /** The versions of a package in a project (flat container index). */
  versions(projectId: ResourceId, name: string): Promise<PackageVersionsEntity> {
    return this.requester.get(endpoint`projects/${projectId}/packages/nuget/download/${name}/index.json`);
  }
}
