import type {
  ListGroupPackagesInput,
  ListPackagesInput,
  PackageDetailsEntity,
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
import type { UploadSource } from '../infrastructure/multipart.js';
import { Paginated } from '../infrastructure/paginated.js';
import type { AtLeastOne, ListParams, ResourceId } from '../infrastructure/params.js';
import type { Requester, StreamResponse } from '../infrastructure/requester.js';

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

  /** One package, with `versions`: the other versions of its name in the project. */
  show(projectId: ResourceId, packageId: number): Promise<PackageDetailsEntity> {
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

/** OData options of a v2 `Packages()` query (as NuGet 2.x sends them). */
export interface NugetV2QueryParams {
  $filter?: string;
  $skip?: string;
  $top?: string;
  $orderby?: string;
}

/** A package file to publish: a path (streamed from disk), bytes or a stream. */
export interface NugetUploadParams {
  /** The file name sent (default: the path's base name, else `package.nupkg`). */
  filename?: string;
  /** Bytes of the file sent so far, and its size (null for a stream); starts over on a retry. */
  onProgress?: (sent: number, total: number | null) => void;
}

/** The feed's answer to a push. */
export interface NugetUploadResult {
  /** The HTTP status (201 Created). */
  status: number;
  /** The answer's `message`, e.g. `201 Created`; null when it has none. */
  message: string | null;
}

/**
 * A NuGet feed (v3) with the client's token: service index, search, registration, the package
 * index, publishing (`.nupkg` and `.snupkg`, multipart, streamed from disk), downloads (streamed)
 * and deletes. gitbeaker's `NuGet` names where it has the call.
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

  /** Publishes a `.nupkg` (Developer; `PUT …/packages/nuget`, multipart `package`). Not retried when `content` is a stream. */
  uploadPackageFile(projectId: ResourceId, content: UploadSource, params: NugetUploadParams = {}): Promise<NugetUploadResult> {
    return this.#push(endpoint`projects/${projectId}/packages/nuget`, content, params, 'package.nupkg');
  }

  /** Publishes the `.snupkg` of a published package (`PUT …/nuget/symbolpackage`). */
  uploadSymbolPackage(projectId: ResourceId, content: UploadSource, params: NugetUploadParams = {}): Promise<NugetUploadResult> {
    return this.#push(endpoint`projects/${projectId}/packages/nuget/symbolpackage`, content, params, 'package.snupkg');
  }

  async #push(path: string, content: UploadSource, params: NugetUploadParams, fallback: string): Promise<NugetUploadResult> {
    const file = { field: 'package', filename: params.filename ?? defaultName(content, fallback), content, ...(params.onProgress && { onProgress: params.onProgress }) };
    const res = await this.requester.upload<{ message?: unknown } | string | undefined>('PUT', path, { files: [file] });
    const message = typeof res.data === 'object' && res.data !== null && typeof res.data.message === 'string' ? res.data.message : null;
    return { status: res.status, message };
  }

  /** A package (or symbol package) file, streamed: `fileName` as listed, e.g. `my.pkg.1.0.0.nupkg`. */
  downloadPackageFile(projectId: ResourceId, name: string, version: string, fileName: string): Promise<StreamResponse> {
    return this.requester.stream('GET', endpoint`projects/${projectId}/packages/nuget/download/${name}/${version}/${fileName}`);
  }

  /** Deletes one version of a package (Maintainer), as `nuget delete` does. */
  async removePackage(projectId: ResourceId, name: string, version: string): Promise<void> {
    await this.requester.delete(endpoint`projects/${projectId}/packages/nuget/${name}/${version}`);
  }

  /** The NuGet v2 service document (Atom XML; no credentials needed). */
  v2ServiceDocument(target: { projectId: ResourceId } | { groupId: ResourceId }): Promise<string> {
    return this.requester.get<string>(`${this.prefix(target)}/v2`);
  }

  /** The NuGet v2 `$metadata` (EDMX). */
  v2Metadata(target: { projectId: ResourceId } | { groupId: ResourceId }): Promise<string> {
    return this.requester.get<string>(`${this.prefix(target)}/v2/$metadata`);
  }

  /** The v2 entry of one version (Atom XML): `Packages(Id='…',Version='…')`, its download URL. */
  v2Package(projectId: ResourceId, name: string, version: string): Promise<string> {
    return this.requester.get<string>(`${endpoint`projects/${projectId}/packages/nuget/v2`}/Packages(Id='${encodeURIComponent(name)}',Version='${encodeURIComponent(version)}')`);
  }

  /** The v2 entry of a package by name (`FindPackagesById()?id='…'`): the newest version when the token may read it. */
  v2FindPackagesById(projectId: ResourceId, name: string): Promise<string> {
    return this.requester.get<string>(endpoint`projects/${projectId}/packages/nuget/v2/FindPackagesById()`, { id: `'${name}'` });
  }

  /** A v2 `Packages()` query (Atom XML): `$filter=tolower(Id) eq '…'` gives the name's entry, other filters a feed. */
  v2Packages(projectId: ResourceId, params: NugetV2QueryParams = {}): Promise<string> {
    return this.requester.get<string>(endpoint`projects/${projectId}/packages/nuget/v2/Packages()`, params);
  }

  /**
   * A `.pdb` from the symbol server, streamed, by file name and signature (as a debugger asks:
   * `checksum` is the `Symbolchecksum` header, `SHA256:<hex>`).
   */
  symbolFile(target: { projectId: ResourceId } | { groupId: ResourceId }, fileName: string, signature: string, checksum: string): Promise<StreamResponse> {
    return this.requester.stream('GET', `${this.prefix(target)}/${endpoint`symbolfiles/${fileName}/${signature}/${fileName}`}`, { headers: { Symbolchecksum: checksum } });
  }
}

function defaultName(content: UploadSource, fallback: string): string {
  if (typeof content === 'object' && content !== null && 'path' in content && typeof content.path === 'string') return content.path.split(/[\\/]/).pop() || fallback;
  return fallback;
}
