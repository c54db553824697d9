/**
 * Blobs in the PostgreSQL database, for server processes on machines that share no disk:
 * numbered bytea chunks in `blob_chunks` (migration 021), published under their key by one
 * row of `blob_objects`.
 *
 * Chunked rows rather than large objects: rows are ordinary tables, so they are vacuumed,
 * dumped, replicated and snapshotted (storage/snapshots.ts copies every table) like the rest of
 * the state, a delete is a plain DELETE in the caller's transaction (large objects need
 * lo_unlink and leak when a row referencing them goes without it), and a byte range is a
 * `substring` of one or two chunks. Each chunk is one statement of its own, so an upload holds
 * no transaction and at most one chunk in memory.
 *
 * Publishing: a write inserts its chunks under a fresh upload id that nothing names, then one
 * transaction points the key's `blob_objects` row at it and deletes the chunks of the blob it
 * replaces. A reader that looked the key up before reads the old chunks; one that comes after
 * reads the new ones; nobody reads a part. A write that fails deletes its chunks; a process
 * killed mid-upload leaves chunks no row names (harmless, reclaimed by `sweepOrphans`).
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import type PgModule from 'pg';
import type * as PgCopyStreams from 'pg-copy-streams';
import { sql, type Kysely } from 'kysely';
import { measure, type BlobData, type BlobStore, type PutOptions, type StoredBlob } from './blobs.js';
import type { Database } from './database.js';
import { pgPoolOf, type DialectName } from './dialect.js';

export interface BlobObjectTable {
  key: string;
  upload_id: string;
  size: number;
  chunk_bytes: number;
  created_at: string;
}

export interface BlobChunkTable {
  upload_id: string;
  seq: number;
  data: Buffer;
}

/** 1 MiB: few enough rows for a 2 GB artifact (2,048), small enough to hold one at a time. */
export const PG_BLOB_CHUNK_BYTES = 1024 * 1024;
/**
 * Reads fetch a chunk in slices of 256 KiB with `copy (select substring(data …)) to stdout
 * (format binary)`: the bytes come as they are stored. A plain select answers a bytea as hex
 * text, twice its size, which pg then decodes: on a 2 GB artifact's reads that garbage added
 * 77–98 MB of RSS (whole 1 MiB chunks 98 MB, 32 KiB slices 78 MB, at half the speed). Each
 * slice is read whole, then its connection goes back to the pool before the bytes are handed
 * on, so a slow client never holds a connection.
 */
export const PG_BLOB_READ_BYTES = 256 * 1024;

/** Binary COPY's file header: signature, flags, header extension length (PostgreSQL's COPY docs). */
const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/**
 * The single bytea field of a binary COPY holding one row, or null when it holds none (the
 * chunk is gone). Throws on anything else.
 */
export function binaryCopyField(out: Buffer): Buffer | null {
  if (out.length < 21 || !out.subarray(0, 11).equals(COPY_SIGNATURE)) throw new Error('binary COPY: no file header');
  let at = 15;
  at += 4 + out.readUInt32BE(at); // header extension
  const fields = out.readInt16BE(at);
  if (fields === -1) return null;
  if (fields !== 1) throw new Error(`binary COPY: ${fields} fields, expected 1`);
  const length = out.readInt32BE(at + 2);
  if (length < 0) return null;
  const start = at + 6;
  if (out.length < start + length + 2 || out.readInt16BE(start + length) !== -1) throw new Error('binary COPY: truncated or more than one row');
  return out.subarray(start, start + length);
}

