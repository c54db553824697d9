/**
 * Artifact archives: zip (yazl, streamed to a file, never held in memory), gzip and raw for
 * report artifacts, and safe zip extraction (yauzl) for artifacts of earlier jobs.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, realpath, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { openPromise } from 'yauzl';
import { ZipFile } from 'yazl';
import { ArtifactPathError, isInside, type ArtifactEntry } from './paths.js';

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** Writes `entries` as a zip at `dest`; resolves with its size in bytes. */
export async function writeZip(entries: ArtifactEntry[], dest: string): Promise<number> {
  const zip = new ZipFile();
  const failed = new Promise<never>((_, reject) => zip.on('error', reject));
  const written = pipeline(zip.outputStream, createWriteStream(dest, { mode: 0o600 }));
  for (const e of entries) {
    const mtime = e.mtime;
    if (e.kind === 'dir') zip.addEmptyDirectory(e.rel, { mtime, mode: (e.mode & 0o7777) | S_IFDIR });
    else if (e.kind === 'symlink') zip.addBuffer(Buffer.from(e.target ?? ''), e.rel, { mtime, mode: (e.mode & 0o7777) | S_IFLNK, compress: false });
    else zip.addFile(e.abs, e.rel, { mtime, mode: e.mode & 0xffff });
  }
  zip.end();
  await Promise.race([written, failed]);
  return (await stat(dest)).size;
}

/** gitlab-runner's `gzip` format: one gzip member per file, concatenated. */
export async function writeGzip(entries: ArtifactEntry[], dest: string): Promise<number> {
  const out = createWriteStream(dest, { mode: 0o600 });
  try {
    for (const e of entries) {
      if (e.kind !== 'file') continue;
      const gzip = createGzip();
      const done = new Promise<void>((resolve, reject) => {
        gzip.on('end', resolve);
        gzip.on('error', reject);
      });
      gzip.pipe(out, { end: false });
      await pipeline(createReadStream(e.abs), gzip);
      await done;
    }
  } finally {
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  return (await stat(dest)).size;
}

/** `raw` format: exactly one file, as is. */
export async function writeRaw(entries: ArtifactEntry[], dest: string): Promise<number> {
  const files = entries.filter((e) => e.kind === 'file');
  if (files.length !== 1) throw new ArtifactPathError(`the raw artifact format takes exactly one file, found ${files.length}`);
  await pipeline(createReadStream(files[0]!.abs), createWriteStream(dest, { mode: 0o600 }));
  return (await stat(dest)).size;
}

export interface ExtractResult {
  files: number;
  skipped: string[];
}

/**
 * Extracts a zip into `dir`. Entries that would land outside it (absolute names, `..`,
 * or a path through a symbolic link pointing elsewhere) are skipped and listed.
 */
export async function extractZip(file: string, dir: string): Promise<ExtractResult> {
  const root = await realpath(dir);
  const zip = await openPromise(file, { validateEntrySizes: true, strictFileNames: false, autoClose: false });
  const result: ExtractResult = { files: 0, skipped: [] };
  try {
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const type = unixMode & S_IFMT;
      const target = path.resolve(root, name);
      if (path.isAbsolute(name) || name.split(/[\\/]/).includes('..') || !isInside(root, target) || target === root) {
        result.skipped.push(name);
        continue;
      }
      const isDir = name.endsWith('/') || type === S_IFDIR;
      const parent = isDir ? target : path.dirname(target);
      await mkdir(parent, { recursive: true });
      // a link extracted earlier must not carry later entries outside the directory
      if (!isInside(root, await realpath(parent))) {
        result.skipped.push(name);
        continue;
      }
      if (isDir) continue;
      const existing = await lstat(target).catch(() => null);
      if (existing?.isSymbolicLink() || existing?.isDirectory()) {
        result.skipped.push(name);
        continue;
      }
      const stream = await zip.openReadStreamPromise(entry);
      if (type === S_IFLNK) {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        await symlink(Buffer.concat(chunks).toString('utf8'), target);
      } else {
        const mode = unixMode & 0o777 || 0o644;
        await pipeline(stream, createWriteStream(target, { mode }));
        await chmod(target, mode);
      }
      result.files++;
    }
  } finally {
    zip.close();
  }
  return result;
}
