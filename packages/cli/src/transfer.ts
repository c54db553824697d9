/**
 * The two transfers the client has no streaming method for, on undici: a streamed GET of any
 * API path (artifacts by ref), and a streamed multipart PUT (a package pushed to the NuGet
 * feed). Neither holds the bytes in memory; both report progress through a callback.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { ApiError, type ApiErrorBody } from '@forgelet/client';
import type { Remote } from './remote.js';

export interface DownloadStream {
  body: Readable;
  size: number | null;
  filename: string | null;
  contentType: string | null;
}

function filenameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star) return decodeURIComponent(star[1]!);
  const plain = /filename="((?:[^"\\]|\\.)*)"/.exec(disposition);
  return plain ? plain[1]!.replace(/\\(.)/g, '$1') : null;
}

const header = (headers: Record<string, string | string[] | undefined>, name: string): string | null => {
  const v = headers[name];
  return v === undefined ? null : Array.isArray(v) ? (v[0] ?? null) : v;
};

async function failure(status: number, headers: Record<string, string | string[] | undefined>, body: { text(): Promise<string> }, method: string, url: string): Promise<ApiError> {
  const text = await body.text();
  let parsed: ApiErrorBody = text;
  if ((header(headers, 'content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text) as ApiErrorBody;
    } catch {
      // the text is the error
    }
  }
  return new ApiError(status, parsed, { method, url });
}

/** GET `/api/v4/<path>` streamed (up to 5 redirects followed); ApiError on 4xx/5xx. */
export async function openDownload(remote: Remote, path: string, query: Record<string, unknown> = {}): Promise<DownloadStream> {
  let url = remote.api.requester.url(path, query);
  const origin = new URL(url).origin;
  for (let hops = 0; ; hops++) {
    // The token goes to the server only, never to a redirect elsewhere (a CDN link is signed).
    const headers: Record<string, string> = new URL(url).origin === origin ? { 'PRIVATE-TOKEN': remote.token, Accept: '*/*' } : { Accept: '*/*' };
    const res = await request(url, { method: 'GET', headers });
    const location = header(res.headers, 'location');
    if (res.statusCode >= 300 && res.statusCode < 400 && location && hops < 5) {
      await res.body.dump();
      url = new URL(location, url).toString();
      continue;
    }
    if (res.statusCode >= 400) throw await failure(res.statusCode, res.headers, res.body, 'GET', url);
    const length = header(res.headers, 'content-length');
    return {
      body: res.body,
      size: length === null ? null : Number(length),
      filename: filenameOf(header(res.headers, 'content-disposition')),
      contentType: header(res.headers, 'content-type'),
    };
  }
}

/**
 * PUT `/api/v4/<path>` as multipart/form-data with one file part (`field`), streamed from
 * disk with a known Content-Length; `onProgress` gets the file bytes sent so far. Resolves
 * with the parsed JSON answer (or its text).
 */
export async function uploadMultipart(
  remote: Remote,
  path: string,
  file: string,
  options: { field: string; fields?: Record<string, string>; onProgress?: (sent: number, total: number) => void },
): Promise<{ status: number; body: unknown }> {
  const { size } = await stat(file);
  const boundary = `----forgelet${randomBytes(12).toString('hex')}`;
  const name = basename(file).replace(/["\r\n]/g, '_');
  const head = Buffer.from(
    Object.entries(options.fields ?? {})
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="${options.field}"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let sent = 0;
  async function* parts(): AsyncGenerator<Buffer> {
    yield head;
    for await (const chunk of createReadStream(file, { highWaterMark: 256 * 1024 })) {
      sent += (chunk as Buffer).length;
      options.onProgress?.(sent, size);
      yield chunk as Buffer;
    }
    yield tail;
  }
  const url = remote.api.requester.url(path);
  const res = await request(url, {
    method: 'PUT',
    headers: {
      'PRIVATE-TOKEN': remote.token,
      Accept: 'application/json',
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + size + tail.length),
    },
    body: Readable.from(parts()),
  });
  if (res.statusCode >= 400) throw await failure(res.statusCode, res.headers, res.body, 'PUT', url);
  const text = await res.body.text();
  let body: unknown = text;
  if ((header(res.headers, 'content-type') ?? '').includes('json') && text) {
    try {
      body = JSON.parse(text);
    } catch {
      // keep the text
    }
  }
  return { status: res.statusCode, body };
}
