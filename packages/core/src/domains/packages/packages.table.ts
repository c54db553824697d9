import type { Generated, Selectable } from 'kysely';

/**
 * One package version of a project (GitLab's packages_packages with the nuget metadatum
 * folded in). Identity: project, type, lower-cased name and normalized version.
 */
export interface PackageTable {
  id: Generated<number>;
  project_id: number;
  /** `nuget` (the spec's `pkgfeed`). */
  package_type: string;
  /** As the first upload spelled it. */
  name: string;
  /** lower(name); `collate "C"` on PostgreSQL so ordering matches SQLite. */
  lower_name: string;
  /** As the nuspec spelled it (build metadata included); the v3 feed shows NuGet's full version of it. */
  version: string;
  /** NuGet's normalized form, lower-cased: identity and lookups. */
  normalized_version: string;
  /** A text key whose byte order is SemVer 2 order (see nuget-version.ts). */
  version_sort: string;
  /** 1 when the version has a prerelease label. */
  prerelease: number;
  /** default | hidden | processing | error | pending_destruction */
  status: Generated<string>;
  authors: string | null;
  description: string | null;
  summary: string | null;
  title: string | null;
  /** Space-separated, as in the nuspec. */
  tags: string | null;
  project_url: string | null;
  icon_url: string | null;
  license_url: string | null;
  /** JSON: [{ targetFramework: string | null, dependencies: [{ id, range }] }]. */
  dependency_groups: string;
  download_count: Generated<number>;
  last_downloaded_at: string | null;
  created_at: string;
  updated_at: string;
}
export type PackageRow = Selectable<PackageTable>;

/** A file of a package: the package archive (`package`) or a symbol package (`symbol_package`). */
export interface PackageFileTable {
  id: Generated<number>;
  package_id: number;
  file_kind: string;
  /** `<id lower>.<normalized version>.nupkg` (`.snupkg`), as NuGet clients name it. */
  file_name: string;
  blob_key: string;
  size: number;
  file_sha256: string;
  /** Hex digests taken while the upload streamed in; null for files stored before they were recorded. */
  file_sha1: string | null;
  file_md5: string | null;
  created_at: string;
}
export type PackageFileRow = Selectable<PackageFileTable>;

/**
 * A debugging symbol file (`.pdb`) inside a symbol package: served from the symbol package's
 * blob by its zip entry offsets, found by file name, signature and checksum.
 */
export interface PackageSymbolTable {
  id: Generated<number>;
  package_id: number;
  package_file_id: number;
  /** Lower-cased base name (`mylib.pdb`). */
  file_name: string;
  /** Path inside the symbol package. */
  file_path: string;
  /** As GitLab computes it (`<guid hex>FFFFFFFF`). */
  signature: string;
  /** lower(signature), for lookups. */
  lower_signature: string;
  /** SHA-256 (hex) of the file with its PDB id zeroed. */
  file_sha256: string;
  size: number;
  compressed_size: number;
  compression_method: number;
  local_header_offset: number;
  created_at: string;
}
export type PackageSymbolRow = Selectable<PackageSymbolTable>;

/** Package registry settings of a group (GitLab's namespace_package_settings, the NuGet part). */
export interface NamespacePackageSettingTable {
  namespace_id: number;
  nuget_duplicates_allowed: number;
  nuget_duplicate_exception_regex: string;
  nuget_symbol_server_enabled: number;
  created_at: string;
  updated_at: string;
}
export type NamespacePackageSettingRow = Selectable<NamespacePackageSettingTable>;

// This domain's tables in the database schema (storage/database.ts).
declare module '../../storage/database.js' {
  interface Database {
    packages: PackageTable;
    package_files: PackageFileTable;
    package_symbols: PackageSymbolTable;
    namespace_package_settings: NamespacePackageSettingTable;
  }
}
