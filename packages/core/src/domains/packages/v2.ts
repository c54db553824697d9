/**
 * The v2 feed (XML, OData v2 / Atom) that NuGet.exe 2.x speaks: the service document, the
 * `$metadata` EDMX, and the package entries. `Packages(Id=…,Version=…)`, `FindPackagesById()`
 * and `Packages()?$filter=tolower(Id) eq '…'` answer one Atom entry as GitLab does (those
 * requests arrive without credentials, so the list-style ones carry an empty version and the
 * feed root as content source; with credentials the newest version is resolved). Other
 * `Packages` queries (what `nuget list` sends) answer an Atom feed of the readable packages,
 * paged in SQL with `$skip`/`$top`.
 */
import { sql } from 'kysely';
import type { Ctx } from '../../access/context.js';
import { ValidationError } from '../../kernel/errors.js';
import { can } from '../../access/policy.js';
import type { RouteRequest } from '../../kernel/route.js';
import { existingGroup, existingProject, feedProject } from './feed-access.js';
import { enc, feedUrls, packageContentUrl } from './feed-urls.js';
import type { FeedOwner } from './feed.js';
import { formatVersion, isValidPackageName, isValidVersion, normalizeVersion } from './nuget-version.js';
import type { NuspecDependencyGroup } from './nuspec.js';
import { INSTALLABLE, NUGET } from './packages.queries.js';
import type { PackageRow } from './packages.table.js';
import type { ProjectRow } from '../../access/project.table.js';

export const XML_TYPE = 'application/xml; charset=utf-8';
const DECL = '<?xml version="1.0" encoding="UTF-8"?>';
const NS_ATOM = 'http://www.w3.org/2005/Atom';
const NS_D = 'http://schemas.microsoft.com/ado/2007/08/dataservices';
const NS_M = 'http://schemas.microsoft.com/ado/2007/08/dataservices/metadata';
const SCHEME = 'http://schemas.microsoft.com/ado/2007/08/dataservices/scheme';
/** Largest `$top` honoured (and the page size when none is given). */
export const V2_MAX_TOP = 100;

export function xmlEscape(s: string): string {
  return s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
}

function v2Base(ctx: Ctx, req: RouteRequest): string {
  return `${feedUrls(ctx, req).base}/v2`;
}

/** The AtomPub service document (anonymous; the project or group must exist). */
export async function v2ServiceDocument(ctx: Ctx, owner: FeedOwner, ref: string, req: RouteRequest): Promise<string> {
  if (owner === 'projects') await existingProject(ctx, ref);
  else await existingGroup(ctx, ref);
  const base = v2Base(ctx, req);
  return (
    `${DECL}\n<service xmlns="http://www.w3.org/2007/app" xmlns:atom="${NS_ATOM}" xml:base="${xmlEscape(base)}">` +
    `<workspace><atom:title type="text">Default</atom:title><collection href="Packages"><atom:title type="text">Packages</atom:title></collection></workspace></service>\n`
  );
}

/** The EDMX document (anonymous). */
export async function v2Metadata(ctx: Ctx, owner: FeedOwner, ref: string): Promise<string> {
  if (owner === 'projects') await existingProject(ctx, ref);
  else await existingGroup(ctx, ref);
  const prop = (name: string, type: string, nullable = true) => `<Property Name="${name}" Type="${type}"${nullable ? '' : ' Nullable="false"'}/>`;
  return (
    `${DECL}\n<edmx:Edmx xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" Version="1.0">` +
    `<edmx:DataServices xmlns:m="${NS_M}" m:DataServiceVersion="2.0" m:MaxDataServiceVersion="2.0">` +
    `<Schema xmlns="http://schemas.microsoft.com/ado/2006/04/edm" Namespace="NuGetGallery.OData">` +
    `<EntityType Name="V2FeedPackage" m:HasStream="true"><Key><PropertyRef Name="Id"/><PropertyRef Name="Version"/></Key>` +
    prop('Id', 'Edm.String', false) +
    prop('Version', 'Edm.String', false) +
    prop('Authors', 'Edm.String') +
    prop('Dependencies', 'Edm.String') +
    prop('Description', 'Edm.String') +
    prop('DownloadCount', 'Edm.Int64', false) +
    prop('IconUrl', 'Edm.String') +
    prop('Published', 'Edm.DateTime', false) +
    prop('ProjectUrl', 'Edm.String') +
    prop('Tags', 'Edm.String') +
    prop('Title', 'Edm.String') +
    prop('LicenseUrl', 'Edm.String') +
    `</EntityType></Schema>` +
    `<Schema xmlns="http://schemas.microsoft.com/ado/2006/04/edm" Namespace="NuGetGallery">` +
    `<EntityContainer Name="V2FeedContext" m:IsDefaultEntityContainer="true">` +
    `<EntitySet Name="Packages" EntityType="NuGetGallery.OData.V2FeedPackage"/>` +
    `<FunctionImport Name="FindPackagesById" ReturnType="Collection(NuGetGallery.OData.V2FeedPackage)" EntitySet="Packages">` +
    `<Parameter Name="id" Type="Edm.String" FixedLength="false" Unicode="false"/></FunctionImport>` +
    `</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>\n`
  );
}

