/**
 * The archive index: checked once at upload (a corrupt zip or an unsafe entry stores
 * nothing), then written as rows of ci_artifact_entries, directories included, so the tree
 * and single-file reads never rescan the zip.
 */
import type { Insertable, Kysely } from 'kysely';
import type { CiArtifactEntryTable } from '../ci/index.js';
import type { Database } from '../../storage/database.js';
import type { BlobStore } from '../../storage/blobs.js';
import { scheduleExpiryOf } from './expiry.js';
import { parentDirectories, readZipIndex, splitEntryPath } from './zip.js';

const BATCH = 500;

/** Walks the central directory once, throwing ZipRejectedError on the first problem. */
export async function checkZipArchive(blobs: BlobStore, key: string, size: number): Promise<{ entries: number }> {
  let entries = 0;
  for await (const _ of readZipIndex(blobs, key, size)) entries += 1;
  return { entries };
}

type EntryRow = Insertable<CiArtifactEntryTable>;

/**
 * Writes the index rows of an archive (call inside the transaction that records the
 * artifact), and schedules the artifact's expiry in the same transaction.
 */
export async function insertArchiveIndex(trx: Kysely<Database>, artifactId: number, blobs: BlobStore, key: string, size: number): Promise<number> {
  let batch: EntryRow[] = [];
  let count = 0;
  const flush = async () => {
    if (!batch.length) return;
    await trx
      .insertInto('ci_artifact_entries')
      .values(batch)
      .onConflict((oc) => oc.columns(['artifact_id', 'path']).doNothing())
      .execute();
    count += batch.length;
    batch = [];
  };
  const directory = (path: string): EntryRow => ({
    artifact_id: artifactId,
    path,
    ...splitEntryPath(path),
    type: 'directory',
    size: null,
    mode: '040755',
    compressed_size: null,
    compression_method: null,
    local_header_offset: null,
    crc32: null,
  });
  let lastDirs = new Set<string>();
  for await (const e of readZipIndex(blobs, key, size)) {
    // Implied directories; the conflict clause drops repeats, the small set avoids most of them.
    const dirs = parentDirectories(e.path);
    for (const d of dirs) if (!lastDirs.has(d)) batch.push(directory(d));
    lastDirs = new Set(dirs);
    if (e.type === 'directory') batch.push({ ...directory(e.path), mode: e.mode });
    else {
      batch.push({
        artifact_id: artifactId,
        path: e.path,
        ...splitEntryPath(e.path),
        type: 'file',
        size: e.size,
        mode: e.mode,
        compressed_size: e.compressedSize,
        compression_method: e.compressionMethod,
        local_header_offset: e.localHeaderOffset,
        crc32: e.crc32,
      });
    }
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  await scheduleExpiryOf(trx, blobs, artifactId);
  return count;
}
