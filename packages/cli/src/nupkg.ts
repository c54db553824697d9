/**
 * Reads the `.nuspec` of a local `.nupkg` (a zip) without loading the archive: the central
 * directory from the end of the file, then the one entry, inflated. `packages push` checks
 * the file and names the package with it before uploading.
 */
import { open } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';
import { CliError } from './errors.js';

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_NUSPEC = 1024 * 1024;

export async function readNuspecXml(file: string): Promise<string> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const notZip = () => new CliError(`${file} is not a NuGet package (not a zip archive)`);
    const tailSize = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailSize);
    await fh.read(tail, 0, tailSize, size - tailSize);
    let eocd = -1;
    for (let i = tailSize - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw notZip();
    const count = tail.readUInt16LE(eocd + 10);
    const cdSize = tail.readUInt32LE(eocd + 12);
    const cdOffset = tail.readUInt32LE(eocd + 16);
    if (cdOffset + cdSize > size || cdSize > 64 * 1024 * 1024) throw notZip();
    const cd = Buffer.alloc(cdSize);
    await fh.read(cd, 0, cdSize, cdOffset);
    let found: { method: number; compressed: number; offset: number; path: string } | undefined;
    for (let p = 0, n = 0; n < count && p + 46 <= cd.length; n++) {
      if (cd.readUInt32LE(p) !== CENTRAL) throw notZip();
      const method = cd.readUInt16LE(p + 10);
      const compressed = cd.readUInt32LE(p + 20);
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      const offset = cd.readUInt32LE(p + 42);
      const path = cd.subarray(p + 46, p + 46 + nameLen).toString('utf8');
      if (path.toLowerCase().endsWith('.nuspec') && (!found || (found.path.includes('/') && !path.includes('/')))) found = { method, compressed, offset, path };
      p += 46 + nameLen + extraLen + commentLen;
    }
    if (!found) throw new CliError(`${file} is not a NuGet package: it has no .nuspec`);
    if (found.compressed > MAX_NUSPEC) throw new CliError(`${file}: the .nuspec is too big`);
    const local = Buffer.alloc(30);
    await fh.read(local, 0, 30, found.offset);
    if (local.readUInt32LE(0) !== LOCAL) throw notZip();
    const start = found.offset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const data = Buffer.alloc(found.compressed);
    await fh.read(data, 0, found.compressed, start);
    if (found.method === 0) return data.toString('utf8');
    if (found.method === 8) {
      try {
        return inflateRawSync(data, { maxOutputLength: MAX_NUSPEC }).toString('utf8');
      } catch {
        throw new CliError(`${file}: cannot read its .nuspec`);
      }
    }
    throw new CliError(`${file}: the .nuspec uses an unsupported compression method (${found.method})`);
  } finally {
    await fh.close();
  }
}
