/** Parameters of the package feed and package API routes. */
import { paginationParams } from '../../kernel/pagination.js';
import { p, params, type InferShape } from '../../kernel/params.js';
import { PACKAGE_NAME_RE } from './nuget-version.js';

/** GitLab's `NO_SLASH_URL_PART_REGEX` (path parts) for names and versions. */
const part = () => p.string().nonBlank();
const name = () => p.string().nonBlank().regex(PACKAGE_NAME_RE);

export const FeedRefInput = params({ id: p.string() });
export type FeedRefInput = InferShape<typeof FeedRefInput.shape>;

export const NameInput = params({ id: p.string(), package_name: name() });
export type NameInput = InferShape<typeof NameInput.shape>;

export const NameVersionInput = params({ id: p.string(), package_name: name(), package_version: part() });
export type NameVersionInput = InferShape<typeof NameVersionInput.shape>;

export const DownloadInput = params({ id: p.string(), package_name: name(), package_version: part(), package_filename: part() });
export type DownloadInput = InferShape<typeof DownloadInput.shape>;

export const SearchInputSchema = params({
  id: p.string(),
  q: p.string().optional(),
  skip: p.string().regex(/^(0|[1-9]\d*)$/).default('0').describe('GitLab\'s NON_NEGATIVE_INTEGER_REGEX / POSITIVE_INTEGER_REGEX.'),
  take: p.string().regex(/^[1-9]\d*$/).default('20'),
  prerelease: p.boolean().default(true),
});
export type SearchInputSchema = InferShape<typeof SearchInputSchema.shape>;

export const UploadInputSchema = params({
  id: p.string(),
  package: p.file().optional(),
  file: p.file().optional(),
  package_name: p.string().optional(),
  package_version: p.string().optional(),
  packageName: p.string().optional(),
  packageVersion: p.string().optional(),
  package_filename: p.string().optional(),
});
export type UploadInputSchema = InferShape<typeof UploadInputSchema.shape>;

export const SymbolFileInput = params({ id: p.string(), file_name: part(), signature: part(), same_file_name: part() });
export type SymbolFileInput = InferShape<typeof SymbolFileInput.shape>;

/** OData options of `Packages()` (what `nuget list` sends). */
const odataOptions = {
  $filter: p.string().optional().describe("OData filter: `tolower(Id) eq '<name>'`, `substringof('<term>',tolower(Id|Description|Tags))` terms, `IsLatestVersion`, `IsAbsoluteLatestVersion`."),
  $skip: p.string().regex(/^\s*\d*\s*$/).optional().describe('Entries to skip.'),
  $top: p.string().regex(/^\s*\d*\s*$/).optional().describe('Entries to answer (at most 100).'),
  $orderby: p.string().optional().describe('Repeated in the next link; entries come by id, then version.'),
};

export const V2PackagesInput = params({ id: p.string(), ...odataOptions });
export type V2PackagesInput = InferShape<typeof V2PackagesInput.shape>;

/** The project is `:project_id` here: `id` is the function's parameter. */
export const V2FindPackagesByIdInput = params({
  project_id: p.string(),
  id: p.string().describe("The package name, quoted: `'My.Pkg'`."),
});
export type V2FindPackagesByIdInput = InferShape<typeof V2FindPackagesByIdInput.shape>;

export const PACKAGE_TYPES = [
  'conan', 'maven', 'npm', 'pypi', 'composer', 'nuget', 'helm', 'terraform_module', 'golang', 'generic', 'debian', 'rubygems', 'rpm', 'ml_model', 'cargo',
] as const;
export const PACKAGE_STATUSES = ['default', 'hidden', 'processing', 'error', 'pending_destruction', 'deprecated'] as const;

const listFields = {
  id: p.string(),
  order_by: p.enum(['created_at', 'name', 'version', 'type']).default('created_at'),
  sort: p.enum(['asc', 'desc']).default('asc'),
  package_type: p.enum(PACKAGE_TYPES).optional(),
  package_name: p.string().optional(),
  package_version: p.string().optional(),
  include_versionless: p.boolean().default(false),
  status: p.enum(PACKAGE_STATUSES).optional(),
  ...paginationParams,
};
export const ListPackagesInput = params(listFields);
export type ListPackagesInput = InferShape<typeof ListPackagesInput.shape>;

export const ListGroupPackagesInput = params({ ...listFields, exclude_subgroups: p.boolean().default(false) });
export type ListGroupPackagesInput = InferShape<typeof ListGroupPackagesInput.shape>;

export const PackageRefInput = params({ id: p.string(), package_id: p.id() });
export type PackageRefInput = InferShape<typeof PackageRefInput.shape>;

export const PackageFilesInput = params({
  id: p.string(),
  package_id: p.id(),
  order_by: p.enum(['id', 'file_name', 'created_at']).default('id'),
  sort: p.enum(['asc', 'desc']).default('asc'),
  ...paginationParams,
});
export type PackageFilesInput = InferShape<typeof PackageFilesInput.shape>;

export const PackageSettingsRefInput = params({ id: p.string() });
export const UpdatePackageSettingsSchema = params(
  {
    id: p.string(),
    nuget_duplicates_allowed: p.boolean().optional(),
    nuget_duplicate_exception_regex: p.string().nullable().optional(),
    nuget_symbol_server_enabled: p.boolean().optional(),
  },
  { atLeastOneOf: [['nuget_duplicates_allowed', 'nuget_duplicate_exception_regex', 'nuget_symbol_server_enabled']] },
);
export type UpdatePackageSettingsSchema = InferShape<typeof UpdatePackageSettingsSchema.shape>;
