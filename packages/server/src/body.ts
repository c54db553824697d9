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
  return { [Symbol.asyncIterator]: () => new RequestChunks(req) };
}

/**
 * The chunks of a request as its events give them: what Readable's own async iterator does
 * (the next chunk or the end, the stream paused while no reader waits, an error or a cut-off
 * body thrown, the stream left undestroyed when the reader stops early), without its async
 * generator and end-of-stream helper, which cost more than a small JSON body's parse (a
 * twentieth of an issue creation's CPU time).
 */
class RequestChunks implements AsyncIterator<Uint8Array> {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private waiting: { resolve(r: IteratorResult<Uint8Array>): void; reject(err: Error): void } | null = null;

  constructor(private readonly req: IncomingMessage) {
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onError);
    req.on('close', this.onClose);
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    const chunk = this.queue.shift();
    if (chunk) {
      if (!this.queue.length && !this.ended) this.req.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The reader stopped early: the rest stays unread (connection.ts decides what becomes of it). */
  return(): Promise<IteratorResult<Uint8Array>> {
    this.detach();
    if (!this.ended) this.req.pause();
    return Promise.resolve({ value: undefined, done: true });
  }

  private readonly onData = (chunk: Buffer) => {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = null;
      waiting.resolve({ value: chunk, done: false });
    } else {
      this.queue.push(chunk);
      this.req.pause();
    }
  };

  private readonly onEnd = () => {
    this.ended = true;
    this.detach();
    this.settle();
  };

  private readonly onError = (err: Error) => this.fail(err);

  /** Closed before its end: the client went away mid-body. */
  private readonly onClose = () => {
    if (!this.ended) this.fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
  };

  private fail(err: Error): void {
    this.failure ??= err;
    this.detach();
    this.settle();
  }

  /** Answers a waiting reader once the stream has ended or failed (queued chunks were handed out first: a reader waits only on an empty queue). */
  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = null;
    if (this.failure) waiting.reject(this.failure);
    else waiting.resolve({ value: undefined, done: true });
  }

  private detach(): void {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
    this.req.off('close', this.onClose);
  }
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
