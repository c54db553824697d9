/**
 * The `.nuspec` manifest of a package archive: found in the zip's central directory, read
 * from its local header (the archive is never loaded), parsed with fast-xml-parser and
 * validated as GitLab's metadata extraction and nuget metadatum do.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BadRequestError } from '../../kernel/errors.js';
import type { BlobStore } from '../../storage/blobs.js';
import { openZipEntry, readZipIndex, ZipRejectedError, type ZipEntryInfo } from '../artifacts/index.js';
import { isValidPackageName, normalizeVersion } from './nuget-version.js';

/** GitLab reads at most this much nuspec (ExtractMetadataFileService::MAX_FILE_SIZE). */
export const MAX_NUSPEC_BYTES = 4 * 1024 * 1024;

export interface NuspecDependency {
  id: string;
  range: string | null;
}

export interface NuspecDependencyGroup {
  /** null for the dependencies listed outside any `<group>`. */
  targetFramework: string | null;
  dependencies: NuspecDependency[];
}

export interface NuspecMetadata {
  id: string;
  version: string;
  normalizedVersion: string;
  authors: string | null;
  description: string | null;
  summary: string | null;
  title: string | null;
  /** Space-separated tags, whitespace collapsed. */
  tags: string | null;
  projectUrl: string | null;
  iconUrl: string | null;
  licenseUrl: string | null;
  dependencyGroups: NuspecDependencyGroup[];
}

/** An upload that cannot be accepted: 400 with GitLab's bare `message`. */
export function invalidPackage(message: string): BadRequestError {
  return new BadRequestError(message, { raw: true });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) => name === 'group' || name === 'dependency',
});

type Node = Record<string, unknown>;

/** The text of an element that may carry attributes (`<license type="…">MIT</license>`). */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const t = String(value).trim();
    return t === '' ? null : t;
  }
  if (typeof value === 'object' && !Array.isArray(value)) return textOf((value as Node)['#text']);
  if (Array.isArray(value)) return textOf(value[0]);
  return null;
}

function attr(node: unknown, name: string): string | null {
  if (!node || typeof node !== 'object') return null;
  const v = (node as Node)[`@_${name}`];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

function dependencyOf(node: unknown): NuspecDependency | null {
  const id = attr(node, 'id');
  return id ? { id, range: attr(node, 'version') } : null;
}

function asArray(v: unknown): unknown[] {
  return v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v];
}

function checkUrl(field: string, value: string | null): string | null {
  if (value === null) return null;
  if (value.length > 255) throw invalidPackage(`Validation failed: ${field} is too long (maximum is 255 characters)`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidPackage(`Validation failed: ${field} is blocked: URI is invalid`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidPackage(`Validation failed: ${field} is blocked: Only allowed schemes are http, https`);
  }
  return value;
}

/** Parses and validates nuspec XML text. */
export function parseNuspec(xml: string): NuspecMetadata {
  const text = xml.replace(/^\uFEFF/, '');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw invalidPackage(`Invalid nuspec file: ${valid.err.msg} (line ${valid.err.line})`);
  let doc: Node;
  try {
    doc = parser.parse(text) as Node;
  } catch (err) {
    throw invalidPackage(`Invalid nuspec file: ${(err as Error).message}`);
  }
  const pkg = doc.package as Node | undefined;
  const metadata = pkg && typeof pkg === 'object' ? (pkg.metadata as Node | undefined) : undefined;
  if (!metadata || typeof metadata !== 'object') throw invalidPackage('Invalid nuspec file: no package/metadata element');

  const id = textOf(metadata.id);
  const version = textOf(metadata.version);
  if (!id || !version) throw invalidPackage('package name and/or package version not found in metadata');
  if (!isValidPackageName(id)) throw invalidPackage('Validation failed: Name is invalid');
  const normalizedVersion = normalizeVersion(version);
  if (!normalizedVersion || version.length > 255) throw invalidPackage('Validation failed: Version is invalid');

  const authors = textOf(metadata.authors);
  if (authors && authors.length > 255) throw invalidPackage('Validation failed: Authors is too long (maximum is 255 characters)');
  const description = textOf(metadata.description);
  if (description && description.length > 4000) throw invalidPackage('Validation failed: Description is too long (maximum is 4000 characters)');
  const tagsText = textOf(metadata.tags);
  const tags = tagsText ? tagsText.split(/\s+/).filter(Boolean).join(' ') : null;

  const groups: NuspecDependencyGroup[] = [];
  const deps = metadata.dependencies;
  if (deps && typeof deps === 'object') {
    const loose = asArray((deps as Node).dependency).map(dependencyOf).filter((d): d is NuspecDependency => d !== null);
    if (loose.length) groups.push({ targetFramework: null, dependencies: loose });
    for (const group of asArray((deps as Node).group)) {
      groups.push({
        targetFramework: attr(group, 'targetFramework'),
        dependencies: asArray(group && typeof group === 'object' ? (group as Node).dependency : undefined)
          .map(dependencyOf)
          .filter((d): d is NuspecDependency => d !== null),
      });
    }
  }

  return {
    id,
    version,
    normalizedVersion,
    authors,
    description,
    summary: textOf(metadata.summary),
    title: textOf(metadata.title),
    tags,
    projectUrl: checkUrl('Project url', textOf(metadata.projectUrl)),
    iconUrl: checkUrl('Icon url', textOf(metadata.iconUrl)),
    licenseUrl: checkUrl('License url', textOf(metadata.licenseUrl)),
    dependencyGroups: groups,
  };
}

async function readEntryText(blobs: BlobStore, key: string, entry: ZipEntryInfo, limit: number): Promise<string> {
  const stream = await openZipEntry(blobs, key, {
    local_header_offset: entry.localHeaderOffset,
    compressed_size: entry.compressedSize,
    compression_method: entry.compressionMethod,
    size: entry.size,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.destroy();
      throw invalidPackage('nuspec file too big');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface PackageArchive {
  metadata: NuspecMetadata;
  /** Every file entry (directories left out). */
  entries: ZipEntryInfo[];
}

/**
 * Reads an uploaded archive: its zip index, then its nuspec (the one at the root, else the
 * first one found). Every failure is a 400 with a message.
 */
export async function readPackageArchive(blobs: BlobStore, key: string, size: number): Promise<PackageArchive> {
  const entries: ZipEntryInfo[] = [];
  try {
    for await (const entry of readZipIndex(blobs, key, size)) if (entry.type === 'file') entries.push(entry);
  } catch (err) {
    if (err instanceof ZipRejectedError) throw invalidPackage(`Invalid package file: ${err.message}`);
    throw err;
  }
  const nuspecs = entries.filter((e) => e.path.toLowerCase().endsWith('.nuspec'));
  const nuspec = nuspecs.find((e) => !e.path.includes('/')) ?? nuspecs[0];
  if (!nuspec) throw invalidPackage('nuspec file not found');
  if (nuspec.size > MAX_NUSPEC_BYTES) throw invalidPackage('nuspec file too big');
  let xml: string;
  try {
    xml = await readEntryText(blobs, key, nuspec, MAX_NUSPEC_BYTES);
  } catch (err) {
    if (err instanceof ZipRejectedError || (err as NodeJS.ErrnoException).code === 'Z_DATA_ERROR') {
      throw invalidPackage(`Invalid package file: ${(err as Error).message}`);
    }
    throw err;
  }
  return { metadata: parseNuspec(xml), entries };
}
