/**
 * A multipart/form-data body built as a stream: files are read from their path, stream or
 * bytes part by part, never gathered in memory. Its length is known (and sent) when every
 * part's size is (bytes, or a path: `fs.stat`).
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';

/** A file's content: a local path (streamed, and re-opened for a retry), bytes, or a stream (sent once). */
export type UploadSource = { path: string } | Uint8Array | Readable | AsyncIterable<Uint8Array>;

export interface MultipartFile {
  /** The form field (GitLab's uploads use `file`, NuGet's push `package`). */
  field?: string;
  /** The file name sent in the part's Content-Disposition (default: the path's base name, else `file`). */
  filename?: string;
  content: UploadSource;
  /** Default `application/octet-stream`. */
  contentType?: string;
  /**
   * Called as the file's bytes are handed to the connection: bytes so far and the file's size
   * (null for a stream). A retry sends the file again, so `sent` starts over.
   */
  onProgress?: (sent: number, total: number | null) => void;
}

export interface MultipartBody {
  /** Plain fields, sent before the files. */
  fields?: Record<string, string | number | boolean | null | undefined>;
  files: MultipartFile[];
}

export function isMultipartBody(body: unknown): body is MultipartBody {
  return typeof body === 'object' && body !== null && Array.isArray((body as MultipartBody).files);
}

/** Whether every file can be read again (a retry re-sends the body). */
export function isReplayable(body: MultipartBody): boolean {
  return body.files.every((f) => f.content instanceof Uint8Array || isPathSource(f.content));
}

function isPathSource(content: UploadSource): content is { path: string } {
  return typeof content === 'object' && content !== null && !(content instanceof Uint8Array) && typeof (content as { path?: unknown }).path === 'string' && !(content instanceof Readable);
}

const quote = (s: string) => s.replace(/[\r\n"\\]/g, (c) => (c === '"' ? '%22' : c === '\\' ? '\\\\' : ' '));

export interface EncodedMultipart {
  contentType: string;
  /** Bytes in all; null when a part is a stream of unknown length. */
  length: number | null;
  body: AsyncIterable<Uint8Array>;
}

/** Encodes a body; call once per attempt (paths are re-opened, bytes re-sent). */
export async function encodeMultipart(input: MultipartBody): Promise<EncodedMultipart> {
  const boundary = `----forgelet${randomBytes(12).toString('hex')}`;
  const heads: Buffer[] = [];
  const sizes: (number | null)[] = [];
  for (const [name, value] of Object.entries(input.fields ?? {})) {
    if (value === undefined || value === null) continue;
    heads.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${String(value)}\r\n`));
  }
  const fieldBytes = Buffer.concat(heads);
  const fileHeads: Buffer[] = [];
  for (const file of input.files) {
    const filename = file.filename ?? (isPathSource(file.content) ? basename(file.content.path) : 'file');
    fileHeads.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.field ?? 'file')}"; filename="${quote(filename)}"\r\n` +
          `Content-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    if (file.content instanceof Uint8Array) sizes.push(file.content.byteLength);
    else if (isPathSource(file.content)) sizes.push((await stat(file.content.path)).size);
    else sizes.push(null);
  }
  const tail = Buffer.from(`--${boundary}--\r\n`);
  const known = sizes.every((s) => s !== null);
  const length = known
    ? fieldBytes.length + fileHeads.reduce((n, h) => n + h.length + 2, 0) + (sizes as number[]).reduce((a, b) => a + b, 0) + tail.length
    : null;
  async function* body(): AsyncGenerator<Uint8Array> {
    if (fieldBytes.length) yield fieldBytes;
    for (let i = 0; i < input.files.length; i++) {
      yield fileHeads[i]!;
      const { content, onProgress } = input.files[i]!;
      if (content instanceof Uint8Array) {
        yield content;
        onProgress?.(content.byteLength, content.byteLength);
      } else {
        const source: AsyncIterable<Uint8Array> = isPathSource(content) ? createReadStream(content.path) : content;
        let sent = 0;
        for await (const chunk of source) {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          yield bytes;
          sent += bytes.byteLength;
          onProgress?.(sent, sizes[i] ?? null);
        }
      }
      yield Buffer.from('\r\n');
    }
    yield tail;
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, length, body: body() };
}
