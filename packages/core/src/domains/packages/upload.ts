/**
 * Publishing: `PUT …/nuget` (v3), `PUT …/nuget/v2` and `PUT …/nuget/symbolpackage`. The
 * server has already streamed the multipart `package` part into the blob store; here its zip
 * index and nuspec are read by random access, the package is created (or, when duplicates
 * are allowed, given one more file) in one transaction, and the upload is claimed by moving
 * it. Anything refused leaves nothing behind: the server deletes unclaimed uploads.
 */
import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../access/context.js';
import { nowIso } from '../../access/context.js';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../kernel/errors.js';
import type { UploadedFile } from '../../kernel/params.js';
import type { RouteRequest } from '../../kernel/route.js';
import { isUniqueViolation } from '../../storage/dialect.js';
import { openZipEntry } from '../artifacts/index.js';
import { feedProject } from './feed-access.js';
import { normalizeVersion, versionSortKey, isPrereleaseVersion } from './nuget-version.js';
import { invalidPackage, readPackageArchive, type NuspecMetadata } from './nuspec.js';
import { pdbIdentity } from './pdb.js';
import { FILE_PACKAGE, FILE_SYMBOLS, NUGET, selectPackageVersion, settingsForProject, type PackageSettings } from './packages.queries.js';
import type { PackageRow } from './packages.table.js';
import type { ProjectRow } from '../../access/project.table.js';

/** GitLab's default `nuget_max_file_size`. */
export const MAX_PACKAGE_BYTES = 500 * 1024 * 1024;
/** Symbol files indexed from one symbol package at most. */
export const MAX_SYMBOL_FILES = 100;

export interface UploadInput {
  id: string;
  package?: UploadedFile;
  /** gitbeaker's `uploadPackageFile` sends the file as `file`. */
  file?: UploadedFile;
  package_name?: string;
  package_version?: string;
  /** gitbeaker's camelCase spellings. */
  packageName?: string;
  packageVersion?: string;
}

export type UploadKind = 'package' | 'symbol';