export interface ODataQuery {
  $filter?: string;
  $skip?: string;
  $top?: string;
  $orderby?: string;
}

const unquote = (s: string) => s.trim().replace(/^'+|'+$/g, '');

function checkName(name: string, field: string): void {
  if (!isValidPackageName(name)) throw new ValidationError([{ field, message: 'is invalid' }]);
}

/** The `Version` a v2 entry shows: NuGet's normalized string, labels as spelled, no build metadata (NuGet 2.x cannot read it). */
const shownVersion = (version: string) => formatVersion(version, { metadata: false }) ?? version;

interface EntryFields {
  base: string;
  name: string;
  version: string;
  src: string;
  /** Extra `d:*` properties (full entries only). */
  properties?: string;
}

function entryXml(e: EntryFields, root: boolean): string {
  const ns = root ? ` xmlns="${NS_ATOM}" xmlns:d="${NS_D}" xmlns:m="${NS_M}" xml:base="${xmlEscape(e.base)}"` : '';
  return (
    `<entry${ns}>` +
    `<id>${xmlEscape(`${e.base}/Packages(Id='${e.name}',Version='${e.version}')`)}</id>` +
    `<category term="V2FeedPackage" scheme="${SCHEME}"/>` +
    `<title type="text">${xmlEscape(e.name)}</title>` +
    `<content type="application/zip" src="${xmlEscape(e.src)}"/>` +
    `<m:properties><d:Version>${xmlEscape(e.version)}</d:Version>${e.properties ?? ''}</m:properties>` +
    `</entry>`
  );
}

/** Edm.DateTime as OData v2 writes it (no zone designator). */
const edmDate = (iso: string) => iso.replace(/Z$/, '');

function dependenciesText(p: PackageRow): string {
  let groups: NuspecDependencyGroup[];
  try {
    groups = JSON.parse(p.dependency_groups) as NuspecDependencyGroup[];
  } catch {
    groups = [];
  }
  return groups
    .flatMap((g) => (g.dependencies.length ? g.dependencies.map((d) => `${d.id}:${d.range ?? ''}:${g.targetFramework ?? ''}`) : [`::${g.targetFramework ?? ''}`]))
    .join('|');
}

function fullProperties(p: PackageRow, latest: { stable: boolean; absolute: boolean }): string {
  const str = (name: string, v: string | null) => (v === null ? `<d:${name} m:null="true"/>` : `<d:${name}>${xmlEscape(v)}</d:${name}>`);
  const bool = (name: string, v: boolean) => `<d:${name} m:type="Edm.Boolean">${v}</d:${name}>`;
  return (
    str('Id', p.name) +
    str('NormalizedVersion', shownVersion(p.version)) +
    str('Authors', p.authors) +
    str('Dependencies', dependenciesText(p)) +
    str('Description', p.description) +
    `<d:DownloadCount m:type="Edm.Int64">${Number(p.download_count)}</d:DownloadCount>` +
    str('IconUrl', p.icon_url) +
    bool('IsLatestVersion', latest.stable) +
    bool('IsAbsoluteLatestVersion', latest.absolute) +
    bool('IsPrerelease', p.prerelease === 1) +
    `<d:Published m:type="Edm.DateTime">${edmDate(p.created_at)}</d:Published>` +
    `<d:LastUpdated m:type="Edm.DateTime">${edmDate(p.updated_at)}</d:LastUpdated>` +
    str('ProjectUrl', p.project_url) +
    `<d:RequireLicenseAcceptance m:type="Edm.Boolean">false</d:RequireLicenseAcceptance>` +
    str('Summary', p.summary) +
    str('Tags', p.tags) +
    str('Title', p.title) +
    str('LicenseUrl', p.license_url)
  );
}

