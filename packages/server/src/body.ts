/** Request bodies: gunzip, size limits, JSON, form and multipart into one params object. */
import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import { BadRequestError, TooLargeError, type BlobStore } from '@forgelet/core';
import { boundaryOf, parseMultipart } from './multipart.js';
import { parseQuery } from './query.js';

/**
 * The request body as a stream, decompressed when `Content-Encoding: gzip` or `deflate` (zlib).
 * A reader may stop early (a body over its limit): that must not destroy the request, which
 * would reset the connection before the answer is written (what is left unread is the
 * server's business, see connection.ts).
 */
export function bodyStream(req: IncomingMessage): AsyncIterable<Uint8Array> {
  const encoding = (req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip' || encoding === 'deflate') {
    const gunzip = encoding === 'deflate' ? createInflate() : createGunzip();
    req.pipe(gunzip);
    req.on('error', (e) => gunzip.destroy(e));
    return (async function* () {
      try {
        for await (const c of gunzip) yield c as Uint8Array;
      } catch {
        throw new BadRequestError('Failed to decompress request body');
      }
    })();
  }
  return req.iterator({ destroyOnReturn: false });
}

export async function readLimited(body: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) throw new TooLargeError();
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

export interface ParsedBody {
  params: Record<string, unknown>;
  uploads: string[];
}

export async function parseBody(
  req: IncomingMessage,
  options: { bodyLimit: number; uploadLimit: number; uploadTooLarge?: string; blobs: BlobStore },
): Promise<ParsedBody> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const hasBody = req.headers['transfer-encoding'] !== undefined || (Number.isFinite(declared) && declared > 0);
  if (!hasBody) return { params: {}, uploads: [] };
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const body = bodyStream(req);
  if (type.startsWith('multipart/form-data')) {
    const boundary = boundaryOf(req.headers['content-type'] ?? '');
    if (!boundary) throw new BadRequestError('Malformed multipart body');
    const { fields, uploads } = await parseMultipart(body, boundary, options.blobs, {
      maxFileBytes: options.uploadLimit,
      maxFieldBytes: options.bodyLimit,
      tooLarge: options.uploadTooLarge === undefined ? undefined : () => new BadRequestError(options.uploadTooLarge!),
    });
    return { params: fields, uploads };
  }
  if (Number.isFinite(declared) && declared > options.bodyLimit) throw new TooLargeError();
  const raw = await readLimited(body, options.bodyLimit);
  const text = raw.toString('utf8');
  if (type.startsWith('application/x-www-form-urlencoded')) return { params: parseQuery(text), uploads: [] };
  const trimmed = text.trim();
  if (trimmed === '') return { params: {}, uploads: [] };
  const looksJson = type.includes('json') || trimmed.startsWith('{') || trimmed.startsWith('[');
  if (!looksJson) return { params: {}, uploads: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new BadRequestError('Malformed JSON body');
  }
  if (parsed === null) return { params: {}, uploads: [] };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequestError('JSON body must be an object');
  return { params: parsed as Record<string, unknown>, uploads: [] };
}
