/**
 * Zip archives in the blob store, read by random access: the central directory is walked once
 * (at upload) to build an index; a single file is later streamed from its local header offset
 * through inflate, so neither step holds the archive (or an entry) in memory. Zip64 archives
 * (several GB) work: yauzl resolves zip64 sizes and offsets.
 */
import { Readable, PassThrough } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl from 'yauzl';
import type { BlobStore } from '../../storage/blobs.js';
import { readBlob } from './blob-read.js';

export interface ZipEntryInfo {
  /** Relative path; directories end in '/'. */
  path: string;
  type: 'file' | 'directory';
  size: number;
  compressedSize: number;
  compressionMethod: number;
  localHeaderOffset: number;
  crc32: number;
  /** GitLab's octal mode text: `100644`, `100755`, `040755`. */
  mode: string;
}

/** A zip that cannot be accepted (corrupt, truncated, unsafe entry): the message says why. */
export class ZipRejectedError extends Error {}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

class BlobRangeReader extends yauzl.RandomAccessReader {
  constructor(
    private readonly blobs: BlobStore,
    private readonly key: string,
  ) {
    super();
  }
  override _readStreamForRange(start: number, end: number): Readable {
    if (end <= start) return Readable.from([]);
    return readBlob(this.blobs, this.key, { start, end: end - 1 });
  }
}

function openZip(blobs: BlobStore, key: string, size: number): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromRandomAccessReader(
      new BlobRangeReader(blobs, key),
      size,
      { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false },
      (err, zip) => (err ? reject(new ZipRejectedError(`invalid zip archive: ${err.message}`)) : resolve(zip)),
    );
  });
}

/** Checks one entry name the way GitLab's metadata does: relative, no `.`/`..` segments. */
export function unsafeEntryPath(path: string): string | null {
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'absolute paths are not allowed';
  if (path.includes('\\')) return 'backslashes are not allowed';
  const parts = path.replace(/\/$/, '').split('/');
  if (parts.some((p) => p === '..' || p === '.')) return 'paths outside the archive are not allowed';
  if (parts.some((p) => p === '')) return 'empty path segments are not allowed';
  return null;
}

/** yauzl's own file name checks (it runs them before we see the entry), in our words. */
function entryNameError(message: string): ZipRejectedError | null {
  const m = /^(absolute path|invalid relative path|invalid characters in fileName): ([\s\S]*)$/.exec(message);
  if (!m) return null;
  const name = m[2]!;
  return new ZipRejectedError(`invalid zip entry ${JSON.stringify(name)}: ${unsafeEntryPath(name) ?? 'the name is not allowed'}`);
}

/**
 * Every entry of the archive, checked: a corrupt or truncated zip, an unsafe path, a symlink,
 * an encrypted entry or an unknown compression method rejects the whole archive.
 */
export async function* readZipIndex(blobs: BlobStore, key: string, size: number): AsyncGenerator<ZipEntryInfo> {
  const zip = await openZip(blobs, key, size);
  try {
    const entries = zip.eachEntry();
    while (true) {
      let next: IteratorResult<yauzl.Entry>;
      try {
        next = await entries.next();
      } catch (err) {
        throw entryNameError((err as Error).message) ?? new ZipRejectedError(`invalid zip archive: ${(err as Error).message}`);
      }
      if (next.done) break;
      const e = next.value;
      const name = e.fileName;
      const problem = unsafeEntryPath(name);
      if (problem) throw new ZipRejectedError(`invalid zip entry ${JSON.stringify(name)}: ${problem}`);
      const unixMode = (e.externalFileAttributes >>> 16) & 0xffff;
      if ((unixMode & S_IFMT) === S_IFLNK) throw new ZipRejectedError(`invalid zip entry ${JSON.stringify(name)}: symbolic links are not allowed`);
      if (e.isEncrypted()) throw new ZipRejectedError(`invalid zip entry ${JSON.stringify(name)}: encrypted entries are not supported`);
      const directory = name.endsWith('/') || (unixMode & S_IFMT) === S_IFDIR;
      if (!directory && e.compressionMethod !== 0 && e.compressionMethod !== 8) {
        throw new ZipRejectedError(`invalid zip entry ${JSON.stringify(name)}: compression method ${e.compressionMethod} is not supported`);
      }
      if (e.relativeOffsetOfLocalHeader + e.compressedSize > size) throw new ZipRejectedError('invalid zip archive: truncated');
      const perms = unixMode & 0o777;
      yield {
        path: directory && !name.endsWith('/') ? `${name}/` : name,
        type: directory ? 'directory' : 'file',
        size: directory ? 0 : e.uncompressedSize,
        compressedSize: e.compressedSize,
        compressionMethod: e.compressionMethod,
        localHeaderOffset: e.relativeOffsetOfLocalHeader,
        crc32: e.crc32,
        mode: directory ? `040${(perms || 0o755).toString(8).padStart(3, '0')}` : `100${(perms || 0o644).toString(8).padStart(3, '0')}`,
      };
    }
  } finally {
    zip.close();
  }
}

async function readRange(blobs: BlobStore, key: string, start: number, length: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of readBlob(blobs, key, { start, end: start + length - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams one file of the archive, from its local header (read once) through inflate. */
export async function openZipEntry(
  blobs: BlobStore,
  key: string,
  entry: { local_header_offset: number; compressed_size: number; compression_method: number; size: number },
): Promise<Readable> {
  const header = await readRange(blobs, key, entry.local_header_offset, 30);
  if (header.length < 30 || header.readUInt32LE(0) !== 0x04034b50) throw new ZipRejectedError('invalid zip archive: bad local header');
  const dataStart = entry.local_header_offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (entry.compressed_size === 0) return Readable.from([]);
  const raw = readBlob(blobs, key, { start: dataStart, end: dataStart + entry.compressed_size - 1 });
  if (entry.compression_method === 0) return raw;
  const out = new PassThrough();
  const inflate = createInflateRaw();
  raw.on('error', (err) => out.destroy(err));
  inflate.on('error', (err) => out.destroy(err));
  return raw.pipe(inflate).pipe(out);
}

/** The directory paths implied by a path (`a/b/c.txt` → `a/`, `a/b/`). */
export function parentDirectories(path: string): string[] {
  const parts = path.replace(/\/$/, '').split('/');
  const dirs: string[] = [];
  for (let i = 1; i < parts.length; i++) dirs.push(`${parts.slice(0, i).join('/')}/`);
  return dirs;
}

/** The directory holding a path ('' at the root) and the entry's own name. */
export function splitEntryPath(path: string): { parent: string; name: string } {
  const trimmed = path.replace(/\/$/, '');
  const at = trimmed.lastIndexOf('/');
  return at < 0 ? { parent: '', name: trimmed } : { parent: trimmed.slice(0, at + 1), name: trimmed.slice(at + 1) };
}