/** Duplicates are allowed by the setting, or by its exception regex matching the name or the version. */
export function duplicateAllowed(settings: PackageSettings, name: string, version: string): boolean {
  if (settings.nuget_duplicates_allowed) return true;
  const source = settings.nuget_duplicate_exception_regex;
  if (!source) return false;
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${source})$`);
  } catch {
    return false;
  }
  return re.test(name) || re.test(version);
}

/** `<id lower>.<normalized version>.nupkg`: the file name NuGet clients ask for (the nuspec keeps the version as spelled). */
export function packageFileName(m: Pick<NuspecMetadata, 'id' | 'normalizedVersion'>, kind: UploadKind): string {
  return `${m.id.toLowerCase()}.${m.normalizedVersion}.${kind === 'symbol' ? 'snupkg' : 'nupkg'}`;
}

/** The digests of an upload, as package_files stores them. */
const digests = (upload: UploadedFile) => ({ size: upload.size, file_sha256: upload.sha256, file_sha1: upload.sha1, file_md5: upload.md5 });

function claimedKey(projectId: number, kind: UploadKind): string {
  return `packages/nuget/${projectId}/${kind === 'symbol' ? 'symbols/' : ''}${randomBytes(12).toString('hex')}`;
}

function metadataColumns(m: NuspecMetadata) {
  return {
    authors: m.authors,
    description: m.description,
    summary: m.summary,
    title: m.title,
    tags: m.tags,
    project_url: m.projectUrl,
    icon_url: m.iconUrl,
    license_url: m.licenseUrl,
    dependency_groups: JSON.stringify(m.dependencyGroups),
  };
}

/** The request may name the package (gitbeaker, curl users); it must then be the nuspec's. */
function checkDeclared(input: UploadInput, m: NuspecMetadata): void {
  const name = input.package_name ?? input.packageName;
  const version = input.package_version ?? input.packageVersion;
  if (name !== undefined && name !== '' && name.toLowerCase() !== m.id.toLowerCase()) {
    throw invalidPackage(`package name ${name} does not match the package metadata (${m.id})`);
  }
  if (version !== undefined && version !== '' && (normalizeVersion(version) ?? version.toLowerCase()) !== m.normalizedVersion) {
    throw invalidPackage(`package version ${version} does not match the package metadata (${m.version})`);
  }
}

export async function uploadPackage(ctx: Ctx, input: UploadInput, req: RouteRequest, kind: UploadKind): Promise<void> {
  const upload = input.package ?? input.file;
  if (!upload) throw new ValidationError([{ field: 'package', message: 'is missing' }]);
  const project = await feedProject(ctx, input.id, 'create_package');
  if (upload.size > MAX_PACKAGE_BYTES) throw new BadRequestError('File is too large');
  const archive = await readPackageArchive(ctx.blobs, upload.blobKey, upload.size);
  const m = archive.metadata;
  checkDeclared(input, m);
  if (kind === 'package') return storePackage(ctx, project.id, project.namespace_id, upload, m, req);
  return storeSymbols(ctx, project, upload, m, archive.entries.filter((e) => e.path.toLowerCase().endsWith('.pdb')), req);
}

/** The upload is ours from here: removed from the server's clean-up list, moved to its key. */
async function claim(ctx: Ctx, upload: UploadedFile, req: RouteRequest, key: string): Promise<void> {
  await ctx.blobs.move(upload.blobKey, key);
  const i = req.uploads?.indexOf(upload.blobKey) ?? -1;
  if (i >= 0) req.uploads!.splice(i, 1);
}

async function storePackage(ctx: Ctx, projectId: number, namespaceId: number, upload: UploadedFile, m: NuspecMetadata, req: RouteRequest): Promise<void> {
  const settings = await settingsForProject(ctx, namespaceId);
  const key = claimedKey(projectId, 'package');
  const fileName = packageFileName(m, 'package');
  await claim(ctx, upload, req, key);
  const now = nowIso(ctx);
  const attempt = () =>
    ctx.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('packages')
        .select(['id', 'name', 'version'])
        .where('project_id', '=', projectId)
        .where('package_type', '=', NUGET)
        .where('lower_name', '=', m.id.toLowerCase())
        .where('normalized_version', '=', m.normalizedVersion)
        .executeTakeFirst();
      let packageId: number;
      if (existing) {
        if (!duplicateAllowed(settings, existing.name, existing.version)) throw new ConflictError('A package with the same name and version already exists');
        packageId = existing.id;
        await trx.updateTable('packages').set({ ...metadataColumns(m), status: 'default', updated_at: now }).where('id', '=', packageId).execute();
      } else {
        // Ids are case-insensitive: every version keeps the spelling the package was first published with.
        const spelled = await trx
          .selectFrom('packages')
          .select('name')
          .where('project_id', '=', projectId)
          .where('package_type', '=', NUGET)
          .where('lower_name', '=', m.id.toLowerCase())
          .orderBy('id')
          .limit(1)
          .executeTakeFirst();
        const row = await trx
          .insertInto('packages')
          .values({
            project_id: projectId,
            package_type: NUGET,
            name: spelled?.name ?? m.id,
            lower_name: m.id.toLowerCase(),
            version: m.version,
            normalized_version: m.normalizedVersion,
            version_sort: versionSortKey(m.version),
            prerelease: isPrereleaseVersion(m.version) ? 1 : 0,
            ...metadataColumns(m),
            last_downloaded_at: null,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        packageId = row.id;
      }
      await trx
        .insertInto('package_files')
        .values({ package_id: packageId, file_kind: FILE_PACKAGE, file_name: fileName, blob_key: key, ...digests(upload), created_at: now })
        .execute();
    });
  try {
    try {
      await attempt();
    } catch (err) {
      // Two first uploads of one version raced: the loser becomes a duplicate upload.
      if (!isUniqueViolation(err)) throw err;
      await attempt();
    }
  } catch (err) {
    await ctx.blobs.delete(key);
    throw err;
  }
}

async function storeSymbols(
  ctx: Ctx,
  project: ProjectRow,
  upload: UploadedFile,
  m: NuspecMetadata,
  pdbs: { path: string; size: number; compressedSize: number; compressionMethod: number; localHeaderOffset: number }[],
  req: RouteRequest,
): Promise<void> {
  const pkg: PackageRow | undefined = await selectPackageVersion(ctx, { kind: 'project', project }, m.id, m.version);
  if (!pkg) throw new NotFoundError('Package');
  if (pdbs.length > MAX_SYMBOL_FILES) throw invalidPackage(`too many symbol files (the limit is ${MAX_SYMBOL_FILES})`);
  const key = claimedKey(project.id, 'symbol');
  await claim(ctx, upload, req, key);
  try {
    const symbols: { file_name: string; file_path: string; signature: string; file_sha256: string; size: number; compressed_size: number; compression_method: number; local_header_offset: number }[] = [];
    for (const e of pdbs) {
      const entry = { local_header_offset: e.localHeaderOffset, compressed_size: e.compressedSize, compression_method: e.compressionMethod, size: e.size };
      let identity;
      try {
        identity = await pdbIdentity(await openZipEntry(ctx.blobs, key, entry));
      } catch (err) {
        throw invalidPackage(`Invalid symbol file ${e.path}: ${(err as Error).message}`);
      }
      // GitLab skips files whose signature it cannot find (not portable PDBs).
      if (!identity) continue;
      const base = e.path.slice(e.path.lastIndexOf('/') + 1).toLowerCase();
      symbols.push({ file_name: base, file_path: e.path, signature: identity.signature, file_sha256: identity.checksum, ...entry });
    }
    const now = nowIso(ctx);
    await ctx.db.transaction().execute(async (trx) => {
      const file = await trx
        .insertInto('package_files')
        .values({
          package_id: pkg.id,
          file_kind: FILE_SYMBOLS,
          file_name: packageFileName(m, 'symbol'),
          blob_key: key,
          ...digests(upload),
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (symbols.length) {
        await trx
          .insertInto('package_symbols')
          .values(symbols.map((s) => ({ ...s, package_id: pkg.id, package_file_id: file.id, lower_signature: s.signature.toLowerCase(), created_at: now })))
          .execute();
      }
    });
  } catch (err) {
    await ctx.blobs.delete(key);
    throw err;
  }
}
