import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { FsBlobStore, type BlobStore, type UploadedFile } from '@forgelet/core';
import { parseMultipart } from '../../packages/server/src/multipart.js';

const dir = mkdtempSync(join(tmpdir(), 'forgelet-mp-'));
const blobs = new FsBlobStore(dir);

/** Splits a body into small chunks so boundaries straddle chunk edges. */
function chunked(body: Buffer, size = 7): AsyncIterable<Uint8Array> {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += size) parts.push(body.subarray(i, i + size));
  return Readable.from(parts);
}

describe('lenient streaming multipart', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('parses a well-formed body with a quoted boundary and unquoted name (NuGet 5.8)', async () => {
    const b = 'b0c8-guid';
    const body = Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name=package; filename=package.nupkg; filename*=utf-8''package.nupkg\r\n\r\n` +
        `PK\x03\x04payload\r\n--${b}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhi there\r\n--${b}--\r\n`,
      'latin1',
    );
    const { fields, uploads } = await parseMultipart(chunked(body), b, blobs, { maxFileBytes: 1024 });
    const file = fields.package as UploadedFile;
    assert.equal(file.kind, 'file');
    assert.equal(file.filename, 'package.nupkg');
    assert.equal(file.size, 11);
    assert.equal(await text(blobs.read(file.blobKey)), 'PK\x03\x04payload');
    assert.equal(fields.note, 'hi there');
    assert.deepEqual(uploads, [file.blobKey]);
  });

  it('accepts NuGet 2.8.7 bodies ending in LF --boundary-- with no final CRLF', async () => {
    const b = '-----------------------8d7c4f';
    const payload = Buffer.alloc(2059, 0x61);
    const body = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="package"; filename="package"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      payload,
      Buffer.from(`\n--${b}--`),
    ]);
    const { fields } = await parseMultipart(chunked(body, 100), b, blobs, { maxFileBytes: 10_000 });
    assert.equal((fields.package as UploadedFile).size, 2059);
  });

  it('refuses files over the limit with 413 and leaves no blob behind', async () => {
    const b = 'x';
    const body = Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n${'z'.repeat(5000)}\r\n--${b}--\r\n`);
    const count = () => (existsSync(join(dir, 'uploads')) ? readdirSync(join(dir, 'uploads')).length : 0);
    const before = count();
    await assert.rejects(parseMultipart(chunked(body, 512), b, blobs, { maxFileBytes: 1000 }), (err: { code?: string }) => err.code === 'too_large');
    assert.equal(count(), before);
  });

  it('a file far over the limit fails with the limit error, not the AbortError of the stream the store destroyed', async () => {
    const b = 'x';
    const body = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="package"; filename="p"\r\n\r\n`),
      Buffer.alloc(8 * 1024 * 1024, 0x61),
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    const count = () => (existsSync(join(dir, 'uploads')) ? readdirSync(join(dir, 'uploads')).length : 0);
    const before = count();
    await assert.rejects(parseMultipart(chunked(body, 64 * 1024), b, blobs, { maxFileBytes: 1024 * 1024 }), (err: { code?: string }) => err.code === 'too_large');
    const tooLarge = () => Object.assign(new Error('File is too large'), { code: 'bad_request' });
    await assert.rejects(parseMultipart(chunked(body, 64 * 1024), b, blobs, { maxFileBytes: 1024 * 1024, tooLarge }), /File is too large/);
    assert.equal(count(), before);
  });

  it('reads a bounded preamble and epilogue, and fields up to maxFieldBytes in all', async () => {
    const b = 'x';
    const part = (name: string, value: string) => `--${b}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    // 8 MiB of zeros and no boundary (a gzip bomb inflates to that): refused after 1 MiB, not scanned to its end
    let read = 0;
    async function* zeros() {
      for (let i = 0; i < 128; i++) {
        read += 64 * 1024;
        yield Buffer.alloc(64 * 1024);
      }
    }
    await assert.rejects(parseMultipart(zeros(), b, blobs, { maxFileBytes: 1000 }), (err: { code?: string }) => err.code === 'bad_request');
    assert.ok(read <= 2 * 1024 * 1024, `read ${read} bytes of preamble`);
    // an endless epilogue after the closing boundary: the fields are parsed, the rest left unread
    let epilogue = 0;
    async function* withEpilogue() {
      yield Buffer.from(`${part('a', '1')}--${b}--\r\n`);
      for (let i = 0; i < 128; i++) {
        epilogue += 64 * 1024;
        yield Buffer.alloc(64 * 1024);
      }
    }
    assert.deepEqual((await parseMultipart(withEpilogue(), b, blobs, { maxFileBytes: 1000 })).fields, { a: '1' });
    assert.ok(epilogue <= 256 * 1024, `read ${epilogue} bytes of epilogue`);
    // many fields, each small, over the total
    const many = Buffer.from(Array.from({ length: 20 }, (_, i) => part(`f${i}`, 'v'.repeat(1000))).join('') + `--${b}--\r\n`);
    await assert.rejects(parseMultipart(chunked(many, 4096), b, blobs, { maxFileBytes: 1000, maxFieldBytes: 10_000 }), (err: { code?: string }) => err.code === 'too_large');
    assert.equal(Object.keys((await parseMultipart(chunked(many, 4096), b, blobs, { maxFileBytes: 1000, maxFieldBytes: 30_000 })).fields).length, 20);
  });

  it('refuses a truncated body', async () => {
    const b = 'x';
    const body = Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="f"\r\n\r\nabc`);
    await assert.rejects(parseMultipart(chunked(body), b, blobs, { maxFileBytes: 1000 }), (err: { code?: string }) => err.code === 'bad_request');
  });

  it('parses file data holding CRs, LFs and the start of the delimiter the same wherever the body is split', async () => {
    const b = 'b0undary';
    const data = Buffer.from(`\r\n--b0und\r\n\n--\r\r\n-\n--b0undar\rx\n\r\n--b0undarX\r`, 'latin1');
    const body = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n`),
      data,
      Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="after"\r\n\r\nyes\r\n--${b}--\r\n`),
    ]);
    for (let at = 1; at < body.length; at++) {
      for (const split of [[at], [at, Math.min(body.length, at + 1)], [at, Math.min(body.length, at + b.length)]]) {
        const edges = [0, ...split, body.length];
        const chunks = edges.slice(1).map((end, i) => body.subarray(edges[i]!, end)).filter((c) => c.length > 0);
        const { fields } = await parseMultipart(Readable.from(chunks), b, blobs, { maxFileBytes: 1024 });
        const file = fields.file as UploadedFile;
        const stored = Buffer.from(await text(blobs.read(file.blobKey)), 'latin1');
        assert.ok(stored.equals(data), `split at ${split.join(', ')}: ${JSON.stringify(stored.toString('latin1'))}`);
        assert.equal(fields.after, 'yes', `split at ${split.join(', ')}`);
        await blobs.delete(file.blobKey);
      }
    }
  });

  it('passes file data on as views of the chunks it arrived in, never copied', async () => {
    // Copies of every chunk (the parser used to make two) were garbage the size of the upload.
    const received: Uint8Array[] = [];
    const recording: BlobStore = {
      root: null,
      inDatabase: false,
      description: 'memory',
      async put(_key, data) {
        let size = 0;
        for await (const c of data as AsyncIterable<Uint8Array>) {
          received.push(c);
          size += c.length;
        }
        return { size, sha256: '', sha1: '', md5: '' };
      },
      read: () => Readable.from([]),
      size: async () => null,
      delete: async () => {},
      move: async () => {},
    };
    const b = 'x';
    const chunks = [Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n`)];
    for (let i = 0; i < 8; i++) chunks.push(Buffer.alloc(64 * 1024, 0x61 + i));
    chunks.push(Buffer.from(`\r\n--${b}--\r\n`));
    const { fields } = await parseMultipart(Readable.from(chunks), b, recording, { maxFileBytes: 1 << 20 });
    assert.equal((fields.file as UploadedFile).size, 8 * 64 * 1024);
    const sources = new Set(chunks.map((c) => c.buffer));
    assert.ok(received.length >= 8);
    for (const c of received) assert.ok(sources.has(c.buffer as ArrayBuffer), `a chunk of ${c.length} bytes was copied`);
  });
});
