/**
 * A streaming, lenient multipart/form-data parser. Real clients send bodies stricter
 * parsers reject: NuGet 2.8.7 ends the file with `\n--boundary--` (LF, no final CRLF),
 * NuGet 5.8 quotes the boundary and leaves `name=package` unquoted and streams chunked.
 * File parts are streamed into the blob store as they arrive; nothing is buffered whole.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { BadRequestError, TooLargeError, type BlobStore, type UploadedFile } from '@forgelet/core';

export function boundaryOf(contentType: string): string | null {
  const m = contentType.match(/boundary=(?:"([^"]+)"|([^;\s]+))/i);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

interface PartHeaders {
  name: string;
  filename: string | null;
  contentType: string;
}

function parsePartHeaders(text: string): PartHeaders | null {
  let name: string | null = null;
  let filename: string | null = null;
  let contentType = 'application/octet-stream';
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'content-disposition') {
      const nm = value.match(/(?:^|;)\s*name=(?:"([^"]*)"|([^;]*))/i);
      if (nm) name = (nm[1] ?? nm[2] ?? '').trim();
      const fn = value.match(/(?:^|;)\s*filename=(?:"([^"]*)"|([^;]*))/i);
      if (fn) filename = (fn[1] ?? fn[2] ?? '').trim();
    } else if (key === 'content-type') contentType = value;
  }
  return name === null ? null : { name, filename, contentType };
}

/**
 * Where the tail of `buf` that could be the start of `delimiter` (`\n--boundary`) begins,
 * a CR before it included (it belongs to the delimiter's line break, not to the data);
 * `buf.length` when no tail could.
 */
export function partialDelimiterAt(buf: Buffer, delimiter: Buffer): number {
  let from = buf.length;
  for (let i = Math.max(0, buf.length - delimiter.length + 1); i < buf.length; i++) {
    if (buf[i] === delimiter[0] && buf.compare(delimiter, 0, buf.length - i, i) === 0) {
      from = i;
      break;
    }
  }
  return from > 0 && buf[from - 1] === 0x0d ? from - 1 : from;
}

export interface MultipartResult {
  fields: Record<string, unknown>;
  uploads: string[];
}

const FIELD_LIMIT = 1024 * 1024;
/**
 * What comes before the first boundary or after the last is ignored, but read: a body that is
 * only preamble (a gzip bomb of zeros) would be inflated and scanned to its end.
 */
const PREAMBLE_LIMIT = 1024 * 1024;
const EPILOGUE_LIMIT = 64 * 1024;

