/** GitLab's package and package file entities (the generic `/packages` API). */
import type { UrlBuilder } from '../../access/context.js';
import type { PackageFileRow, PackageRow } from './packages.table.js';

export interface PackageTagEntity {
  name: string;
}

export interface PackageEntity {
  id: number;
  name: string;
  version: string;
  package_type: string;
  status: string;
  _links: { web_path: string; delete_api_path?: string };
  created_at: string;
  last_downloaded_at: string | null;
  /** Group lists only. */
  project_id?: number;
  project_path?: string;
  tags: PackageTagEntity[];
}

/** Another version of the same package (GitLab's PackageVersion entity). */
export interface PackageVersionEntity {
  id: number;
  version: string;
  created_at: string;
  tags: PackageTagEntity[];
}

/** One package as `GET /projects/:id/packages/:package_id` answers it: with the other versions of its name. */
export interface PackageDetailsEntity extends PackageEntity {
  versions: PackageVersionEntity[];
}

export interface PackageFileEntity {
  id: number;
  package_id: number;
  created_at: string;
  file_name: string;
  size: number;
  file_md5: string | null;
  file_sha1: string | null;
  file_sha256: string;
}

const tagsOf = (p: PackageRow): PackageTagEntity[] => (p.tags ?? '').split(' ').filter(Boolean).map((name) => ({ name }));

export function presentPackageVersion(p: PackageRow): PackageVersionEntity {
  return { id: p.id, version: p.version, created_at: p.created_at, tags: tagsOf(p) };
}

export function presentPackage(
  urls: UrlBuilder,
  p: PackageRow,
  project: { id: number; path_with_namespace: string },
  options: { canDestroy: boolean; group?: boolean },
): PackageEntity {
  const links: PackageEntity['_links'] = { web_path: `/${project.path_with_namespace}/-/packages/${p.id}` };
  if (options.canDestroy) links.delete_api_path = urls.api(`/projects/${project.id}/packages/${p.id}`);
  const entity: PackageEntity = {
    id: p.id,
    name: p.name,
    version: p.version,
    package_type: p.package_type,
    status: p.status,
    _links: links,
    created_at: p.created_at,
    last_downloaded_at: p.last_downloaded_at,
    tags: tagsOf(p),
  };
  if (options.group) {
    entity.project_id = project.id;
    entity.project_path = project.path_with_namespace;
  }
  return entity;
}

export function presentPackageFile(f: PackageFileRow): PackageFileEntity {
  return {
    id: f.id,
    package_id: f.package_id,
    created_at: f.created_at,
    file_name: f.file_name,
    size: Number(f.size),
    file_md5: f.file_md5,
    file_sha1: f.file_sha1,
    file_sha256: f.file_sha256,
  };
}
