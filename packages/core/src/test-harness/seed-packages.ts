/**
 * Seeded packages: a `packages` entry of a seeded project becomes a minimal `.nupkg` (a zip
 * holding `<name>.nuspec`), streamed by yazl into the blob store under an upload key, then
 * published through the feed's own `PUT /projects/:id/packages/nuget` handler: the same
 * archive reading, nuspec validation, duplicate rules and storage path as a push.
 *
 *   packages: [{ name, version, description?, authors?, tags?, dependencies?, package_type? }]
 *
 * `authors` and `description` (which NuGet requires) default as `dotnet pack` defaults them:
 * the package name and "Package Description". `tags`: a list or a space/comma separated
 * string. `dependencies`: a mapping `{ Id: range }`, or a list of ids and
 * `{ id, version?, target_framework? }`.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type Yazl from 'yazl';
import type { BlobStore } from '../storage/blobs.js';
import type { UploadedFile } from '../kernel/params.js';

export const PACKAGE_KEYS = ['name', 'version', 'description', 'authors', 'tags', 'dependencies', 'package_type'];
export const PACKAGE_TYPES_SEEDED = ['nuget'];
export const DEFAULT_DESCRIPTION = 'Package Description';

export interface SeedDependency {
  id: string;
  version: string | null;
  targetFramework: string | null;
}

export interface SeedPackageSpec {
  name: string;
  version: string;
  authors: string;
  description: string;
  tags: string | null;
  dependencies: SeedDependency[];
}

/** A problem with the entry itself (the caller names the entry). */
export class SeedPackageError extends Error {}

type Entry = Record<string, unknown>;

const isEntry = (v: unknown): v is Entry => v !== null && typeof v === 'object' && !Array.isArray(v);

