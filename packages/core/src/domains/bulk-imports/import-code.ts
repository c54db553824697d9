/**
 * Importing code records: repository blobs, commits and refs (shas kept), and NuGet packages
 * with their files and symbols.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Deps } from '../../access/context.js';
import type { Database } from '../../storage/database.js';
import type { StoredBlob } from '../../storage/blobs.js';
import type { BulkImportEntityRow } from './bulk-import.table.js';
import { isPrereleaseVersion, normalizeVersion, versionSortKey } from '../packages/index.js';
import type { SourceUsers } from './source-users.js';

/** A text field of an exported record, or `fallback` when it is missing or not text. */
export const str = (v: unknown, fallback: string | null = null) => (typeof v === 'string' ? v : fallback);

/** Repository records of a Forgelet source (`forgelet_repository`: blobs, commits, refs with their files) copied as they are: shas are kept. */
export async function importRepositoryRecord(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, users: SourceUsers, now: string): Promise<number> {
  const projectId = entity.project_id!;
  // The records land in the repository's tables; the first write (or the next start) replays them into git.
  await trx.insertInto('repository_replays').values({ project_id: projectId, created_at: now }).onConflict((oc) => oc.column('project_id').doNothing()).execute();
  if (r.type === 'blob') {
    const existing = await trx.selectFrom('repository_blobs').select('id').where('project_id', '=', projectId).where('sha', '=', r.sha).executeTakeFirst();
    if (existing) return existing.id;
    const row = await trx.insertInto('repository_blobs').values({ project_id: projectId, sha: String(r.sha), size: Number(r.size ?? 0), content: String(r.content ?? '') }).returning('id').executeTakeFirstOrThrow();
    return row.id;
  }
  if (r.type === 'commit') {
    const existing = await trx.selectFrom('repository_commits').select('id').where('project_id', '=', projectId).where('sha', '=', r.sha).executeTakeFirst();
    if (existing) return existing.id;
    const user = users.of(r.user_id).user;
    const parents: string[] = Array.isArray(r.parent_ids) ? r.parent_ids.map(String) : [];
    const row = await trx
      .insertInto('repository_commits')
      .values({
        project_id: projectId,
        sha: String(r.sha),
        parent_ids: JSON.stringify(parents),
        title: str(r.title, '')!,
        message: str(r.message, '')!,
        author_name: str(r.author_name, '')!,
        author_email: str(r.author_email, '')!,
        ...commitDate('authored', r.authored_date, now),
        committer_name: str(r.committer_name, '')!,
        committer_email: str(r.committer_email, '')!,
        ...commitDate('committed', r.committed_date, now),
        user_id: user?.id ?? null,
        created_at: commitDate('committed', r.created_at, now).committed_date,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (parents.length) await trx.insertInto('repository_commit_parents').values(parents.map((parent_sha, position) => ({ commit_id: row.id, parent_sha, position }))).execute();
    const changes = (Array.isArray(r.changes) ? r.changes : []).filter((c: any) => typeof c?.path === 'string');
    if (changes.length) {
      await trx
        .insertInto('repository_commit_changes')
        .values(changes.map((c: any) => ({ commit_id: row.id, path: c.path, previous_path: str(c.previous_path), change: c.change, additions: Number(c.additions ?? 0), deletions: Number(c.deletions ?? 0) })))
        .execute();
    }
    return row.id;
  }
  if (r.type === 'ref') {
    const kind = r.kind === 'tag' ? 'tag' : 'branch';
    const existing = await trx.selectFrom('repository_refs').select('id').where('project_id', '=', projectId).where('kind', '=', kind).where('name', '=', r.name).executeTakeFirst();
    if (existing) return existing.id;
    const ref = await trx
      .insertInto('repository_refs')
      .values({
        project_id: projectId,
        kind,
        name: String(r.name),
        commit_sha: String(r.commit_sha),
        message: str(r.message),
        tagger_name: str(r.tagger_name),
        tagger_email: str(r.tagger_email),
        created_at: str(r.created_at, now)!,
        updated_at: str(r.updated_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const files = (Array.isArray(r.files) ? r.files : []).filter((f: any) => typeof f?.path === 'string');
    for (let i = 0; i < files.length; i += 200) {
      await trx
        .insertInto('repository_files')
        .values(files.slice(i, i + 200).map((f: any) => ({ ref_id: ref.id, path: f.path, blob_sha: String(f.blob_sha), last_commit_sha: String(f.last_commit_sha), executable: f.executable ? 1 : 0 })))
        .execute();
    }
    return ref.id;
  }
  throw new Error(`unknown repository record ${String(r.type)}`);
}

const PACKAGE_COLUMNS = [
  'package_type', 'name', 'lower_name', 'version', 'normalized_version', 'version_sort', 'prerelease', 'status', 'authors', 'description', 'summary', 'title', 'tags',
  'project_url', 'icon_url', 'license_url', 'dependency_groups', 'download_count', 'last_downloaded_at', 'created_at', 'updated_at',
] as const;

/** A package file record of a `packages` export; FETCHED is set once its bytes are in the blob store. */
interface PackageFileRecord {
  file_kind?: string;
  download_path?: string;
  content?: string;
  [FETCHED]?: { key: string; stored: StoredBlob };
}
const FETCHED = Symbol('fetched');

const packageBlobKey = (projectId: number, f: { file_kind?: string }) => `packages/nuget/${projectId}/${f.file_kind === 'symbol' ? 'symbols/' : ''}${randomBytes(12).toString('hex')}`;

/**
 * Streams the files of `records` (a `packages` batch) from the source into the blob store,
 * before the step's transaction opens (a rolled back step leaves only unreferenced blobs, as
 * GitLab's import leaves uploads). `download` fetches a source path as a stream.
 */
export async function fetchPackageFiles(records: readonly any[], projectId: number, blobs: Deps['blobs'], download: (path: string) => Promise<AsyncIterable<Uint8Array>>, maxBytes: number): Promise<void> {
  for (const r of records) {
    for (const f of (Array.isArray(r?.files) ? r.files : []) as PackageFileRecord[]) {
      if (typeof f.download_path !== 'string' || f.content !== undefined || f[FETCHED]) continue;
      // Only the source's package file route: the path goes to the source with its token.
      if (!/^\/projects\/\d+\/export_relations\/package_files\/\d+$/.test(f.download_path)) throw new Error(`package file download_path is invalid: ${f.download_path.slice(0, 100)}`);
      const key = packageBlobKey(projectId, f);
      const stored = await blobs.put(key, await download(f.download_path), { maxBytes, tooLargeMessage: 'Package file is too large' });
      f[FETCHED] = { key, stored };
    }
  }
}

/**
 * A package, its files (bytes into the blob store first; a rolled back step leaves only
 * unreferenced blobs) and symbol entries. The version's identity (normalized version, sort key)
 * is computed here from the version as spelled, and each file's size and digests from its bytes,
 * whatever the source recorded.
 */
export async function importPackage(trx: Kysely<Database>, entity: BulkImportEntityRow, r: any, blobs: Deps['blobs'], now: string): Promise<number> {
  const projectId = entity.project_id!;
  const values: Record<string, unknown> = { project_id: projectId };
  for (const c of PACKAGE_COLUMNS) if (r[c] !== undefined) values[c] = r[c];
  const version = String(r.version ?? '');
  const normalized = normalizeVersion(version);
  if (normalized) Object.assign(values, { normalized_version: normalized, version_sort: versionSortKey(version), prerelease: isPrereleaseVersion(version) ? 1 : 0 });
  values.created_at ??= now;
  values.updated_at ??= now;
  const pkg = await trx.insertInto('packages').values(values as any).returning('id').executeTakeFirstOrThrow();
  for (const f of (Array.isArray(r.files) ? r.files : []) as any[]) {
    // Streamed in by fetchPackageFiles before the step's transaction; an older Forgelet source
    // put the bytes in the record (base64 `content`).
    let fetched = (f as PackageFileRecord)[FETCHED];
    if (!fetched) {
      const key = packageBlobKey(projectId, f);
      fetched = { key, stored: await blobs.put(key, Buffer.from(String(f.content ?? ''), 'base64')) };
    }
    const { key, stored } = fetched;
    const fileKind = str(f.file_kind, 'package')!;
    const lowerName = String(r.lower_name ?? r.name ?? '').toLowerCase();
    const fileName = normalized && lowerName ? `${lowerName}.${normalized}.${fileKind === 'package' ? 'nupkg' : 'snupkg'}` : str(f.file_name, '')!;
    const file = await trx
      .insertInto('package_files')
      .values({
        package_id: pkg.id,
        file_kind: fileKind,
        file_name: fileName,
        blob_key: key,
        size: stored.size,
        file_sha256: stored.sha256,
        file_sha1: stored.sha1,
        file_md5: stored.md5,
        created_at: str(f.created_at, now)!,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const sym of (Array.isArray(f.symbols) ? f.symbols : []) as any[]) {
      await trx.insertInto('package_symbols').values({ ...sym, package_id: pkg.id, package_file_id: file.id }).execute();
    }
  }
  return pkg.id;
}

/**
 * A commit date of a record as the index keeps it: UTC, whole seconds (as git), and the offset
 * the record's date was written in (`…+01:00` from a GitLab export), else `+00:00`.
 */
function commitDate<K extends 'authored' | 'committed'>(kind: K, value: unknown, fallback: string): Record<`${K}_date`, string> & Record<`${K}_tz`, string> {
  const text = typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : fallback;
  const tz = /([+-]\d\d:\d\d)$/.exec(text)?.[1] ?? '+00:00';
  const date = new Date(Math.floor(Date.parse(text) / 1000) * 1000).toISOString();
  return { [`${kind}_date`]: date, [`${kind}_tz`]: tz } as Record<`${K}_date`, string> & Record<`${K}_tz`, string>;
}
