/**
 * A local S3-compatible server (npm s3rver) for the S3 blob store: one bucket in a temporary
 * directory, on a free port. s3rver checks request signatures against the access key
 * `S3RVER` and the secret `S3RVER`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import S3rver from 's3rver';

export const S3RVER_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** Where the objects are on disk (`<dir>/<bucket>/<key>._S3rver_object`). */
  dir: string;
  /** `s3://<bucket>/<prefix>?endpoint=…&region=us-east-1&force_path_style=true`. */
  blobUrl(prefix?: string): string;
  /** Every request s3rver received (method and URL), in order. */
  requests: { method: string; url: string }[];
  /**
   * Multipart uploads begun and neither completed nor aborted. s3rver does not implement
   * AbortMultipartUpload (it answers 405), so an abort is counted when it is asked for.
   */
  openMultipartUploads(): number;
  stop(): Promise<void>;
}

export async function startLocalS3(bucket = 'forgelet-test'): Promise<LocalS3> {
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
  const address = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const requests: { method: string; url: string }[] = [];
  (server as unknown as { httpServer: Server }).httpServer.prependListener('request', (req) => requests.push({ method: req.method!, url: req.url! }));
  return {
    requests,
    openMultipartUploads() {
      const begun = requests.filter((r) => r.method === 'POST' && /[?&]uploads(=|&|$)/.test(r.url)).length;
      const ended = requests.filter((r) => (r.method === 'POST' || r.method === 'DELETE') && /[?&]uploadId=/.test(r.url)).length;
      return begun - ended;
    },
    endpoint,
    bucket,
    dir,
    blobUrl: (prefix = '') => `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1&force_path_style=true`,
    async stop() {
      (server as unknown as { httpServer: Server }).httpServer.closeAllConnections();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
