export { packagesRoutes } from './packages.routes.js';
export type { PackageRow, PackageFileRow, PackageSymbolRow, NamespacePackageSettingRow } from './packages.table.js';
export type { PackageEntity, PackageDetailsEntity, PackageVersionEntity, PackageFileEntity, PackageTagEntity } from './package.entity.js';
export type { PackageSettingsEntity, UpdatePackageSettingsInput } from './settings.js';
export type {
  ServiceIndexEntity,
  RegistrationIndexEntity,
  RegistrationPageEntity,
  VersionMetadataEntity,
  CatalogEntryEntity,
  DependencyGroupEntity,
  PackageDependencyEntity,
  SearchResultEntity,
  SearchItemEntity,
  SearchVersionEntity,
  PackageVersionsEntity,
} from './feed.entity.js';
export type { ListPackagesInput, ListGroupPackagesInput, PackageRefInput, PackageFilesInput } from './packages.schema.js';
export { PACKAGE_TYPES, PACKAGE_STATUSES } from './packages.schema.js';
export { listProjectPackages, listGroupPackages, getProjectPackage, deleteProjectPackage, listPackageFiles } from './packages-api.js';
export { getPackageSettings, updatePackageSettings } from './settings.js';
export { normalizeVersion, formatVersion, fullVersion, versionSortKey, compareVersions, isPrereleaseVersion, isValidVersion, isValidPackageName } from './nuget-version.js';
export { parseNuspec, type NuspecMetadata, type NuspecDependencyGroup } from './nuspec.js';
export { pdbIdentity, type PdbIdentity } from './pdb.js';
export { MAX_PACKAGE_BYTES } from './upload.js';