/** The newest version of a name in a project (stable first; prerelease when there is no stable one). */
async function latestOf(ctx: Ctx, project: ProjectRow, name: string): Promise<PackageRow | undefined> {
  return ctx.db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('package_type', '=', NUGET)
    .where('lower_name', '=', name.toLowerCase())
    .where('status', 'in', INSTALLABLE)
    .orderBy('prerelease', 'asc')
    .orderBy('version_sort', 'desc')
    .executeTakeFirst();
}

/**
 * A name-only entry: with credentials that may read the project's packages, the newest
 * version; otherwise (the usual case: NuGet sends none here) the empty version with the
 * feed root as content.
 */
async function nameEntry(ctx: Ctx, project: ProjectRow, name: string, req: RouteRequest): Promise<string> {
  const urls = feedUrls(ctx, req);
  const base = `${urls.base}/v2`;
  if (ctx.actor.user && (await can(ctx, 'read_package', { kind: 'project', project }))) {
    const latest = await latestOf(ctx, project, name);
    if (latest) {
      const src = packageContentUrl(urls.projectBase(project.id), latest.name, latest.normalized_version);
      return `${DECL}\n${entryXml({ base, name, version: shownVersion(latest.version), src }, true)}\n`;
    }
  }
  return `${DECL}\n${entryXml({ base, name, version: '', src: base }, true)}\n`;
}

/** What `Packages()` was asked for: one exact name, or a listing (search terms, latest only). */
interface ListingFilter {
  exact: string | null;
  terms: { field: 'id' | 'description' | 'tags'; term: string }[];
  latest: 'stable' | 'absolute' | null;
}

export function parseFilter(filter: string | undefined): ListingFilter {
  const out: ListingFilter = { exact: null, terms: [], latest: null };
  if (!filter) return out;
  const exact = /tolower\(Id\) eq '(.+?)'/.exec(filter);
  if (exact) out.exact = exact[1]!;
  for (const m of filter.matchAll(/substringof\('((?:[^']|'')*)',\s*tolower\((Id|Description|Tags)\)\)/g)) {
    out.terms.push({ field: m[2]!.toLowerCase() as 'id' | 'description' | 'tags', term: m[1]!.replace(/''/g, "'").toLowerCase() });
  }
  if (/\bIsAbsoluteLatestVersion\b/.test(filter)) out.latest = 'absolute';
  else if (/\bIsLatestVersion\b/.test(filter)) out.latest = 'stable';
  return out;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

const intParam = (raw: string | undefined, fallback: number) => (raw === undefined || raw.trim() === '' ? fallback : Number(raw.trim()));

