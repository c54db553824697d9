/**
 * Blobs in an S3-compatible object store (AWS S3, MinIO, Ceph, s3rver), through the AWS SDK v3.
 *
 * The SDK (a few MB of JavaScript) is loaded with require when the first store is made, never
 * at startup otherwise: `serve` runs from a code-cached bundle that must hold no import().
 *
 * - put: a multipart upload (lib-storage) fed as the bytes arrive, hashed on the way
 *   (`measure`); at most `queueSize` parts of `partSize` are held. S3 publishes an object whole
 *   when its upload completes, so readers never see a part; a write over its limit (or failing
 *   otherwise) aborts the multipart upload and leaves nothing behind.
 * - read: GetObject with a `Range` header, streamed.
 * - move: CopyObject then DeleteObject. CopyObject takes objects up to 5 GiB; a larger one is
 *   streamed through this process (GetObject into a new multipart upload), since UploadPartCopy
 *   is missing from several S3-compatible servers.
 */
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { measure, type BlobData, type BlobStore, type PutOptions, type StoredBlob } from '@forgelet/core';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type * as LibStorage from '@aws-sdk/lib-storage';

export interface S3BlobConfig {
  bucket: string;
  /** Prepended to every key (`some/prefix/`), from the URL's path. */
  prefix: string;
  /** An S3-compatible server (`http://127.0.0.1:9000`); AWS when omitted. */
  endpoint?: string;
  region: string;
  /** `http://endpoint/bucket/key` instead of `http://bucket.endpoint/key` (MinIO, s3rver). */
  forcePathStyle: boolean;
  /** From the URL; otherwise the SDK's chain (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Multipart part size (S3's minimum, 5 MiB, by default) and parts in flight (2). */
  partBytes?: number;
  queueSize?: number;
  /** Largest object moved with CopyObject (S3's limit, 5 GiB); larger ones stream through. */
  copyObjectMaxBytes?: number;
}

const MIB = 1024 * 1024;

let sdk: { s3: typeof S3Sdk; storage: typeof LibStorage } | null = null;
function loadSdk() {
  const require = createRequire(import.meta.url);
  sdk ??= { s3: require('@aws-sdk/client-s3') as typeof S3Sdk, storage: require('@aws-sdk/lib-storage') as typeof LibStorage };
  return sdk;
}

export class S3BlobStore implements BlobStore {
  readonly root = null;
  readonly inDatabase = false;
  readonly description: string;
  private readonly client: S3Sdk.S3Client;
  private readonly sdk: ReturnType<typeof loadSdk>;

  constructor(private readonly config: S3BlobConfig) {
    this.sdk = loadSdk();
    this.description = describeS3(config);
    this.client = new this.sdk.s3.S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // Checksums only where S3 requires them: the newer default (CRC32 trailers in an
      // aws-chunked body) is refused by several S3-compatible servers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private objectKey(key: string): string {
    return this.config.prefix + key;
  }

  async put(key: string, data: BlobData, options: PutOptions = {}): Promise<StoredBlob> {
    const measured = measure(data, options);
    // The reason a write stopped (TooLargeError), whatever the SDK makes of the broken stream.
    let failure: unknown = null;
    async function* body() {
      try {
        yield* measured.chunks;
      } catch (err) {
        failure = err;
        throw err;
      }
    }
    const upload = new this.sdk.storage.Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: this.objectKey(key), Body: Readable.from(body(), { objectMode: false }) },
      partSize: this.config.partBytes ?? 5 * MIB,
      queueSize: this.config.queueSize ?? 2,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (err) {
      await upload.abort().catch(() => {});
      throw failure ?? err;
    }
    return measured.stored();
  }

  read(key: string, range?: { start: number; end?: number }): Readable {
    const { client, config, sdk: { s3 } } = this;
    const objectKey = this.objectKey(key);
    async function* bytes(): AsyncGenerator<Buffer> {
      if (range && range.end !== undefined && range.end < range.start) return;
      let out: S3Sdk.GetObjectCommandOutput;
      try {
        out = await client.send(new s3.GetObjectCommand({ Bucket: config.bucket, Key: objectKey, Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }));
      } catch (err) {
        if (errorName(err) === 'InvalidRange') return; // a range past the end: nothing, as a file read
        throw errorName(err) === 'NoSuchKey' ? Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' }) : err;
      }
      // Exactly the bytes asked for, also from a server that sends more (s3rver answers
      // `bytes=0-0` with the whole object).
      let left = range ? (range.end ?? Infinity) - range.start + 1 : Infinity;
      for await (const chunk of out.Body as Readable) {
        const piece = chunk.length > left ? (chunk as Buffer).subarray(0, left) : (chunk as Buffer);
        left -= piece.length;
        yield piece;
        if (left <= 0) break;
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new this.sdk.s3.HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (errorName(err) === 'NotFound' || errorName(err) === 'NoSuchKey') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new this.sdk.s3.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
  }

  async move(from: string, to: string): Promise<void> {
    if (from === to) return;
    const size = await this.size(from);
    if (size === null) throw Object.assign(new Error(`no blob ${from}`), { code: 'ENOENT' });
    if (size <= (this.config.copyObjectMaxBytes ?? 5 * 1024 * MIB)) {
      const source = `${this.config.bucket}/${this.objectKey(from)}`.split('/').map(encodeURIComponent).join('/');
      await this.client.send(new this.sdk.s3.CopyObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(to), CopySource: source }));
    } else {
      await this.put(to, this.read(from));
    }
    await this.delete(from);
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

/** The bucket, prefix and endpoint, as an s3:// URL without credentials. */
export function describeS3(config: Pick<S3BlobConfig, 'bucket' | 'prefix' | 'endpoint' | 'region'>): string {
  const query = new URLSearchParams();
  if (config.endpoint) {
    const endpoint = new URL(config.endpoint);
    endpoint.username = '';
    endpoint.password = '';
    query.set('endpoint', endpoint.origin);
  }
  query.set('region', config.region);
  return `s3://${config.bucket}/${config.prefix}?${query.toString().replace(/%3A/g, ':').replace(/%2F/g, '/')}`;
}

function errorName(err: unknown): string {
  return (err as { name?: string } | null)?.name ?? '';
}
