/**
 * Routes of the package feed (NuGet; the spec's `pkgfeed`) at project and group level, under
 * both `nuget` (what every client sends) and `pkgfeed`, with the `.json` spellings NuGet v3
 * clients use; the generic package API; the group package settings extension.
 */
import type { Readable } from 'node:stream';
import { created, noContent, ok, paged, route, text, type Reply, type Route } from '../../kernel/route.js';
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
import { FEED_SEGMENTS } from './feed-urls.js';
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

function fileReply(body: Readable, size: number, fileName: string): Reply {
  const name = fileName.replace(/["\\\r\n]/g, '_');
  return {
    kind: 'stream',
    status: 200,
    body,
    size,
    contentType: 'application/octet-stream',
    headers: { 'Content-Disposition': `attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(fileName)}` },
  };
}

const xml = (body: string): Reply => text(body, XML_TYPE);

/** The routes every prefix (project or group) has. */
function sharedRoutes(owner: FeedOwner, base: string): Route[] {
  const who = owner === 'projects' ? 'project' : 'group';
  const routes: Route[] = [];
  for (const index of ['index', 'index.json']) {
    routes.push(
      route('GET', `${base}/${index}`, { auth: 'none', params: FeedRefInput, ...feed, summary: `V3 service index of the ${who} feed (anonymous)` },
        async (ctx, input, req) => ok(await getServiceIndex(ctx, owner, input.id, req))),
      route('GET', `${base}/metadata/:package_name/${index}`, { auth: 'optional', params: NameInput, ...feed, summary: 'Registration index: every version, one page, inlined' },
        async (ctx, input, req) => ok(await getRegistrationIndex(ctx, owner, input.id, input.package_name, req))),
    );
  }
  routes.push(
    route('GET', `${base}/metadata/:package_name/:package_version`, { auth: 'optional', params: NameVersionInput, ...feed, summary: 'Registration leaf of one version (`.json` suffix accepted)' },
      async (ctx, input, req) => ok(await getVersionMetadata(ctx, owner, input.id, input.package_name, input.package_version, req))),
    route('GET', `${base}/query`, { auth: 'optional', params: SearchInputSchema, ...feed, summary: 'Search: q, skip, take (max 30), prerelease (default true)' },
      async (ctx, input, req) =>
        ok(await searchPackages(ctx, owner, input.id, { q: input.q, skip: Number(input.skip), take: Number(input.take ?? SEARCH_DEFAULT_TAKE), prerelease: input.prerelease }, req))),
    route('GET', `${base}/v2`, { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 service document (anonymous)' },
      async (ctx, input, req) => xml(await v2ServiceDocument(ctx, owner, input.id, req))),
    route('GET', `${base}/v2/$metadata`, { auth: 'none', params: FeedRefInput, ...feed, summary: 'V2 $metadata EDMX (anonymous)' },
      async (ctx, input) => xml(await v2Metadata(ctx, owner, input.id))),
    route('GET', `${base}/symbolfiles/:file_name/:signature/:same_file_name`, { auth: 'none', params: SymbolFileInput, ...feed, summary: 'A .pdb by name and signature; header Symbolchecksum: SHA256:<hex> required' },
      async (ctx, input, req) => {
        const file = await downloadSymbolFile(ctx, owner, input.id, input, req.headers);
        return fileReply(file.body, file.size, file.fileName);
      }),
  );
  return routes;
}

function projectRoutes(segment: string): Route[] {
  const base = `/projects/:id/packages/${segment}`;
  const upload = (path: string, kind: UploadKind, summary: string) =>
    route('PUT', path, { auth: 'required', params: UploadInputSchema, ...feed, uploadLimit: MAX_PACKAGE_BYTES, uploadTooLarge: 'File is too large', summary }, async (ctx, input, req) => {
      await uploadPackage(ctx, input, req, kind);
      return created({ message: '201 Created' });
    });
  const remove = (path: string) =>
    route('DELETE', path, { auth: 'required', params: NameVersionInput, ...feed, summary: 'Delete a package version (Maintainer)' }, async (ctx, input) => {
      await deletePackageVersion(ctx, input.id, input.package_name, input.package_version);
      return noContent();
    });
  const routes: Route[] = [
    ...sharedRoutes('projects', base),
    upload(base, 'package', 'Publish a package (multipart `package`; v3 PackagePublish)'),
    upload(`${base}/index.json`, 'package', 'Publish a package (NuGet 2.x pushing to a v3 source URL)'),
    upload(`${base}/v2`, 'package', 'Publish a package (v2 feed)'),
    upload(`${base}/symbolpackage`, 'symbol', 'Publish a symbol package (.snupkg) of an existing package'),
    remove(`${base}/:package_name/:package_version`),
    remove(`${base}/v2/:package_name/:package_version`),
    route('GET', `${base}/v2/Packages(Id=':package_name',Version=':package_version')`, { auth: 'optional', params: NameVersionInput, ...feed, summary: 'V2 entry of one version (anonymous): its download URL' },
      async (ctx, input, req) => xml(await v2PackageEntry(ctx, input.id, input.package_name, input.package_version, req))),
    route('GET', `/projects/:project_id/packages/${segment}/v2/FindPackagesById()`, { auth: 'optional', params: V2FindPackagesByIdInput, ...feed, summary: "V2 entry of a package by name (`id='My.Pkg'`): the newest version when the caller may read it, else an empty one" },
      async (ctx, input, req) => xml(await v2FindPackagesById(ctx, input.project_id, input.id, req))),
  ];
  // `nuget list` asks for bare `Packages`, the other queries for `Packages()`.
  for (const spelling of ['Packages()', 'Packages'] as const) {
    routes.push(
      route('GET', `${base}/v2/${spelling}`, { auth: 'optional', params: V2PackagesInput, ...feed, summary: "V2 package query: `$filter=tolower(Id) eq '<name>'` answers the name's entry (anonymous), other filters a feed of entries (Reporter)" },
        async (ctx, input, req) => xml(await v2Packages(ctx, input.id, input, req, spelling))),
    );
  }
  for (const index of ['index', 'index.json']) {
    routes.push(
      route('GET', `${base}/download/:package_name/${index}`, { auth: 'optional', params: NameInput, ...feed, summary: 'Package index: the versions of a package' },
        async (ctx, input) => ok(await getPackageVersions(ctx, input.id, input.package_name))),
    );
  }
  routes.push(
    route('GET', `${base}/download/:package_name/:package_version/:package_filename`, { auth: 'optional', params: DownloadInput, ...feed, summary: 'Download a package (or symbol package) file' },
      async (ctx, input, req) => {
        // HEAD (answered by this GET route) does not count as a download
        const file = await downloadPackageFile(ctx, input.id, input.package_name, input.package_version, input.package_filename, { count: req.method !== 'HEAD' });
        return fileReply(file.body, file.size, file.fileName);
      }),
  );
  return routes;
}

export const packagesRoutes: Route[] = [
  ...FEED_SEGMENTS.flatMap((segment) => [...projectRoutes(segment), ...sharedRoutes('groups', `/groups/:id/-/packages/${segment}`)]),
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
