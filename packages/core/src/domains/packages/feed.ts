/**
 * The v3 feed (JSON): service index, package index, registration (metadata), search,
 * download and delete, at project and group level. Lists are ordered and cut in SQL.
 */
import { sql } from 'kysely';
import type { Readable } from 'node:stream';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { NotFoundError } from '../../kernel/errors.js';
import type { RouteRequest } from '../../kernel/route.js';
import { existingGroup, existingProject, feedGroup, feedProject, scopeFilter, type FeedScope } from './feed-access.js';
import { feedUrls } from './feed-urls.js';
import {
  presentRegistrationIndex,
  presentSearchItem,
  presentServiceIndex,
  presentVersionMetadata,
  type PackageVersionsEntity,
  type PresentContext,
  type RegistrationIndexEntity,
  type SearchResultEntity,
  type ServiceIndexEntity,
  type VersionMetadataEntity,
} from './feed.entity.js';
import { normalizeVersion } from './nuget-version.js';
import {
  FILE_PACKAGE,
  FILE_SYMBOLS,
  INSTALLABLE,
  NUGET,
  selectLatestFile,
  selectPackageVersion,
  selectVersionsOfName,
} from './packages.queries.js';
import type { PackageRow } from './packages.table.js';

export type FeedOwner = 'projects' | 'groups';

/** Search: GitLab's page size default and cap, and versions listed per package. */
export const SEARCH_DEFAULT_TAKE = 20;
export const SEARCH_MAX_TAKE = 30;
export const SEARCH_MAX_VERSIONS = 10;

/** The v3 service index: anonymous; the project or group must exist. */
export async function getServiceIndex(ctx: Ctx, owner: FeedOwner, ref: string, req: RouteRequest): Promise<ServiceIndexEntity> {
  if (owner === 'projects') await existingProject(ctx, ref);
  else await existingGroup(ctx, ref);
  return presentServiceIndex(feedUrls(ctx, req).base);
}

/** The scope of a read route: the project (Reporter, or anyone on public) or the group (authenticated). */
export async function readScope(ctx: Ctx, owner: FeedOwner, ref: string): Promise<FeedScope> {
  if (owner === 'projects') return { kind: 'project', project: await feedProject(ctx, ref, 'read_package') };
  return { kind: 'group', group: await feedGroup(ctx, ref) };
}

function presentContext(ctx: Ctx, req: RouteRequest): PresentContext {
  const urls = feedUrls(ctx, req);
  return { base: urls.base, projectBase: urls.projectBase };
}

/** Strips the `.json` NuGet clients append (`index.json`, `1.0.0.json`). */
export function withoutJson(segment: string): string {
  return segment.toLowerCase().endsWith('.json') ? segment.slice(0, -5) : segment;
}

/** `metadata/:name/index`: the registration index (one page, inlined). */
export async function getRegistrationIndex(ctx: Ctx, owner: FeedOwner, ref: string, name: string, req: RouteRequest): Promise<RegistrationIndexEntity> {
  const scope = await readScope(ctx, owner, ref);
  const packages = await selectVersionsOfName(ctx, scope, name);
  if (!packages.length) throw new NotFoundError('Packages');
  return presentRegistrationIndex(presentContext(ctx, req), packages);
}

/** `metadata/:name/:version`: one registration leaf. */
export async function getVersionMetadata(ctx: Ctx, owner: FeedOwner, ref: string, name: string, version: string, req: RouteRequest): Promise<VersionMetadataEntity> {
  const scope = await readScope(ctx, owner, ref);
  const pkg = await selectPackageVersion(ctx, scope, name, withoutJson(version));
  if (!pkg) throw new NotFoundError('Package');
  return presentVersionMetadata(presentContext(ctx, req), pkg);
}

/**
 * `download/:name/index`: the versions of a name (project level), as the flat container lists
 * them: normalized, lower-cased, without build metadata (clients build download URLs from them).
 */
export async function getPackageVersions(ctx: Ctx, ref: string, name: string): Promise<PackageVersionsEntity> {
  const scope = await readScope(ctx, 'projects', ref);
  const packages = await selectVersionsOfName(ctx, scope, name);
  if (!packages.length) throw new NotFoundError('Packages');
  return { versions: packages.map((p) => p.normalized_version) };
}

