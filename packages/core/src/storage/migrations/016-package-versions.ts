import { sql, type Kysely } from 'kysely';

/**
 * NuGet versions in stored packages, and the digests of package files.
 * - package_files gains `file_sha1` and `file_md5` (hex, taken while an upload streams in; null
 *   for files stored before).
 * - Each package's identity (`normalized_version`) is computed again from its version as spelled,
 *   by NuGet's rules as of this migration (below). Versions NuGet holds equal (`1.0` and `1.0.0`,
 *   `01.2.3` and `1.2.3`) become one package: the oldest row keeps its id and takes the other
 *   rows' files, symbols and downloads (the newest file is the one served).
 * - Package file names become `<id lower>.<normalized version>.nupkg` (`.snupkg`), the names
 *   NuGet clients ask for.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('package_files').addColumn('file_sha1', 'text').execute();
  await db.schema.alterTable('package_files').addColumn('file_md5', 'text').execute();
  await normalizeStoredPackages(db);
}

/**
 * NuGet's normalized version, lower-cased, frozen here (the domain's nuget-version.ts may change,
 * a migration may not): numeric parts without leading zeros, padded to three, a fourth part `0`
 * dropped, build metadata dropped. Null when the text is not a version.
 */
function normalized(version: string): string | null {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.exec(version);
  if (!m) return null;
  const parts = [m[1], m[2] ?? '0', m[3] ?? '0', m[4]].filter((p): p is string => p !== undefined).map((p) => String(Number(p)));
  if (parts[3] === '0') parts.pop();
  return `${parts.join('.')}${m[5] ?? ''}`.toLowerCase();
}

interface StoredPackage {
  id: number;
  project_id: number;
  package_type: string;
  lower_name: string;
  version: string;
  normalized_version: string;
  download_count: number | string;
}

/** The identity pass of this migration, on its own so a test can run it over rows stored the old way. */
export async function normalizeStoredPackages(db: Kysely<any>): Promise<void> {
  const rows: StoredPackage[] = await db
    .selectFrom('packages')
    .select(['id', 'project_id', 'package_type', 'lower_name', 'version', 'normalized_version', 'download_count'])
    .orderBy('id')
    .execute();
  const groups = new Map<string, StoredPackage[]>();
  const target = new Map<number, string>();
  for (const r of rows) {
    const n = normalized(r.version) ?? r.normalized_version;
    target.set(r.id, n);
    const key = JSON.stringify([r.project_id, r.package_type, r.lower_name, n]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const kept: StoredPackage[] = [];
  for (const [first, ...others] of groups.values()) {
    kept.push(first!);
    if (!others.length) continue;
    const ids = others.map((o) => o.id);
    const downloads = others.reduce((n, o) => n + Number(o.download_count), Number(first!.download_count));
    await db.updateTable('package_files').set({ package_id: first!.id }).where('package_id', 'in', ids).execute();
    await db.updateTable('package_symbols').set({ package_id: first!.id }).where('package_id', 'in', ids).execute();
    await db.deleteFrom('packages').where('id', 'in', ids).execute();
    await db.updateTable('packages').set({ download_count: downloads }).where('id', '=', first!.id).execute();
  }
  // Two passes, so no row takes an identity another row still holds (the identity index is unique).
  const changed = kept.filter((r) => target.get(r.id) !== r.normalized_version);
  for (const r of changed) await db.updateTable('packages').set({ normalized_version: `~${r.id}` }).where('id', '=', r.id).execute();
  for (const r of changed) await db.updateTable('packages').set({ normalized_version: target.get(r.id)! }).where('id', '=', r.id).execute();
  await sql`
    update package_files set file_name = (
      select p.lower_name || '.' || p.normalized_version from packages p where p.id = package_files.package_id
    ) || case when file_kind = 'symbol_package' then '.snupkg' else '.nupkg' end`.execute(db);
}
