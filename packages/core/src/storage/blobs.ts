/**
 * Blob stores for package files, artifacts and uploads. The filesystem one writes to a
 * temporary file and renames it into place, so a reader never sees a partial blob and nothing
 * is buffered whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { TooLargeError } from '../kernel/errors.js';

/** What a write measured on the way: the size and the digests (hex) GitLab records for files. */
export interface StoredBlob {
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
}

export type BlobData = AsyncIterable<Uint8Array> | Uint8Array | string;

export interface PutOptions {
  /** Past this many bytes the write stops with TooLargeError and leaves nothing behind. */
  maxBytes?: number;
  tooLargeMessage?: string;
}

/**
 * Where Forgelet keeps its files: `FsBlobStore` (a directory), `PgBlobStore` (tables of the
 * PostgreSQL database) or the server's S3-compatible store. A blob is written once under its
 * key and published whole: a reader sees the previous blob or the new one, never a part.
 */
export interface BlobStore {
  put(key: string, data: BlobData, options?: PutOptions): Promise<StoredBlob>;
  /** A stream of the blob (optionally a byte range, end inclusive); the stream fails when it is missing. */
  read(key: string, range?: { start: number; end?: number }): Readable;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Moves a blob to a new key (how a domain claims an upload). */
  move(from: string, to: string): Promise<void>;
  /** Absolute directory of the store, when it lives on the filesystem (snapshots copy it). */
  readonly root: string | null;
  /** The blobs are rows of the Forgelet database, so snapshots of its tables hold them. */
  readonly inDatabase: boolean;
  /** Where the blobs are, for people (`serve --json`, messages); never holds a credential. */
  readonly description: string;
  /** Releases connections (called when the forge closes). */
  close?(): Promise<void>;
}

/**
 * The bytes of `data` as Buffers, counted and hashed (sha256, sha1, md5) on the way. Iterating
 * throws TooLargeError once more than `maxBytes` have come (which destroys a stream source);
 * `stored()` is the outcome once the iteration has finished.
 */
export function measure(data: BlobData, options: PutOptions = {}): { chunks: AsyncIterable<Buffer>; stored(): StoredBlob } {
  const hashes = [createHash('sha256'), createHash('sha1'), createHash('md5')] as const;
  let size = 0;
  const max = options.maxBytes;
  const source: AsyncIterable<Uint8Array> = typeof data === 'string' || data instanceof Uint8Array ? [Buffer.from(data as Uint8Array)] as unknown as AsyncIterable<Uint8Array> : data;
  async function* counted(): AsyncGenerator<Buffer> {
    for await (const raw of source) {
      const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
      size += chunk.length;
      if (max !== undefined && size > max) throw new TooLargeError(options.tooLargeMessage);
      for (const h of hashes) h.update(chunk);
      yield chunk;
    }
  }
  return {
    chunks: counted(),
    stored() {
      const [sha256, sha1, md5] = hashes.map((h) => h.digest('hex'));
      return { size, sha256: sha256!, sha1: sha1!, md5: md5! };
    },
  };
}

export class FsBlobStore implements BlobStore {
  readonly root: string;
  readonly inDatabase = false;
  readonly description: string;
  constructor(root: string) {
    this.root = resolve(root);
    this.description = pathToFileURL(this.root).href;
  }

  private pathOf(key: string): string {
    const full = resolve(this.root, key);
    if (!full.startsWith(this.root + sep)) throw new Error(`bad blob key ${key}`);
    return full;
  }

  async put(key: string, data: BlobData, options: PutOptions = {}): Promise<StoredBlob> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = join(dirname(target), `.tmp-${randomBytes(8).toString('hex')}`);
    const measured = measure(data, options);
    try {
      await pipeline(measured.chunks, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return measured.stored();
  }

  read(key: string, range?: { start: number; end?: number }): Readable {
    return createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.pathOf(to);
    await mkdir(dirname(target), { recursive: true });
    await rename(this.pathOf(from), target);
  }
}