export interface SearchInput {
  q?: string;
  skip: number;
  take: number;
  prerelease: boolean;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Search: the distinct names containing `q` (case-insensitive), by name, `skip`/`take` in
 * SQL; for each name its 10 highest versions (SemVer order, by the sort key); `prerelease`
 * false leaves prerelease versions (and names having only those) out.
 */
export async function searchPackages(ctx: Ctx, owner: FeedOwner, ref: string, input: SearchInput, req: RouteRequest): Promise<SearchResultEntity> {
  const scope = await readScope(ctx, owner, ref);
  const take = Math.min(input.take, SEARCH_MAX_TAKE);
  const filter = scopeFilter(ctx, scope);
  let names = ctx.db
    .selectFrom('packages')
    .select('lower_name')
    .where(filter)
    .where('package_type', '=', NUGET)
    .where('status', 'in', INSTALLABLE);
  if (!input.prerelease) names = names.where('prerelease', '=', 0);
  const q = input.q?.trim();
  if (q) names = names.where(sql<boolean>`lower_name like ${`%${likeEscape(q.toLowerCase())}%`} escape '\\'`);
  names = names.groupBy('lower_name');
  const [countRow, pageRows] = await Promise.all([
    ctx.db.selectFrom(names.as('n')).select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
    names.orderBy('lower_name').limit(take).offset(input.skip).execute(),
  ]);
  const totalHits = Number(countRow.n);
  const pageNames = pageRows.map((r) => r.lower_name);
  if (!pageNames.length) return { totalHits, data: [] };

  let inner = ctx.db
    .selectFrom('packages')
    .selectAll()
    .select(sql<number>`row_number() over (partition by lower_name order by version_sort desc, id desc)`.as('rn'))
    .where(filter)
    .where('package_type', '=', NUGET)
    .where('status', 'in', INSTALLABLE)
    .where('lower_name', 'in', pageNames);
  if (!input.prerelease) inner = inner.where('prerelease', '=', 0);
  const rows = (await ctx.db.selectFrom(inner.as('t')).selectAll().where('t.rn', '<=', SEARCH_MAX_VERSIONS).execute()) as unknown as PackageRow[];
  const byName = new Map<string, PackageRow[]>();
  for (const r of rows) {
    const list = byName.get(r.lower_name) ?? [];
    list.push(r);
    byName.set(r.lower_name, list);
  }
  const c = presentContext(ctx, req);
  const data = pageNames.map((n) => {
    const versions = (byName.get(n) ?? []).sort((a, b) => (a.version_sort < b.version_sort ? -1 : a.version_sort > b.version_sort ? 1 : a.id - b.id));
    return presentSearchItem(c, versions);
  });
  return { totalHits, data };
}

export interface PackageDownload {
  body: Readable;
  size: number;
  fileName: string;
}

const SYMBOL_EXT = /\.(snupkg|spkg)$/i;
const PACKAGE_EXT = /\.(nupkg|pkg)$/i;

/**
 * `download/:name/:version/:file`: the newest package archive (or symbol package, for a
 * `.snupkg`/`.spkg` name) of the version, streamed; normalized versions are accepted and
 * nothing redirects. Each package download counts.
 */
export async function downloadPackageFile(ctx: Ctx, ref: string, name: string, version: string, fileName: string, options: { count?: boolean } = {}): Promise<PackageDownload> {
  const scope = await readScope(ctx, 'projects', ref);
  const pkg = await selectPackageVersion(ctx, scope, name, version);
  if (!pkg) throw new NotFoundError('Package');
  const symbol = SYMBOL_EXT.test(fileName);
  if (!symbol && !PACKAGE_EXT.test(fileName)) throw new NotFoundError('Package');
  const file = await selectLatestFile(ctx.db, pkg.id, symbol ? FILE_SYMBOLS : FILE_PACKAGE);
  if (!file) throw new NotFoundError('Package');
  const stem = fileName.replace(symbol ? SYMBOL_EXT : PACKAGE_EXT, '').toLowerCase();
  const accepted = new Set([
    file.file_name.replace(symbol ? SYMBOL_EXT : PACKAGE_EXT, '').toLowerCase(),
    `${name}.${version}`.toLowerCase(),
    `${pkg.lower_name}.${pkg.normalized_version}`,
    `${pkg.lower_name}.${pkg.version.toLowerCase()}`,
  ]);
  if (!accepted.has(stem)) throw new NotFoundError('Package');
  const size = (await ctx.blobs.size(file.blob_key)) ?? file.size;
  if (!symbol && options.count !== false) {
    await ctx.db
      .updateTable('packages')
      .set((eb) => ({ download_count: eb('download_count', '+', 1), last_downloaded_at: nowIso(ctx) }))
      .where('id', '=', pkg.id)
      .execute();
  }
  return { body: ctx.blobs.read(file.blob_key), size, fileName: file.file_name };
}

/** Deletes one package version with its files and symbols (Maintainer). */
export async function deletePackageVersion(ctx: Ctx, ref: string, name: string, version: string): Promise<void> {
  const project = await feedProject(ctx, ref, 'destroy_package');
  const pkg = await selectPackageVersion(ctx, { kind: 'project', project }, name, version);
  if (!pkg) throw new NotFoundError('Package');
  await destroyPackage(ctx, pkg.id);
}

/** Removes a package's rows in one transaction, then its blobs. */
export async function destroyPackage(ctx: Ctx, packageId: number): Promise<void> {
  const keys = await ctx.db.transaction().execute(async (trx) => {
    const files = await trx.selectFrom('package_files').select('blob_key').where('package_id', '=', packageId).execute();
    await trx.deleteFrom('package_symbols').where('package_id', '=', packageId).execute();
    await trx.deleteFrom('package_files').where('package_id', '=', packageId).execute();
    await trx.deleteFrom('packages').where('id', '=', packageId).execute();
    return files.map((f) => f.blob_key);
  });
  await Promise.all(keys.map((k) => ctx.blobs.delete(k)));
}

export { normalizeVersion };