/** An Atom feed of the project's packages matching the filter (Reporter, or anyone on public projects). */
async function listingFeed(ctx: Ctx, ref: string, query: ODataQuery, filter: ListingFilter, req: RouteRequest, segment: string): Promise<string> {
  const project = await feedProject(ctx, ref, 'read_package');
  const skip = intParam(query.$skip, 0);
  const top = Math.min(intParam(query.$top, V2_MAX_TOP), V2_MAX_TOP);
  let q = ctx.db
    .selectFrom('packages')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('package_type', '=', NUGET)
    .where('status', 'in', INSTALLABLE);
  if (filter.exact) q = q.where('lower_name', '=', filter.exact.toLowerCase());
  if (filter.terms.length) {
    q = q.where((eb) =>
      eb.or(
        filter.terms.map(({ field, term }) => {
          const pattern = `%${likeEscape(term)}%`;
          if (field === 'id') return sql<boolean>`lower_name like ${pattern} escape '\\'`;
          if (field === 'description') return sql<boolean>`lower(coalesce(description, '')) like ${pattern} escape '\\'`;
          return sql<boolean>`(' ' || lower(coalesce(tags, '')) || ' ') like ${pattern} escape '\\'`;
        }),
      ),
    );
  }
  if (filter.latest) {
    const stableOnly = filter.latest === 'stable';
    q = q.where('id', 'in', (eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom('packages as l')
            .select(['l.id', sql<number>`row_number() over (partition by l.lower_name order by l.version_sort desc, l.id desc)`.as('rn')])
            .where('l.project_id', '=', project.id)
            .where('l.package_type', '=', NUGET)
            .where('l.status', 'in', INSTALLABLE)
            .where((w) => (stableOnly ? w('l.prerelease', '=', 0) : sql<boolean>`1 = 1`))
            .as('ranked'),
        )
        .select('ranked.id')
        .where('ranked.rn', '=', 1),
    );
  }
  const rows = await q.orderBy('lower_name').orderBy('version_sort').orderBy('id').limit(top + 1).offset(skip).execute();
  const more = rows.length > top;
  const page = more ? rows.slice(0, top) : rows;

  // Which versions are the newest (stable / absolute) of their names, for the client's own "latest" choice.
  const names = [...new Set(page.map((p) => p.lower_name))];
  const newest = new Map<string, { stable: string | null; absolute: string | null }>();
  if (names.length) {
    const agg = await ctx.db
      .selectFrom('packages')
      .select([
        'lower_name',
        sql<string | null>`max(case when prerelease = 0 then version_sort end)`.as('stable'),
        sql<string>`max(version_sort)`.as('absolute'),
      ])
      .where('project_id', '=', project.id)
      .where('package_type', '=', NUGET)
      .where('status', 'in', INSTALLABLE)
      .where('lower_name', 'in', names)
      .groupBy('lower_name')
      .execute();
    for (const a of agg) newest.set(a.lower_name, { stable: a.stable, absolute: a.absolute });
  }
  const urls = feedUrls(ctx, req);
  const base = `${urls.base}/v2`;
  const entries = page.map((p) => {
    const n = newest.get(p.lower_name);
    return entryXml(
      {
        base,
        name: p.name,
        version: shownVersion(p.version),
        src: packageContentUrl(urls.projectBase(project.id), p.name, p.normalized_version),
        properties: fullProperties(p, { stable: n?.stable === p.version_sort, absolute: n?.absolute === p.version_sort }),
      },
      false,
    );
  });
  let next = '';
  if (more) {
    const params = new URLSearchParams();
    if (query.$filter) params.set('$filter', query.$filter);
    if (query.$orderby) params.set('$orderby', query.$orderby);
    params.set('$skip', String(skip + top));
    params.set('$top', String(top));
    next = `<link rel="next" href="${xmlEscape(`${base}/${segment}?${params.toString().replace(/\+/g, '%20')}`)}"/>`;
  }
  const updated = page.reduce((m, p) => (p.updated_at > m ? p.updated_at : m), '1970-01-01T00:00:00.000Z');
  return (
    `${DECL}\n<feed xmlns="${NS_ATOM}" xmlns:d="${NS_D}" xmlns:m="${NS_M}" xml:base="${xmlEscape(base)}">` +
    `<id>${xmlEscape(`${base}/Packages`)}</id><title type="text">Packages</title><updated>${updated}</updated>` +
    `<link rel="self" title="Packages" href="Packages"/>${entries.join('')}${next}</feed>\n`
  );
}

/**
 * `Packages(Id='…',Version='…')`: the entry of one version, anonymous and without a lookup (as
 * GitLab answers it); the content URL carries the normalized version.
 */
export async function v2PackageEntry(ctx: Ctx, ref: string, name: string, version: string, req: RouteRequest): Promise<string> {
  // GitLab checks the version against nuget_version_regex first (400 `package_version is invalid`).
  if (!isValidVersion(version)) throw new ValidationError([{ field: 'package_version', message: 'is invalid' }]);
  const project = await existingProject(ctx, ref);
  const urls = feedUrls(ctx, req);
  const src = packageContentUrl(urls.projectBase(project.id), name, normalizeVersion(version) ?? version.toLowerCase());
  return `${DECL}\n${entryXml({ base: `${urls.base}/v2`, name, version: shownVersion(version), src }, true)}\n`;
}

/** `FindPackagesById()?id='…'`: the name's entry (see nameEntry). */
export async function v2FindPackagesById(ctx: Ctx, ref: string, id: string, req: RouteRequest): Promise<string> {
  const project = await existingProject(ctx, ref);
  const name = unquote(id);
  if (!name) throw new ValidationError([{ field: 'id', message: 'is empty' }]);
  checkName(name, 'id');
  return nameEntry(ctx, project, name, req);
}

/**
 * `Packages()` (and bare `Packages`, what `nuget list` asks first): with only
 * `$filter=tolower(Id) eq '…'` the name's entry, as GitLab answers it; otherwise an Atom feed
 * of the readable packages matching the filter.
 */
export async function v2Packages(ctx: Ctx, ref: string, query: ODataQuery, req: RouteRequest, segment: 'Packages' | 'Packages()'): Promise<string> {
  const filter = parseFilter(query.$filter);
  if (filter.exact && !filter.terms.length && !filter.latest && segment === 'Packages()') {
    const project = await existingProject(ctx, ref);
    checkName(filter.exact, '$filter');
    return nameEntry(ctx, project, filter.exact, req);
  }
  if (query.$filter !== undefined && query.$filter.trim() === '') throw new ValidationError([{ field: '$filter', message: 'is empty' }]);
  return listingFeed(ctx, ref, query, filter, req, segment);
}

export { enc };
