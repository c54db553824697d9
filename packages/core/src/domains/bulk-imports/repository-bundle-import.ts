/**
 * The `repository` step of a project migration from the source's bundle, as GitLab's
 * BulkImports::Projects::Pipelines::RepositoryBundlePipeline: the `repository` relation export
 * (`repository.tar.gz`, a tar holding `repository.bundle`) is downloaded, unpacked and the
 * project's repository is filled from the bundle (GitLab: `create_from_bundle`, Gitaly's
 * CreateRepositoryFromBundle, a fetch of every ref of the bundle).
 *
 * - Streamed end to end: the download is gunzipped and its tar read as it arrives, the bundle
 *   bytes go straight to a temporary file (never whole in memory), and git reads the file.
 * - Bad input is refused before any ref moves: a download that is no gzip or no tar, a tar whose
 *   `repository.bundle` is not a regular file, a bundle larger than GitLab's download limit, or
 *   one `git bundle verify` rejects (corrupt, truncated, needing commits the repository lacks)
 *   is a `BundleImportError`; the fetch that follows is `--atomic` (all refs or none).
 * - A tar without `repository.bundle` is an empty source repository (GitLab's export skips a
 *   repository that does not exist or is empty): nothing to fetch.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Ctx } from '../../access/context.js';
import type { ProjectRow } from '../../access/project.table.js';
import { GitCommandError } from '../../storage/git.js';
import { indexFetchedRefs } from './repository-git.js';

/** GitLab's `bulk_import_max_download_file_size` default: 5120 MiB. */
export const MAX_BUNDLE_BYTES = 5120 * 1024 * 1024;

/** A `repository` export the destination refuses (recorded as the relation's failure). */
export class BundleImportError extends Error {
  override name = 'BulkImports::Error';
}

const BUNDLE_NAME = 'repository.bundle';

/** Writes `chunk` to `out`, waiting for it to drain (backpressure reaches the download). */
function write(out: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    out.once('error', onError);
    out.write(chunk, (err) => {
      out.off('error', onError);
      if (err) reject(err);
      else resolve();
    });
  });
}

function closeStream(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}

function octal(field: Buffer): number {
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new BundleImportError('Invalid repository export: malformed tar header');
  return Number.parseInt(text, 8);
}

function headerChecksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === octal(h.subarray(148, 156));
}

/**
 * Reads the (already gunzipped) tar stream and writes the bytes of its `repository.bundle` to
 * `file`. Answers whether the archive held one. Other entries are skipped (as GitLab's
 * extraction keeps only what the pipeline reads); pax and GNU long-name headers are skipped too.
 */
export async function extractBundle(tar: AsyncIterable<Buffer>, file: string, maxBytes = MAX_BUNDLE_BYTES): Promise<boolean> {
  let pending: Buffer = Buffer.alloc(0);
  let found = false;
  let ended = false;
  // The entry being read: bytes of its data left, padding after it, and where its data goes.
  let left = 0;
  let pad = 0;
  let out: Writable | null = null;
  try {
    for await (const chunk of tar) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (ended) {
          pending = Buffer.alloc(0);
          break;
        }
        if (left > 0) {
          if (pending.length === 0) break;
          const take = Math.min(left, pending.length);
          if (out) await write(out, pending.subarray(0, take));
          pending = pending.subarray(take);
          left -= take;
          if (left === 0 && out) {
            await closeStream(out);
            out = null;
          }
          continue;
        }
        if (pad > 0) {
          const take = Math.min(pad, pending.length);
          pending = pending.subarray(take);
          pad -= take;
          if (pad > 0) break;
          continue;
        }
        if (pending.length < 512) break;
        const header = pending.subarray(0, 512);
        pending = pending.subarray(512);
        if (header.every((b) => b === 0)) {
          ended = true;
          continue;
        }
        if (!headerChecksumOk(header)) throw new BundleImportError('Invalid repository export: not a tar archive');
        const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
        const base = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
        const name = (prefix ? `${prefix}/${base}` : base).replace(/^\.\//, '');
        const type = String.fromCharCode(header[156]!);
        const size = octal(header.subarray(124, 136));
        left = size;
        pad = size % 512 ? 512 - (size % 512) : 0;
        if (name !== BUNDLE_NAME) continue;
        if (type !== '0' && type !== '\0') throw new BundleImportError(`Invalid repository export: ${BUNDLE_NAME} is not a regular file`);
        if (found) throw new BundleImportError(`Invalid repository export: more than one ${BUNDLE_NAME}`);
        if (size > maxBytes) throw new BundleImportError(`Invalid repository export: ${BUNDLE_NAME} is larger than ${maxBytes} bytes`);
        found = true;
        out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
        if (size === 0) {
          await closeStream(out);
          out = null;
        }
      }
    }
    if (left > 0 || (!ended && pending.length > 0)) throw new BundleImportError('Invalid repository export: the archive is truncated');
    return found;
  } finally {
    out?.destroy();
  }
}

export type BundleImportOutcome = { empty: true } | { empty: false; refs: number };

/**
 * Fills `project`'s (new, empty) repository from a `repository.tar.gz` download and indexes its
 * refs. `archive` is the download's body; `defaultBranch` the source project's default branch.
 */
export async function importRepositoryBundle(
  ctx: Ctx,
  project: ProjectRow,
  archive: AsyncIterable<Uint8Array>,
  defaultBranch: string | null,
): Promise<BundleImportOutcome> {
  const dir = await mkdtemp(join(tmpdir(), 'forgelet-bundle-import-'));
  const file = join(dir, BUNDLE_NAME);
  try {
    const gunzip = createGunzip();
    const source = Readable.from(archive);
    source.on('error', (err) => gunzip.destroy(err));
    let found: boolean;
    try {
      found = await extractBundle(source.pipe(gunzip), file);
    } catch (err) {
      source.destroy();
      if (err instanceof BundleImportError) throw err;
      // zlib's errors: "incorrect header check", "unexpected end of file", …
      if ((err as { code?: string }).code?.startsWith('Z_')) throw new BundleImportError(`Invalid repository export: ${(err as Error).message}`);
      throw err;
    }
    if (!found) return { empty: true };
    const git = ctx.git;
    await git.ensure(project.id, project.default_branch);
    try {
      await git.run(project.id, ['bundle', 'verify', '--quiet', file]);
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err;
      const why = err.stderr.trim().split('\n').filter(Boolean).at(-1) ?? 'git bundle verify failed';
      throw new BundleImportError(`Invalid repository bundle: ${why.replace(file, BUNDLE_NAME)}`);
    }
    try {
      await git.run(project.id, [
        'fetch', '--atomic', '--quiet', '--no-write-fetch-head', '--update-head-ok', '--no-tags',
        file,
        '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*',
      ]);
    } catch (err) {
      if (!(err instanceof GitCommandError)) throw err;
      const why = err.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
      throw new BundleImportError(`Invalid repository bundle: ${why.split(file).join(BUNDLE_NAME)}`);
    }
    return { empty: false, refs: await indexFetchedRefs(ctx, project, defaultBranch) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