export async function parseMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  blobs: BlobStore,
  options: { maxFileBytes: number; tooLarge?: () => Error; maxFieldBytes?: number },
): Promise<MultipartResult> {
  const delimiter = Buffer.from(`--${boundary}`);
  const nlDelimiter = Buffer.from(`\n--${boundary}`);
  const fields: Record<string, unknown> = {};
  const uploads: string[] = [];
  let buf: Buffer = Buffer.alloc(0);
  type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';
  let state = 'preamble' as State;
  let part: PartHeaders | null = null;
  let fieldChunks: Buffer[] = [];
  let fieldSize = 0;
  let fieldsTotal = 0;
  let preambleBytes = 0;
  let epilogueBytes = 0;
  let file: { pass: PassThrough; done: Promise<UploadedFile>; key: string } | null = null;

  const startFile = (headers: PartHeaders) => {
    const key = `uploads/${randomBytes(12).toString('hex')}`;
    uploads.push(key);
    const pass = new PassThrough();
    const done = blobs.put(key, pass, { maxBytes: options.maxFileBytes }).then(
      (stored) => ({ kind: 'file' as const, blobKey: key, filename: headers.filename ?? '', contentType: headers.contentType, size: stored.size, sha256: stored.sha256, sha1: stored.sha1, md5: stored.md5 }),
      (err: unknown) => {
        throw err instanceof TooLargeError && options.tooLarge ? options.tooLarge() : err;
      },
    );
    done.catch(() => {});
    file = { pass, done, key };
  };

  const emit = async (data: Buffer) => {
    if (data.length === 0) return;
    if (file) {
      const f = file as { pass: PassThrough; done: Promise<UploadedFile> };
      if (!f.pass.write(data)) {
        try {
          await Promise.race([once(f.pass, 'drain'), f.done]);
        } catch (err) {
          // A store that fails (an upload over its limit) destroys the stream it reads; waiting
          // for 'drain' then fails with an AbortError: the store's own error is the reason.
          await f.done;
          throw err;
        }
      }
    } else {
      fieldSize += data.length;
      fieldsTotal += data.length;
      if (fieldSize > FIELD_LIMIT || fieldsTotal > (options.maxFieldBytes ?? Infinity)) throw new TooLargeError();
      fieldChunks.push(data);
    }
  };

  const finishPart = async () => {
    if (!part) return;
    if (part.name === '__proto__') part = { ...part, name: '' };
    if (file) {
      const f = file as { pass: PassThrough; done: Promise<UploadedFile> };
      f.pass.end();
      fields[part.name] = await f.done;
      file = null;
    } else {
      fields[part.name] = Buffer.concat(fieldChunks).toString('utf8');
    }
    fieldChunks = [];
    fieldSize = 0;
    part = null;
  };

  const step = async (final: boolean): Promise<boolean> => {
    switch (state) {
      case 'preamble': {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          if (final) return false;
          if (buf.length > delimiter.length) buf = buf.subarray(buf.length - delimiter.length);
          return false;
        }
        buf = buf.subarray(at + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (buf.length < 2 && !final) return false;
        if (buf.subarray(0, 2).toString() === '--' || (final && buf.length < 2)) {
          state = 'done';
          return false;
        }
        const nl = buf.indexOf(0x0a);
        if (nl < 0) return false;
        buf = buf.subarray(nl + 1);
        state = 'headers';
        return true;
      }
      case 'headers': {
        let end = buf.indexOf('\r\n\r\n');
        let skip = 4;
        const lf = buf.indexOf('\n\n');
        if (lf >= 0 && (end < 0 || lf < end)) {
          end = lf;
          skip = 2;
        }
        if (end < 0) {
          if (buf.length > 16 * 1024) throw new BadRequestError('Malformed multipart body');
          return false;
        }
        part = parsePartHeaders(buf.subarray(0, end).toString('utf8'));
        if (!part) throw new BadRequestError('Malformed multipart body');
        buf = buf.subarray(end + skip);
        if (part.filename !== null) startFile(part);
        state = 'body';
        return true;
      }
      case 'body': {
        const at = buf.indexOf(nlDelimiter);
        if (at < 0) {
          if (final) throw new BadRequestError('Malformed multipart body');
          // Keep only a tail that could begin a delimiter split across chunks: in file data
          // that is almost never, so the next chunk is scanned where it lies instead of being
          // copied behind the tail.
          const keep = partialDelimiterAt(buf, nlDelimiter);
          if (keep > 0) {
            const out = buf.subarray(0, keep);
            buf = buf.subarray(keep);
            await emit(out);
          }
          return false;
        }
        const dataEnd = at > 0 && buf[at - 1] === 0x0d ? at - 1 : at;
        await emit(buf.subarray(0, dataEnd));
        buf = buf.subarray(at + nlDelimiter.length);
        await finishPart();
        state = 'after-delimiter';
        return true;
      }
      default:
        return false;
    }
  };

  try {
    for await (const chunk of body) {
      if (state === 'done') {
        if ((epilogueBytes += chunk.length) > EPILOGUE_LIMIT) break;
        continue;
      }
      if (state === 'preamble' && (preambleBytes += chunk.length) > PREAMBLE_LIMIT) throw new BadRequestError('Malformed multipart body');
      // Chunks are not copied (the parts passed on are views of them): each is a fresh buffer
      // that nothing writes to again. Only a kept tail is joined with the next chunk.
      const view = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      buf = buf.length ? Buffer.concat([buf, view]) : view;
      while (await step(false));
    }
    while (state !== 'done' && (await step(true)));
    if (state !== 'done') throw new BadRequestError('Malformed multipart body');
  } catch (err) {
    const pending = file as { pass: PassThrough } | null;
    if (pending) pending.pass.destroy();
    await Promise.all(uploads.map((k) => blobs.delete(k)));
    throw err;
  }
  return { fields, uploads };
}
