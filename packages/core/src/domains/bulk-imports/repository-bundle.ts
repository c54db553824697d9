/**
 * GitLab's `repository` file relation of a project export (BulkImports::FileExportService with
 * RepositoryBundleExportService): `repository.tar.gz`, a tar holding `repository.bundle`, a
 * `git bundle` of every ref. An empty repository gives an empty tar, as GitLab's export skips a
 * repository that does not exist. The bundle is written to a temporary file first (a tar header
 * carries the size), then streamed out; the file goes when the stream ends.
 */
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import type { Ctx } from '../../access/context.js';

/** A ustar header block for one regular file. */
function tarHeader(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (text: string, offset: number, length: number) => h.write(text, offset, length, 'ascii');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0') + '\0';
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(mtime, 12), 136, 12);
  put('        ', 148, 8); // checksum placeholder
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(octal(sum, 7) + ' ', 148, 8);
  return h;
}

/** Whether the project's repository has any ref (a bundle of nothing cannot be made). */
export async function repositoryHasRefs(ctx: Ctx, projectId: number): Promise<boolean> {
  if (!(await ctx.git.exists(projectId))) return false;
  const out = await ctx.git.run(projectId, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads', 'refs/tags']);
  return out.stdout.length > 0;
}

/** The gzipped tar stream of the project's `repository.bundle`. */
export async function repositoryBundleArchive(ctx: Ctx, projectId: number): Promise<Readable> {
  const dir = await mkdtemp(join(tmpdir(), 'forgelet-bundle-'));
  const file = join(dir, 'repository.bundle');
  const parts: Array<Buffer | (() => Readable)> = [];
  try {
    if (await repositoryHasRefs(ctx, projectId)) {
      await ctx.git.run(projectId, ['bundle', 'create', '--quiet', file, '--branches', '--tags']);
      const size = (await stat(file)).size;
      parts.push(tarHeader('repository.bundle', size, Math.floor(ctx.clock.now().getTime() / 1000)));
      parts.push(() => createReadStream(file));
      if (size % 512) parts.push(Buffer.alloc(512 - (size % 512), 0));
    }
    parts.push(Buffer.alloc(1024, 0)); // end of archive
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const body = Readable.from(
    (async function* () {
      try {
        for (const part of parts) {
          if (Buffer.isBuffer(part)) yield part;
          else for await (const chunk of part()) yield chunk as Buffer;
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    })(),
  );
  const gz = createGzip();
  body.on('error', (err) => gz.destroy(err));
  return body.pipe(gz);
}
