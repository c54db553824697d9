/**
 * `--blob-url` (FORGELET_BLOB_URL): where a server keeps its blobs.
 * - `file:///abs/dir`: a directory (default: `<data dir>/blobs`);
 * - `postgres`: tables of the Forgelet database (PostgreSQL only), for processes on machines
 *   that share the database and no disk;
 * - `s3://bucket[/prefix]?endpoint=…&region=…&force_path_style=true`: an S3-compatible bucket
 *   (GitLab's consolidated object storage: provider AWS, endpoint, path_style). Credentials
 *   from the URL's user info (`s3://KEY:SECRET@bucket`) or the AWS SDK's own chain
 *   (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, ...); never shown.
 */
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BlobStoreConfigError, FsBlobStore, PgBlobStore, type BlobStore, type DatabaseHandle } from '@forgelet/core';
import { S3BlobStore, type S3BlobConfig } from './s3-blobs.js';

export type BlobLocation = { kind: 'file'; dir: string } | { kind: 'postgres' } | ({ kind: 's3' } & S3BlobConfig);

const S3_PARAMS = new Set(['endpoint', 'region', 'force_path_style', 'path_style']);

/** Parses a blob URL; throws BlobStoreConfigError naming what is wrong (and never echoing credentials). */
export function parseBlobUrl(value: string, env: NodeJS.ProcessEnv = process.env): BlobLocation {
  const text = value.trim();
  if (/^postgres(ql)?:?$/i.test(text)) return { kind: 'postgres' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BlobStoreConfigError(`the blob URL must be file:///<absolute dir>, postgres or s3://<bucket>?endpoint=…, got "${redact(text)}"`);
  }
  if (url.protocol === 'file:') {
    const dir = fileURLToPath(url);
    if (!isAbsolute(dir) || url.search) throw new BlobStoreConfigError(`a file: blob URL names an absolute directory (file:///srv/forgelet/blobs), got "${redact(text)}"`);
    return { kind: 'file', dir };
  }
  if (/^postgres(ql)?:$/i.test(url.protocol)) {
    throw new BlobStoreConfigError('--blob-url postgres keeps the blobs in the Forgelet database (--database-url); a separate blob database is not supported');
  }
  if (url.protocol !== 's3:') throw new BlobStoreConfigError(`the blob URL must be file:///<absolute dir>, postgres or s3://<bucket>?endpoint=…, got a ${url.protocol} URL`);
  const bucket = url.hostname;
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new BlobStoreConfigError(`s3 blob URL: "${bucket}" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`);
  for (const name of url.searchParams.keys()) {
    if (!S3_PARAMS.has(name)) throw new BlobStoreConfigError(`s3 blob URL: unknown parameter "${name}" (known: endpoint, region, force_path_style)`);
  }
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+/i.test(endpoint)) throw new BlobStoreConfigError(`s3 blob URL: endpoint must be an http:// or https:// URL, got "${redact(endpoint)}"`);
  const style = url.searchParams.get('force_path_style') ?? url.searchParams.get('path_style');
  if (style !== null && !['true', 'false', '1', '0'].includes(style)) throw new BlobStoreConfigError(`s3 blob URL: force_path_style must be true or false, got "${style}"`);
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  if (Boolean(user) !== Boolean(password)) throw new BlobStoreConfigError('s3 blob URL: credentials in the URL need both the access key id and the secret (s3://KEY:SECRET@bucket)');
  const path = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return {
    kind: 's3',
    bucket,
    prefix: path ? `${path}/` : '',
    endpoint,
    region: url.searchParams.get('region') || env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    forcePathStyle: style === 'true' || style === '1',
    credentials: user ? { accessKeyId: user, secretAccessKey: password } : undefined,
  };
}

/** The store for a location; the default is the data directory's (or a temporary) folder. */
export function blobStoreFor(location: BlobLocation | null, defaultDir: string): BlobStore | ((database: DatabaseHandle) => BlobStore) {
  if (!location) return new FsBlobStore(defaultDir);
  switch (location.kind) {
    case 'file':
      return new FsBlobStore(location.dir);
    case 'postgres':
      return (database) => new PgBlobStore(database.db, database.dialect);
    case 's3':
      // The AWS SDK is required by this constructor, only when a bucket is configured.
      return new S3BlobStore(location);
  }
}

/** Credentials in a URL's user info replaced by `***`. */
export function redact(text: string): string {
  return text.replace(/^([a-z0-9+.-]+:\/\/)[^@/?#]*@/i, '$1***@');
}
