/** The JSON documents of the v3 feed, shaped as GitLab's NuGet presenters answer them. */
import { enc, packageContentUrl, versionJsonUrl } from './feed-urls.js';
import { fullVersion } from './nuget-version.js';
import type { NuspecDependencyGroup } from './nuspec.js';
import type { PackageRow } from './packages.table.js';

export interface ServiceIndexEntity {
  version: '3.0.0';
  resources: { '@id': string; '@type': string; comment: string }[];
}

export interface PackageDependencyEntity {
  '@id': string;
  '@type': 'PackageDependency';
  id: string;
  range?: string;
}

export interface DependencyGroupEntity {
  '@id': string;
  '@type': 'PackageDependencyGroup';
  targetFramework?: string;
  dependencies: PackageDependencyEntity[];
}

export interface CatalogEntryEntity {
  '@id': string;
  authors: string;
  dependencyGroups: DependencyGroupEntity[];
  id: string;
  version: string;
  tags: string;
  packageContent: string;
  description: string;
  summary: string;
  published: string;
  projectUrl?: string;
  licenseUrl?: string;
  iconUrl?: string;
}

export interface VersionMetadataEntity {
  '@id': string;
  packageContent: string;
  catalogEntry: CatalogEntryEntity;
}

export interface RegistrationPageEntity {
  '@id': string;
  lower: string;
  upper: string;
  count: number;
  items: VersionMetadataEntity[];
}

export interface RegistrationIndexEntity {
  count: number;
  items: RegistrationPageEntity[];
}

export interface SearchVersionEntity {
  '@id': string;
  version: string;
  downloads: number;
}

export interface SearchItemEntity {
  '@type': 'Package';
  authors: string;
  id: string;
  title: string;
  description: string;
  summary: string;
  totalDownloads: number;
  verified: boolean;
  version: string;
  versions: SearchVersionEntity[];
  tags: string;
  projectUrl?: string;
  licenseUrl?: string;
  iconUrl?: string;
}

export interface SearchResultEntity {
  totalHits: number;
  data: SearchItemEntity[];
}

export interface PackageVersionsEntity {
  versions: string[];
}

const SEARCH = 'Filter and search for packages by keyword.';
const METADATA = 'Get package metadata.';

/** The service index, in GitLab's resource order, plus the spec's symbol publish entry. */
export function presentServiceIndex(base: string): ServiceIndexEntity {
  const r = (id: string, type: string, comment: string) => ({ '@id': id, '@type': type, comment });
  return {
    version: '3.0.0',
    resources: [
      r(`${base}/download`, 'PackageBaseAddress/3.0.0', 'Get package content (.nupkg).'),
      r(`${base}/query`, 'SearchQueryService', SEARCH),
      r(`${base}/query`, 'SearchQueryService/3.0.0-beta', SEARCH),
      r(`${base}/query`, 'SearchQueryService/3.0.0-rc', SEARCH),
      r(base, 'PackagePublish/2.0.0', 'Push and delete (or unlist) packages.'),
      r(`${base}/metadata`, 'RegistrationsBaseUrl', METADATA),
      r(`${base}/metadata`, 'RegistrationsBaseUrl/3.0.0-beta', METADATA),
      r(`${base}/metadata`, 'RegistrationsBaseUrl/3.0.0-rc', METADATA),
      r(`${base}/symbolpackage`, 'SymbolPackagePublish/4.9.0', 'Push symbol packages.'),
    ],
  };
}

function optionalUrls(p: PackageRow): Pick<CatalogEntryEntity, 'projectUrl' | 'licenseUrl' | 'iconUrl'> {
  const out: Pick<CatalogEntryEntity, 'projectUrl' | 'licenseUrl' | 'iconUrl'> = {};
  if (p.project_url) out.projectUrl = p.project_url;
  if (p.license_url) out.licenseUrl = p.license_url;
  if (p.icon_url) out.iconUrl = p.icon_url;
  return out;
}

function dependencyGroupsOf(p: PackageRow, id: string): DependencyGroupEntity[] {
  let groups: NuspecDependencyGroup[];
  try {
    groups = JSON.parse(p.dependency_groups) as NuspecDependencyGroup[];
  } catch {
    groups = [];
  }
  return groups.map((g) => {
    const groupId = g.targetFramework ? `${id}#dependencyGroup/${g.targetFramework.toLowerCase()}` : `${id}#dependencyGroup`;
    const entity: DependencyGroupEntity = { '@id': groupId, '@type': 'PackageDependencyGroup', dependencies: [] };
    if (g.targetFramework) entity.targetFramework = g.targetFramework;
    entity.dependencies = g.dependencies.map((d) => {
      const dep: PackageDependencyEntity = { '@id': `${groupId}/${d.id.toLowerCase()}`, '@type': 'PackageDependency', id: d.id };
      if (d.range) dep.range = d.range;
      return dep;
    });
    return entity;
  });
}

export interface PresentContext {
  /** Absolute route prefix of the request. */
  base: string;
  projectBase(projectId: number): string;
}

/**
 * A registration leaf: URLs carry the normalized version (`01.2.3` → `1.2.3`, build metadata
 * dropped), the catalog entry NuGet's full version (`1.2.3`, `4.0.0-alpha+build.7`).
 */
export function presentVersionMetadata(c: PresentContext, p: PackageRow): VersionMetadataEntity {
  const id = versionJsonUrl(c.base, p.name, p.normalized_version);
  const content = packageContentUrl(c.projectBase(p.project_id), p.name, p.normalized_version);
  return {
    '@id': id,
    packageContent: content,
    catalogEntry: {
      '@id': id,
      authors: p.authors ?? '',
      dependencyGroups: dependencyGroupsOf(p, id),
      id: p.name,
      version: fullVersion(p.version),
      tags: p.tags ?? '',
      packageContent: content,
      description: p.description ?? '',
      summary: p.summary ?? '',
      published: p.created_at,
      ...optionalUrls(p),
    },
  };
}

/** One page holding every version (ascending), inlined; `lower` and `upper` normalized. */
export function presentRegistrationIndex(c: PresentContext, packages: PackageRow[]): RegistrationIndexEntity {
  const items = packages.map((p) => presentVersionMetadata(c, p));
  return {
    count: 1,
    items: [
      {
        '@id': items[0]!['@id'],
        lower: packages[0]!.normalized_version,
        upper: packages[packages.length - 1]!.normalized_version,
        count: items.length,
        items,
      },
    ],
  };
}

/** One search hit: `versions` ascending, `version` the highest; full versions (build metadata kept), normalized URLs. */
export function presentSearchItem(c: PresentContext, versions: PackageRow[]): SearchItemEntity {
  const latest = versions[versions.length - 1]!;
  const total = versions.reduce((n, v) => n + Number(v.download_count), 0);
  return {
    '@type': 'Package',
    authors: latest.authors ?? '',
    id: latest.name,
    title: latest.title ?? latest.name,
    description: latest.description ?? '',
    summary: latest.summary ?? '',
    totalDownloads: total,
    verified: true,
    version: fullVersion(latest.version),
    versions: versions.map((v) => ({ '@id': versionJsonUrl(c.base, v.name, v.normalized_version), version: fullVersion(v.version), downloads: Number(v.download_count) })),
    tags: latest.tags ?? '',
    ...optionalUrls(latest),
  };
}

export { enc };