function text(entry: Entry, key: string, required = false): string | undefined {
  const v = entry[key];
  if (v === undefined || v === null) {
    if (required) throw new SeedPackageError(`${key} is missing`);
    return undefined;
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw new SeedPackageError(`${key} must be a string`);
  return String(v);
}

function dependenciesOf(value: unknown): SeedDependency[] {
  if (value === undefined || value === null) return [];
  if (isEntry(value)) {
    return Object.entries(value).map(([id, range]) => {
      if (range !== null && typeof range !== 'string' && typeof range !== 'number') throw new SeedPackageError(`dependencies: the version range of ${id} must be a string`);
      return { id, version: range === null || range === '' ? null : String(range), targetFramework: null };
    });
  }
  if (!Array.isArray(value)) throw new SeedPackageError('dependencies must be a mapping of id to version range, or a list');
  return value.map((d, i) => {
    if (typeof d === 'string' && d.trim() !== '') return { id: d.trim(), version: null, targetFramework: null };
    if (!isEntry(d)) throw new SeedPackageError(`dependencies[${i}] must be an id or { id, version?, target_framework? }`);
    const unknown = Object.keys(d).filter((k) => !['id', 'version', 'target_framework'].includes(k));
    if (unknown.length) throw new SeedPackageError(`dependencies[${i}]: unknown key ${unknown.join(', ')} (known: id, version, target_framework)`);
    try {
      return { id: text(d, 'id', true)!, version: text(d, 'version') ?? null, targetFramework: text(d, 'target_framework') ?? null };
    } catch (err) {
      throw new SeedPackageError(`dependencies[${i}]: ${(err as Error).message}`);
    }
  });
}

/** Reads and checks the shape of one `packages` entry; the values are validated by the upload. */
export function packageSpec(entry: Entry): SeedPackageSpec {
  const unknown = Object.keys(entry).filter((k) => !PACKAGE_KEYS.includes(k));
  if (unknown.length) throw new SeedPackageError(`unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${PACKAGE_KEYS.join(', ')})`);
  const type = text(entry, 'package_type') ?? 'nuget';
  if (!PACKAGE_TYPES_SEEDED.includes(type)) throw new SeedPackageError(`package_type ${type} is not supported (supported: ${PACKAGE_TYPES_SEEDED.join(', ')})`);
  const name = text(entry, 'name', true)!;
  const version = text(entry, 'version', true)!;
  let tags: string | null = null;
  const rawTags = entry.tags;
  if (rawTags !== undefined && rawTags !== null) {
    const list = Array.isArray(rawTags) ? rawTags : typeof rawTags === 'string' ? rawTags.split(/[\s,]+/) : null;
    if (!list || list.some((t) => typeof t !== 'string' && typeof t !== 'number')) throw new SeedPackageError('tags must be a list or a space separated string');
    tags = list.flatMap((t) => String(t).split(/[\s,]+/)).filter(Boolean).join(' ') || null;
  }
  return {
    name,
    version,
    authors: text(entry, 'authors') ?? name,
    description: text(entry, 'description') ?? DEFAULT_DESCRIPTION,
    tags,
    dependencies: dependenciesOf(entry.dependencies),
  };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function dependencyXml(d: SeedDependency): string {
  return `<dependency id="${esc(d.id)}"${d.version !== null ? ` version="${esc(d.version)}"` : ''} />`;
}

/** The nuspec NuGet would write for the spec (dependencies grouped when any names a framework). */
export function seedNuspec(spec: SeedPackageSpec): string {
  const el = (name: string, v: string | null) => (v === null ? '' : `    <${name}>${esc(v)}</${name}>\n`);
  let deps = '';
  if (spec.dependencies.length) {
    const framed = spec.dependencies.some((d) => d.targetFramework !== null);
    if (!framed) {
      deps = `    <dependencies>\n${spec.dependencies.map((d) => `      ${dependencyXml(d)}\n`).join('')}    </dependencies>\n`;
    } else {
      const groups = new Map<string | null, SeedDependency[]>();
      for (const d of spec.dependencies) groups.set(d.targetFramework, [...(groups.get(d.targetFramework) ?? []), d]);
      const body = [...groups.entries()]
        .map(([tf, list]) => `      <group${tf === null ? '' : ` targetFramework="${esc(tf)}"`}>\n${list.map((d) => `        ${dependencyXml(d)}\n`).join('')}      </group>\n`)
        .join('');
      deps = `    <dependencies>\n${body}    </dependencies>\n`;
    }
  }
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">\n  <metadata>\n` +
    el('id', spec.name) +
    el('version', spec.version) +
    el('authors', spec.authors) +
    el('description', spec.description) +
    el('tags', spec.tags) +
    deps +
    `  </metadata>\n</package>\n`
  );
}

/**
 * Streams the package archive into the blob store under a fresh upload key and answers it as
 * the multipart parser would have. The caller hands it to the upload handler (which moves it
 * to its own key) and deletes the upload key afterwards in any case.
 */
export async function writeSeedPackage(blobs: BlobStore, spec: SeedPackageSpec, mtime: Date): Promise<UploadedFile> {
  // Required on first use: only seeding needs it, and starting the server should not pay for it.
  const yazl = createRequire(import.meta.url)('yazl') as typeof Yazl;
  const zip = new yazl.ZipFile();
  // The entry name only has to end in .nuspec: the id inside is what counts (and is validated).
  const base = spec.name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '') || 'package';
  zip.addBuffer(Buffer.from(seedNuspec(spec), 'utf8'), `${base}.nuspec`, { mtime });
  zip.end();
  const blobKey = `uploads/seed-${randomBytes(12).toString('hex')}`;
  const stored = await blobs.put(blobKey, zip.outputStream as AsyncIterable<Buffer>);
  return {
    kind: 'file',
    blobKey,
    filename: `${base}.${spec.version.replace(/[^A-Za-z0-9._+-]/g, '_')}.nupkg`,
    contentType: 'application/octet-stream',
    size: stored.size,
    sha256: stored.sha256,
    sha1: stored.sha1,
    md5: stored.md5,
  };
}