export class PgBlobStore implements BlobStore {
  readonly root = null;
  readonly inDatabase = true;
  readonly description = 'postgres (the Forgelet database: tables blob_objects, blob_chunks)';
  private readonly chunkBytes: number;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: DialectName,
    options: { chunkBytes?: number } = {},
  ) {
    if (dialect !== 'postgres') throw new BlobStoreConfigError('blobs in the database (--blob-url postgres) need a PostgreSQL database (--database-url postgres://…); on SQLite they live in the data directory');
    this.chunkBytes = options.chunkBytes ?? PG_BLOB_CHUNK_BYTES;
  }

  async put(key: string, data: BlobData, options: PutOptions = {}): Promise<StoredBlob> {
    const uploadId = `${Date.now().toString(36)}-${randomBytes(9).toString('hex')}`;
    const measured = measure(data, options);
    let seq = 0;
    try {
      for await (const chunk of inChunks(measured.chunks, this.chunkBytes)) {
        await this.db.insertInto('blob_chunks').values({ upload_id: uploadId, seq: seq++, data: chunk }).execute();
      }
      const stored = measured.stored();
      await this.db.transaction().execute(async (trx) => {
        const old = await trx.selectFrom('blob_objects').select('upload_id').where('key', '=', key).forUpdate().executeTakeFirst();
        const row = { upload_id: uploadId, size: stored.size, chunk_bytes: this.chunkBytes, created_at: new Date().toISOString() };
        await trx.insertInto('blob_objects').values({ key, ...row }).onConflict((oc) => oc.column('key').doUpdateSet(row)).execute();
        if (old) await trx.deleteFrom('blob_chunks').where('upload_id', '=', old.upload_id).execute();
      });
      return stored;
    } catch (err) {
      await this.db.deleteFrom('blob_chunks').where('upload_id', '=', uploadId).execute().catch(() => {});
      throw err;
    }
  }

  read(key: string, range?: { start: number; end?: number }): Readable {
    const db = this.db;
    const pool = pgPoolOf(db);
    async function* bytes(): AsyncGenerator<Buffer> {
      const head = await db.selectFrom('blob_objects').select(['upload_id', 'size', 'chunk_bytes']).where('key', '=', key).executeTakeFirst();
      if (!head) throw missing(key);
      const size = Number(head.size);
      const per = head.chunk_bytes;
      const start = range?.start ?? 0;
      const end = Math.min(range?.end ?? size - 1, size - 1);
      if (start > end) return;
      const first = Math.floor(start / per);
      const last = Math.floor(end / per);
      for (let seq = first; seq <= last; seq++) {
        const from = seq === first ? start - seq * per : 0;
        const to = seq === last ? end - seq * per : per - 1;
        for (let at = from; at <= to; at += PG_BLOB_READ_BYTES) {
          const length = Math.min(PG_BLOB_READ_BYTES, to - at + 1);
          const data = pool && SAFE_UPLOAD_ID.test(head.upload_id) ? await copySlice(pool, head.upload_id, seq, at, length) : await selectSlice(db, head.upload_id, seq, at, length);
          // Deleted or replaced (its chunks removed) while it was being read.
          if (!data) throw missing(key);
          yield data;
        }
      }
    }
    return Readable.from(bytes(), { objectMode: false });
  }

  async size(key: string): Promise<number | null> {
    const row = await this.db.selectFrom('blob_objects').select('size').where('key', '=', key).executeTakeFirst();
    return row ? Number(row.size) : null;
  }

  async delete(key: string): Promise<void> {
    await sql`with gone as (delete from blob_objects where key = ${key} returning upload_id)
      delete from blob_chunks where upload_id in (select upload_id from gone)`.execute(this.db);
  }

  async move(from: string, to: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const src = await trx.deleteFrom('blob_objects').where('key', '=', from).returningAll().executeTakeFirst();
      if (!src) throw missing(from);
      const old = await trx.deleteFrom('blob_objects').where('key', '=', to).returning('upload_id').executeTakeFirst();
      await trx.insertInto('blob_objects').values({ ...src, key: to }).execute();
      if (old && old.upload_id !== src.upload_id) await trx.deleteFrom('blob_chunks').where('upload_id', '=', old.upload_id).execute();
    });
  }

  /**
   * Deletes chunks that no blob names and that are older than `olderThanMs` (uploads of a
   * process that died mid-write); returns how many chunks went.
   */
  async sweepOrphans(olderThanMs = 24 * 3600_000): Promise<number> {
    const cutoff = (Date.now() - olderThanMs).toString(36);
    const r = await sql`delete from blob_chunks c where not exists (select 1 from blob_objects o where o.upload_id = c.upload_id)
      and split_part(c.upload_id, '-', 1) < ${cutoff}`.execute(this.db);
    return Number(r.numAffectedRows ?? 0);
  }
}

/** A store that cannot work with what it was given (a database store on SQLite, a bad URL). */
export class BlobStoreConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlobStoreConfigError';
  }
}

/** Upload ids as `put` makes them (base 36 time, hex): safe inside COPY's SQL, which takes no parameters. */
const SAFE_UPLOAD_ID = /^[a-z0-9]+-[0-9a-f]+$/;

/** A slice of a chunk through binary COPY (see PG_BLOB_READ_BYTES); null when the chunk is gone. */
async function copySlice(pool: PgModule.Pool, uploadId: string, seq: number, at: number, length: number): Promise<Buffer | null> {
  const { to } = loadCopyStreams();
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    const stream = client.query(
      to(`copy (select substring(data from ${Math.trunc(at) + 1} for ${Math.trunc(length)}) from blob_chunks where upload_id = '${uploadId}' and seq = ${Math.trunc(seq)}) to stdout (format binary)`),
    );
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    return binaryCopyField(parts.length === 1 ? parts[0]! : Buffer.concat(parts));
  } catch (err) {
    failed = err as Error;
    throw err;
  } finally {
    client.release(failed); // a connection whose COPY failed midway is not reused
  }
}

/** The same slice by a plain select (bytea as hex text): for upload ids from elsewhere. */
async function selectSlice(db: Kysely<Database>, uploadId: string, seq: number, at: number, length: number): Promise<Buffer | null> {
  const row = await db
    .selectFrom('blob_chunks')
    .select(sql<Buffer>`substring(data from ${at + 1} for ${length})`.as('data'))
    .where('upload_id', '=', uploadId)
    .where('seq', '=', seq)
    .executeTakeFirst();
  return row?.data ?? null;
}

let copyStreams: typeof PgCopyStreams | undefined;
/** Loaded on the first read: only PostgreSQL blob stores need it. */
const loadCopyStreams = () => (copyStreams ??= createRequire(import.meta.url)('pg-copy-streams') as typeof PgCopyStreams);

function missing(key: string): Error {
  return Object.assign(new Error(`no blob ${key}`), { code: 'ENOENT' });
}

/** The bytes of `source` regrouped into buffers of `size` bytes (the last one shorter). */
async function* inChunks(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let parts: Buffer[] = [];
  let held = 0;
  for await (let piece of source) {
    while (held + piece.length >= size) {
      const take = size - held;
      parts.push(piece.subarray(0, take));
      yield Buffer.concat(parts, size);
      parts = [];
      held = 0;
      piece = piece.subarray(take);
    }
    if (piece.length) {
      parts.push(piece);
      held += piece.length;
    }
  }
  if (held) yield Buffer.concat(parts, held);
}
