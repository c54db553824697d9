/**
 * Blob store for package files, artifacts and uploads. Writes stream to a temporary file
 * and rename into place, so a reader never sees a partial blob and nothing is buffered whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TooLargeError } from '../kernel/errors.js';

/** What a write measured on the way: the size and the digests (hex) GitLab records for files. */
export interface StoredBlob {
  size: number;
  sha256: string;
  sha1: string;
  md5: string;
}

export interface BlobStore {
  put(key: string, data: AsyncIterable<Uint8Array> | Uint8Array | string, options?: { maxBytes?: number; tooLargeMessage?: string }): Promise<StoredBlob>;
  /** A stream of the blob (optionally a byte range, end inclusive); throws when missing. */
  read(key: string, range?: { start: number; end?: number }): Readable;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Moves a blob to a new key (how a domain claims an upload). */
  move(from: string, to: string): Promise<void>;
  /** Absolute directory of the store, when it lives on the filesystem (snapshots copy it). */
  readonly root: string | null;
}

export class FsBlobStore implements BlobStore {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    const full = resolve(this.root, key);
    if (!full.startsWith(this.root + sep)) throw new Error(`bad blob key ${key}`);
    return full;
  }

  async put(key: string, data: AsyncIterable<Uint8Array> | Uint8Array | string, options: { maxBytes?: number; tooLargeMessage?: string } = {}): Promise<StoredBlob> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = join(dirname(target), `.tmp-${randomBytes(8).toString('hex')}`);
    const hashes = [createHash('sha256'), createHash('sha1'), createHash('md5')] as const;
    let size = 0;
    const source = typeof data === 'string' || data instanceof Uint8Array ? Readable.from([Buffer.from(data)]) : Readable.from(data);
    const max = options.maxBytes;
    async function* counted(src: AsyncIterable<Uint8Array>) {
      for await (const chunk of src) {
        size += chunk.length;
        if (max !== undefined && size > max) throw new TooLargeError(options.tooLargeMessage);
        for (const h of hashes) h.update(chunk);
        yield chunk;
      }
    }
    try {
      await pipeline(source, counted, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const [sha256, sha1, md5] = hashes.map((h) => h.digest('hex'));
    return { size, sha256: sha256!, sha1: sha1!, md5: md5! };
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
