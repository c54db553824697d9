/** The package domain's SQL: lookups by name and version, files, settings. */
import type { Kysely } from 'kysely';
import type { Ctx } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import { traversalIds } from '../../access/policy.js';
import type { FeedScope } from './feed-access.js';
import { scopeFilter } from './feed-access.js';
import { normalizeVersion } from './nuget-version.js';
import type { NamespacePackageSettingRow, PackageFileRow, PackageRow } from './packages.table.js';

export const NUGET = 'nuget';
/** GitLab answers at most this many versions of a name (metadata, package index). */
export const MAX_VERSIONS = 300;

export const FILE_PACKAGE = 'package';
export const FILE_SYMBOLS = 'symbol_package';

/** Packages that clients may install (not being deleted or processed). */
export const INSTALLABLE = ['default', 'hidden'];

/**
 * The version `version` of `name` in the scope: matched on the normalized version or the
 * version text as stored, both case-insensitively. The newest one when several projects of a
 * group hold it.
 */
export async function selectPackageVersion(ctx: Ctx, scope: FeedScope, name: string, version: string): Promise<PackageRow | undefined> {
  const normalized = normalizeVersion(version) ?? version.toLowerCase();
  return ctx.db
    .selectFrom('packages')
    .selectAll()
    .where(scopeFilter(ctx, scope))
    .where('package_type', '=', NUGET)
    .where('lower_name', '=', name.toLowerCase())
    .where('status', 'in', INSTALLABLE)
    .where((eb) => eb.or([eb('normalized_version', '=', normalized), eb('normalized_version', '=', version.toLowerCase())]))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** Up to MAX_VERSIONS newest versions of a name, in ascending version order. */
export async function selectVersionsOfName(ctx: Ctx, scope: FeedScope, name: string): Promise<PackageRow[]> {
  const rows = await ctx.db
    .selectFrom('packages')
    .selectAll()
    .where(scopeFilter(ctx, scope))
    .where('package_type', '=', NUGET)
    .where('lower_name', '=', name.toLowerCase())
    .where('status', 'in', INSTALLABLE)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(MAX_VERSIONS)
    .execute();
  return rows.sort((a, b) => (a.version_sort < b.version_sort ? -1 : a.version_sort > b.version_sort ? 1 : a.id - b.id));
}

/** The newest file of a kind (duplicates append files; the newest is served). */
export async function selectLatestFile(db: Kysely<Database>, packageId: number, kind: string): Promise<PackageFileRow | undefined> {
  return db
    .selectFrom('package_files')
    .selectAll()
    .where('package_id', '=', packageId)
    .where('file_kind', '=', kind)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export interface PackageSettings {
  nuget_duplicates_allowed: boolean;
  nuget_duplicate_exception_regex: string;
  nuget_symbol_server_enabled: boolean;
}

export const DEFAULT_PACKAGE_SETTINGS: PackageSettings = {
  nuget_duplicates_allowed: true,
  nuget_duplicate_exception_regex: '',
  nuget_symbol_server_enabled: true,
};

export function settingsOf(row: NamespacePackageSettingRow | undefined): PackageSettings {
  if (!row) return { ...DEFAULT_PACKAGE_SETTINGS };
  return {
    nuget_duplicates_allowed: row.nuget_duplicates_allowed === 1,
    nuget_duplicate_exception_regex: row.nuget_duplicate_exception_regex,
    nuget_symbol_server_enabled: row.nuget_symbol_server_enabled === 1,
  };
}

export async function selectSettingsRow(db: Kysely<Database>, namespaceId: number): Promise<NamespacePackageSettingRow | undefined> {
  return db.selectFrom('namespace_package_settings').selectAll().where('namespace_id', '=', namespaceId).executeTakeFirst();
}

/**
 * The settings that govern a project's packages: those of its nearest group (the project's
 * own namespace, else the closest ancestor with settings); defaults for personal projects.
 */
export async function settingsForProject(ctx: Ctx, namespaceId: number): Promise<PackageSettings> {
  const ns = await ctx.db.selectFrom('namespaces').select(['kind', 'traversal']).where('id', '=', namespaceId).executeTakeFirst();
  if (!ns || ns.kind !== 'group') return { ...DEFAULT_PACKAGE_SETTINGS };
  const ids = traversalIds(ns.traversal);
  const rows = await ctx.db.selectFrom('namespace_package_settings').selectAll().where('namespace_id', 'in', ids).execute();
  for (const id of [...ids].reverse()) {
    const row = rows.find((r) => r.namespace_id === id);
    if (row) return settingsOf(row);
  }
  return { ...DEFAULT_PACKAGE_SETTINGS };
}
