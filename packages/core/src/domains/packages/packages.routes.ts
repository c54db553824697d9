/**
 * Routes of the package feed (NuGet; the spec's `pkgfeed`) at project and group level, under
 * both `nuget` (what every client sends) and `pkgfeed`, with the `.json` spellings NuGet v3
 * clients use; the generic package API; the group package settings extension.
 */
import type { Ctx } from '../../access/context.js';
import type { Infer } from '../../kernel/params.js';
import { attachment, created, noContent, ok, paged, route, text, type Route, type RouteRequest } from '../../kernel/route.js';
import {
  deletePackageVersion,
  downloadPackageFile,
  getPackageVersions,
  getRegistrationIndex,
  getServiceIndex,
  getVersionMetadata,
  searchPackages,
  SEARCH_DEFAULT_TAKE,
  type FeedOwner,
} from './feed.js';
import { deleteProjectPackage, getProjectPackage, listGroupPackages, listPackageFiles, listProjectPackages } from './packages-api.js';
import {
  DownloadInput,
  FeedRefInput,
  ListGroupPackagesInput,
  ListPackagesInput,
  NameInput,
  NameVersionInput,
  PackageFilesInput,
  PackageRefInput,
  PackageSettingsRefInput,
  SearchInputSchema,
  SymbolFileInput,
  UpdatePackageSettingsSchema,
  UploadInputSchema,
  V2FindPackagesByIdInput,
  V2PackagesInput,
} from './packages.schema.js';
import { getPackageSettings, updatePackageSettings } from './settings.js';
import { downloadSymbolFile } from './symbols.js';
import { MAX_PACKAGE_BYTES, uploadPackage, type UploadKind } from './upload.js';
import { v2FindPackagesById, v2Metadata, v2PackageEntry, v2Packages, v2ServiceDocument, XML_TYPE } from './v2.js';

const tag = 'packages';
/** Feed routes: HTTP Basic (username + token, `gitlab-ci-token` + job token) and job tokens. */
const feed = { basicAuth: true, jobToken: true, tag } as const;

const xml = (body: string) => text(body, XML_TYPE);

// The feed's handlers; each route below names its full path (the same API under `nuget` and
// `pkgfeed`, for projects and for groups).

const serviceIndex = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof FeedRefInput>, req: RouteRequest) =>
  ok(await getServiceIndex(ctx, owner, input.id, req));
const registrationIndex = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof NameInput>, req: RouteRequest) =>
  ok(await getRegistrationIndex(ctx, owner, input.id, input.package_name, req));
const versionMetadata = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof NameVersionInput>, req: RouteRequest) =>
  ok(await getVersionMetadata(ctx, owner, input.id, input.package_name, input.package_version, req));
const search = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof SearchInputSchema>, req: RouteRequest) =>
  ok(await searchPackages(ctx, owner, input.id, { q: input.q, skip: Number(input.skip), take: Number(input.take ?? SEARCH_DEFAULT_TAKE), prerelease: input.prerelease }, req));
const v2Service = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof FeedRefInput>, req: RouteRequest) =>
  xml(await v2ServiceDocument(ctx, owner, input.id, req));
const v2MetadataDocument = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof FeedRefInput>) => xml(await v2Metadata(ctx, owner, input.id));
const symbolFile = (owner: FeedOwner) => async (ctx: Ctx, input: Infer<typeof SymbolFileInput>, req: RouteRequest) => {
  const file = await downloadSymbolFile(ctx, owner, input.id, input, req.headers);
  return attachment(file.body, file.size, file.fileName);
};
const upload = (kind: UploadKind) => async (ctx: Ctx, input: Infer<typeof UploadInputSchema>, req: RouteRequest) => {
  await uploadPackage(ctx, input, req, kind);
  return created({ message: '201 Created' });
};
const uploadOptions = { auth: 'required', params: UploadInputSchema, ...feed, uploadLimit: MAX_PACKAGE_BYTES, uploadTooLarge: 'File is too large' } as const;
const removeVersion = async (ctx: Ctx, input: Infer<typeof NameVersionInput>) => {
  await deletePackageVersion(ctx, input.id, input.package_name, input.package_version);
  return noContent();
};
const v2Entry = async (ctx: Ctx, input: Infer<typeof NameVersionInput>, req: RouteRequest) =>
  xml(await v2PackageEntry(ctx, input.id, input.package_name, input.package_version, req));
const findPackagesById = async (ctx: Ctx, input: Infer<typeof V2FindPackagesByIdInput>, req: RouteRequest) =>
  xml(await v2FindPackagesById(ctx, input.project_id, input.id, req));
