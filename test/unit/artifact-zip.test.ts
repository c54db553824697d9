import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import yazl from 'yazl';
import { FsBlobStore } from '@forgelet/core';
import { openZipEntry, readZipIndex, ZipRejectedError, type ZipEntryInfo } from '../../packages/core/src/domains/artifacts/zip.js';

/** A zip built with yazl from [path, content, options] triples. */
async function zipOf(files: [string, string | Buffer, Partial<yazl.Options>?][]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [path, content, opts] of files) {
    if (path.endsWith('/')) zip.addEmptyDirectory(path, opts as yazl.DirectoryOptions);
    else zip.addBuffer(Buffer.from(content), path, opts);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A one-entry stored zip with an arbitrary name (yazl refuses unsafe names, attackers do not). */
function rawZip(name: string, content: string): Buffer {
  const data = Buffer.from(content);
  const nameBuf = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBuf.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x031e, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBuf.length, 28);
  central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  central.writeUInt32LE(0, 42);
  const cdOffset = local.length + nameBuf.length + data.length;
  const cdSize = central.length + nameBuf.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, nameBuf, data, central, nameBuf, end]);
}

describe('artifact zip index and random-access reads', () => {
  let dir: string;
  let blobs: FsBlobStore;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'forgelet-zip-'));
    blobs = new FsBlobStore(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function store(key: string, buf: Buffer) {
    await blobs.put(key, buf);
    return buf.length;
  }
  async function index(key: string, size: number): Promise<ZipEntryInfo[]> {
    const out: ZipEntryInfo[] = [];
    for await (const e of readZipIndex(blobs, key, size)) out.push(e);
    return out;
  }
  async function text(stream: NodeJS.ReadableStream): Promise<string> {
    let s = '';
    for await (const c of stream) s += c.toString();
    return s;
  }

  it('indexes files and directories with sizes and modes, and streams one file by its offset', async () => {
    const big = 'line of text\n'.repeat(5000);
    const size = await store('ok.zip', await zipOf([
      ['dist/', ''],
      ['dist/app.js', 'console.log(1)\n'],
      ['dist/run.sh', '#!/bin/sh\n', { mode: 0o100755 }],
      ['report/big.txt', big],
      ['stored.txt', 'not compressed', { compress: false }],
    ]));
    const entries = await index('ok.zip', size);
    assert.deepEqual(entries.map((e) => [e.path, e.type, e.size, e.mode]), [
      ['dist/', 'directory', 0, '040775'], // yazl's default modes: 0o40775, 0o100664
      ['dist/app.js', 'file', 15, '100664'],
      ['dist/run.sh', 'file', 10, '100755'],
      ['report/big.txt', 'file', big.length, '100664'],
      ['stored.txt', 'file', 14, '100664'],
    ]);
    const row = (e: ZipEntryInfo) => ({ local_header_offset: e.localHeaderOffset, compressed_size: e.compressedSize, compression_method: e.compressionMethod, size: e.size });
    assert.equal(await text(await openZipEntry(blobs, 'ok.zip', row(entries[3]!))), big);
    assert.ok(entries[3]!.compressedSize < big.length / 10, 'the big file is deflated');
    assert.equal(await text(await openZipEntry(blobs, 'ok.zip', row(entries[4]!))), 'not compressed');
    assert.equal(await text(await openZipEntry(blobs, 'ok.zip', row(entries[1]!))), 'console.log(1)\n');
  });

  it('refuses traversal, absolute paths, symlinks, corrupt and truncated archives', async () => {
    const cases: [string, Buffer, RegExp][] = [
      ['dotdot.zip', rawZip('../evil.txt', 'x'), /invalid|outside/],
      ['nested-dotdot.zip', rawZip('a/../../evil.txt', 'x'), /invalid|outside/],
      ['absolute.zip', rawZip('/etc/passwd', 'x'), /invalid|absolute/],
      ['symlink.zip', await zipOf([['link', '/etc/passwd', { mode: 0o120777 }]]), /symbolic links/],
      ['garbage.zip', Buffer.from('this is not a zip file at all, just text'), /invalid zip archive/],
    ];
    const good = await zipOf([['a.txt', 'hello '.repeat(1000)], ['b.txt', 'world']]);
    cases.push(['truncated.zip', good.subarray(0, good.length - 30), /invalid zip archive/]);
    for (const [key, buf, message] of cases) {
      const size = await store(key, buf);
      await assert.rejects(index(key, size), (err: Error) => err instanceof ZipRejectedError && message.test(err.message), key);
    }
    const size = await store('raw-ok.zip', rawZip('fine/name.txt', 'content'));
    const [entry] = await index('raw-ok.zip', size);
    assert.equal(entry!.path, 'fine/name.txt');
  });
});