/** `nuget list` asks for bare `Packages`, the other queries for `Packages()`. */
const v2Query = (spelling: 'Packages()' | 'Packages') => async (ctx: Ctx, input: Infer<typeof V2PackagesInput>, req: RouteRequest) =>
  xml(await v2Packages(ctx, input.id, input, req, spelling));
const packageVersions = async (ctx: Ctx, input: Infer<typeof NameInput>) => ok(await getPackageVersions(ctx, input.id, input.package_name));
const download = async (ctx: Ctx, input: Infer<typeof DownloadInput>, req: RouteRequest) => {
  // HEAD (answered by this GET route) does not count as a download
  const file = await downloadPackageFile(ctx, input.id, input.package_name, input.package_version, input.package_filename, { count: req.method !== 'HEAD' });
  return attachment(file.body, file.size, file.fileName);
};

export const packagesRoutes: Route[] = [
  // The nuget feed of a project…
  route('GET', '/projects/:id/packages/nuget/index', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the project feed (anonymous)' },
    serviceIndex('projects')),
  route('GET', '/projects/:id/packages/nuget/metadata/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('projects')),
  route('GET', '/projects/:id/packages/nuget/index.json', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the project feed (anonymous)' },
    serviceIndex('projects')),
  route('GET', '/projects/:id/packages/nuget/metadata/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('projects')),
  route('GET', '/projects/:id/packages/nuget/metadata/:package_name/:package_version', { auth: 'optional', params: NameVersionInput, ...feed, summary: 'Registration leaf of one version (`.json` suffix accepted)' },
    versionMetadata('projects')),
  route('GET', '/projects/:id/packages/nuget/query', { auth: 'optional', params: SearchInputSchema, ...feed, summary: 'Search: q, skip, take (max 30), prerelease (default true)' },
    search('projects')),
  route('GET', '/projects/:id/packages/nuget/v2', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 service document (anonymous)' },
    v2Service('projects')),
  route('GET', '/projects/:id/packages/nuget/v2/$metadata', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 $metadata EDMX (anonymous)' },
    v2MetadataDocument('projects')),
  route('GET', '/projects/:id/packages/nuget/symbolfiles/:file_name/:signature/:same_file_name', { auth: 'none', params: SymbolFileInput, ...feed, summary: 'A .pdb by name and signature; header Symbolchecksum: SHA256:<hex> required' },
    symbolFile('projects')),
  route('PUT', '/projects/:id/packages/nuget', { ...uploadOptions, summary: 'Publish a package (multipart `package`; v3 PackagePublish)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/nuget/index.json', { ...uploadOptions, summary: 'Publish a package (NuGet 2.x pushing to a v3 source URL)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/nuget/v2', { ...uploadOptions, summary: 'Publish a package (v2 feed)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/nuget/symbolpackage', { ...uploadOptions, summary: 'Publish a symbol package (.snupkg) of an existing package' },
    upload('symbol')),
  route('DELETE', '/projects/:id/packages/nuget/:package_name/:package_version', { auth: 'required', params: NameVersionInput, ...feed, summary: 'Delete a package version (Maintainer)' },
    removeVersion),
  route('DELETE', '/projects/:id/packages/nuget/v2/:package_name/:package_version', { auth: 'required', params: NameVersionInput, ...feed, summary: 'Delete a package version (Maintainer)' },
    removeVersion),
  route('GET', "/projects/:id/packages/nuget/v2/Packages(Id=':package_name',Version=':package_version')", { auth: 'optional', params: NameVersionInput, ...feed, summary: 'V2 entry of one version (anonymous): its download URL' },
    v2Entry),
  route('GET', '/projects/:project_id/packages/nuget/v2/FindPackagesById()', { auth: 'optional', params: V2FindPackagesByIdInput, ...feed, summary: "V2 entry of a package by name (`id='My.Pkg'`): the newest version when the caller may read it, else an empty one" },
    findPackagesById),
  route('GET', '/projects/:id/packages/nuget/v2/Packages()', { auth: 'optional', params: V2PackagesInput, ...feed, summary: "V2 package query: `$filter=tolower(Id) eq '<name>'` answers the name's entry (anonymous), other filters a feed of entries (Reporter)" },
    v2Query('Packages()')),
  route('GET', '/projects/:id/packages/nuget/v2/Packages', { auth: 'optional', params: V2PackagesInput, ...feed, summary: "V2 package query: `$filter=tolower(Id) eq '<name>'` answers the name's entry (anonymous), other filters a feed of entries (Reporter)" },
    v2Query('Packages')),
  route('GET', '/projects/:id/packages/nuget/download/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Package index: the versions of a package' },
    packageVersions),
  route('GET', '/projects/:id/packages/nuget/download/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Package index: the versions of a package' },
    packageVersions),
  route('GET', '/projects/:id/packages/nuget/download/:package_name/:package_version/:package_filename', { auth: 'optional', params: DownloadInput, ...feed, summary: 'Download a package (or symbol package) file' },
    download),
  // …and of a group.
  route('GET', '/groups/:id/-/packages/nuget/index', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the group feed (anonymous)' },
    serviceIndex('groups')),
  route('GET', '/groups/:id/-/packages/nuget/metadata/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('groups')),
  route('GET', '/groups/:id/-/packages/nuget/index.json', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the group feed (anonymous)' },
    serviceIndex('groups')),
  route('GET', '/groups/:id/-/packages/nuget/metadata/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('groups')),
  route('GET', '/groups/:id/-/packages/nuget/metadata/:package_name/:package_version', { auth: 'optional', params: NameVersionInput, ...feed, summary: 'Registration leaf of one version (`.json` suffix accepted)' },
    versionMetadata('groups')),
  route('GET', '/groups/:id/-/packages/nuget/query', { auth: 'optional', params: SearchInputSchema, ...feed, summary: 'Search: q, skip, take (max 30), prerelease (default true)' },
    search('groups')),
  route('GET', '/groups/:id/-/packages/nuget/v2', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 service document (anonymous)' },
    v2Service('groups')),
  route('GET', '/groups/:id/-/packages/nuget/v2/$metadata', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 $metadata EDMX (anonymous)' },
    v2MetadataDocument('groups')),
  route('GET', '/groups/:id/-/packages/nuget/symbolfiles/:file_name/:signature/:same_file_name', { auth: 'none', params: SymbolFileInput, ...feed, summary: 'A .pdb by name and signature; header Symbolchecksum: SHA256:<hex> required' },
    symbolFile('groups')),

  // The pkgfeed feed of a project…
  route('GET', '/projects/:id/packages/pkgfeed/index', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the project feed (anonymous)' },
    serviceIndex('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/metadata/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/index.json', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the project feed (anonymous)' },
    serviceIndex('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/metadata/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/metadata/:package_name/:package_version', { auth: 'optional', params: NameVersionInput, ...feed, summary: 'Registration leaf of one version (`.json` suffix accepted)' },
    versionMetadata('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/query', { auth: 'optional', params: SearchInputSchema, ...feed, summary: 'Search: q, skip, take (max 30), prerelease (default true)' },
    search('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/v2', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 service document (anonymous)' },
    v2Service('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/v2/$metadata', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 $metadata EDMX (anonymous)' },
    v2MetadataDocument('projects')),
  route('GET', '/projects/:id/packages/pkgfeed/symbolfiles/:file_name/:signature/:same_file_name', { auth: 'none', params: SymbolFileInput, ...feed, summary: 'A .pdb by name and signature; header Symbolchecksum: SHA256:<hex> required' },
    symbolFile('projects')),
  route('PUT', '/projects/:id/packages/pkgfeed', { ...uploadOptions, summary: 'Publish a package (multipart `package`; v3 PackagePublish)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/pkgfeed/index.json', { ...uploadOptions, summary: 'Publish a package (NuGet 2.x pushing to a v3 source URL)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/pkgfeed/v2', { ...uploadOptions, summary: 'Publish a package (v2 feed)' },
    upload('package')),
  route('PUT', '/projects/:id/packages/pkgfeed/symbolpackage', { ...uploadOptions, summary: 'Publish a symbol package (.snupkg) of an existing package' },
    upload('symbol')),
  route('DELETE', '/projects/:id/packages/pkgfeed/:package_name/:package_version', { auth: 'required', params: NameVersionInput, ...feed, summary: 'Delete a package version (Maintainer)' },
    removeVersion),
  route('DELETE', '/projects/:id/packages/pkgfeed/v2/:package_name/:package_version', { auth: 'required', params: NameVersionInput, ...feed, summary: 'Delete a package version (Maintainer)' },
    removeVersion),
  route('GET', "/projects/:id/packages/pkgfeed/v2/Packages(Id=':package_name',Version=':package_version')", { auth: 'optional', params: NameVersionInput, ...feed, summary: 'V2 entry of one version (anonymous): its download URL' },
    v2Entry),
  route('GET', '/projects/:project_id/packages/pkgfeed/v2/FindPackagesById()', { auth: 'optional', params: V2FindPackagesByIdInput, ...feed, summary: "V2 entry of a package by name (`id='My.Pkg'`): the newest version when the caller may read it, else an empty one" },
    findPackagesById),
  route('GET', '/projects/:id/packages/pkgfeed/v2/Packages()', { auth: 'optional', params: V2PackagesInput, ...feed, summary: "V2 package query: `$filter=tolower(Id) eq '<name>'` answers the name's entry (anonymous), other filters a feed of entries (Reporter)" },
    v2Query('Packages()')),
  route('GET', '/projects/:id/packages/pkgfeed/v2/Packages', { auth: 'optional', params: V2PackagesInput, ...feed, summary: "V2 package query: `$filter=tolower(Id) eq '<name>'` answers the name's entry (anonymous), other filters a feed of entries (Reporter)" },
    v2Query('Packages')),
  route('GET', '/projects/:id/packages/pkgfeed/download/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Package index: the versions of a package' },
    packageVersions),
  route('GET', '/projects/:id/packages/pkgfeed/download/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Package index: the versions of a package' },
    packageVersions),
  route('GET', '/projects/:id/packages/pkgfeed/download/:package_name/:package_version/:package_filename', { auth: 'optional', params: DownloadInput, ...feed, summary: 'Download a package (or symbol package) file' },
    download),
  // …and of a group.
  route('GET', '/groups/:id/-/packages/pkgfeed/index', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the group feed (anonymous)' },
    serviceIndex('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/metadata/:package_name/index', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/index.json', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V3 service index of the group feed (anonymous)' },
    serviceIndex('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/metadata/:package_name/index.json', { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
    registrationIndex('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/metadata/:package_name/:package_version', { auth: 'optional', params: NameVersionInput, ...feed, summary: 'Registration leaf of one version (`.json` suffix accepted)' },
    versionMetadata('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/query', { auth: 'optional', params: SearchInputSchema, ...feed, summary: 'Search: q, skip, take (max 30), prerelease (default true)' },
    search('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/v2', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 service document (anonymous)' },
    v2Service('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/v2/$metadata', { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 $metadata EDMX (anonymous)' },
    v2MetadataDocument('groups')),
  route('GET', '/groups/:id/-/packages/pkgfeed/symbolfiles/:file_name/:signature/:same_file_name', { auth: 'none', params: SymbolFileInput, ...feed, summary: 'A .pdb by name and signature; header Symbolchecksum: SHA256:<hex> required' },
    symbolFile('groups')),

  // GitLab's generic package API
  route('GET', '/projects/:id/packages', { auth: 'optional', params: ListPackagesInput, jobToken: true, tag, summary: 'List project packages' },
    async (ctx, input) => paged(await listProjectPackages(ctx, input))),
  route('GET', '/groups/:id/packages', { auth: 'optional', params: ListGroupPackagesInput, tag, summary: 'List packages of the projects of a group' },
    async (ctx, input) => paged(await listGroupPackages(ctx, input))),
  route('GET', '/projects/:id/packages/:package_id', { auth: 'optional', params: PackageRefInput, jobToken: true, tag, summary: 'Get a project package' },
    async (ctx, input) => ok(await getProjectPackage(ctx, input))),
  route('DELETE', '/projects/:id/packages/:package_id', { auth: 'required', params: PackageRefInput, jobToken: true, tag, summary: 'Delete a project package (Maintainer)' },
    async (ctx, input) => {
      await deleteProjectPackage(ctx, input);
      return noContent();
    }),
  route('GET', '/projects/:id/packages/:package_id/package_files', { auth: 'optional', params: PackageFilesInput, jobToken: true, tag, summary: 'List the files of a package' },
    async (ctx, input) => paged(await listPackageFiles(ctx, input))),
  // Forgelet extension: the NuGet duplicate and symbol server settings of a group
  route('GET', '/forgelet/groups/:id/package_settings', { auth: 'required', params: PackageSettingsRefInput, tag, summary: 'Group package settings (Maintainer)' },
    async (ctx, input) => ok(await getPackageSettings(ctx, input.id))),
  route('PUT', '/forgelet/groups/:id/package_settings', { auth: 'required', params: UpdatePackageSettingsSchema, tag, summary: 'Update group package settings (Maintainer)' },
    async (ctx, input) => ok(await updatePackageSettings(ctx, input))),
];
