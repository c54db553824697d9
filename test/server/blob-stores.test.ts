/**
 * One contract for every blob store: the filesystem, PostgreSQL (chunked rows, on PostgreSQL
 * runs) and S3 (against a local s3rver). Streaming writes with digests, byte ranges, limits,
 * publishing whole, move and delete, and a second store instance (another process's view)
 * seeing the same blobs.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createForge, FsBlobStore, PgBlobStore, readCacheOf, TooLargeError, type BlobStore, type Forge } from '@forgelet/core';
import { binaryCopyField } from '../../packages/core/src/storage/pg-blobs.js';
import { pgPoolOf } from '../../packages/core/src/storage/dialect.js';
import { S3BlobStore, parseBlobUrl, startForgelet, type S3BlobConfig } from '@forgelet/server';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';
import { S3RVER_CREDENTIALS, startLocalS3, type LocalS3 } from '../support/s3.js';

const MIB = 1024 * 1024;

async function readAll(stream: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

/** `data` in pieces of `piece` bytes, as a request body arrives. */
async function* pieces(data: Buffer, piece = 64 * 1024): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece);
}

const digest = (algo: string, data: Buffer) => createHash(algo).update(data).digest('hex');

interface StoreUnderTest {
  name: string;
  /** A store, and a second one over the same place (another process's view). */
  open(): Promise<{ store: BlobStore; other: BlobStore; close(): Promise<void> }>;
  /** What is left of failed or replaced writes (chunks, parts): must be 0. */
  leftovers?(): Promise<number>;
}

const stores: StoreUnderTest[] = [];
const firstDialect = DIALECTS[0];

// fs and s3 do not depend on the dialect: they run once, on the first dialect's run.
stores.push({
  name: 'fs',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-blobs-'));
    return { store: new FsBlobStore(dir), other: new FsBlobStore(dir), close: async () => rmSync(dir, { recursive: true, force: true }) };
  },
});

let s3: LocalS3;
let s3Config: S3BlobConfig;
stores.push({
  name: 's3',
  async open() {
    const location = parseBlobUrl(s3.blobUrl('contract'), {});
    assert.equal(location.kind, 's3');
    s3Config = { ...(location as S3BlobConfig), credentials: { accessKeyId: S3RVER_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY } };
    const store = new S3BlobStore(s3Config);
    const other = new S3BlobStore(s3Config);
    return { store, other, close: async () => (await store.close(), await other.close()) };
  },
  async leftovers() {
    return s3.openMultipartUploads();
  },
});

let pgForges: Forge[] = [];
if (DIALECTS.includes('postgres')) {
  let dropDb: () => Promise<void>;
  stores.push({
    name: 'postgres',
    async open() {
      const database = await createTestDatabaseUrl('postgres');
      dropDb = database.drop;
      // Two forges (two pools) on one database: two processes' views.
      pgForges = [
        await createForge({ databaseUrl: database.url, blobs: (d) => new PgBlobStore(d.db, d.dialect) }),
        await createForge({ databaseUrl: database.url, blobs: (d) => new PgBlobStore(d.db, d.dialect) }),
      ];
      return {
        store: pgForges[0]!.deps.blobs,
        other: pgForges[1]!.deps.blobs,
        async close() {
          for (const f of pgForges) await f.close();
          await dropDb();
        },
      };
    },
    async leftovers() {
      const r = await sql<{ n: number }>`select count(*)::int as n from blob_chunks c where not exists (select 1 from blob_objects o where o.upload_id = c.upload_id)`.execute(pgForges[0]!.deps.db);
      return r.rows[0]!.n;
    },
  });
}

before(async () => {
  s3 = await startLocalS3();
});
after(async () => {
  await s3.stop();
});

for (const kind of stores) {
  const runsHere = kind.name === 'postgres' || firstDialect === 'sqlite' || !DIALECTS.includes('sqlite');
  describe(`blob store contract: ${kind.name}`, { skip: !runsHere && 'runs on the first dialect only' }, () => {
    let store: BlobStore;
    let other: BlobStore;
    let close: () => Promise<void>;
    // 2.5 MiB: several PostgreSQL chunks (1 MiB) with a short last one.
    const data = randomBytes(2.5 * MIB);

    before(async () => ({ store, other, close } = await kind.open()));
    after(async () => close());

    it('streams a write in, measuring size and digests, and the other instance reads it whole', async () => {
      const stored = await store.put('packages/a/file.bin', pieces(data, 50_000));
      assert.deepEqual(stored, { size: data.length, sha256: digest('sha256', data), sha1: digest('sha1', data), md5: digest('md5', data) });
      assert.equal(await other.size('packages/a/file.bin'), data.length);
      assert.ok((await readAll(other.read('packages/a/file.bin'))).equals(data));
    });

    it('takes strings and buffers, and an empty blob', async () => {
      assert.equal((await store.put('small/s', 'héllo')).size, 6);
      assert.equal((await readAll(store.read('small/s'))).toString(), 'héllo');
      assert.equal((await store.put('small/b', Buffer.from([1, 2, 3]))).md5, digest('md5', Buffer.from([1, 2, 3])));
      const empty = await store.put('small/empty', pieces(Buffer.alloc(0)));
      assert.equal(empty.size, 0);
      assert.equal(empty.sha256, digest('sha256', Buffer.alloc(0)));
      assert.equal(await store.size('small/empty'), 0);
      assert.equal((await readAll(store.read('small/empty'))).length, 0);
    });

    it('reads byte ranges (end inclusive), across chunk boundaries, to the end, and past it', async () => {
      const key = 'packages/a/file.bin';
      const cases: [number, number | undefined][] = [[0, 0], [10, 99], [256 * 1024 - 3, 256 * 1024 + 3], [MIB - 5, MIB + 5], [MIB, 2 * MIB - 1], [2 * MIB + 17, undefined], [data.length - 1, data.length + 100], [0, data.length - 1]];
      for (const [start, end] of cases) {
        const got = await readAll(other.read(key, { start, end }));
        assert.ok(got.equals(data.subarray(start, end === undefined ? undefined : end + 1)), `range ${start}-${end ?? ''}`);
      }
      assert.equal((await readAll(store.read(key, { start: data.length + 10 }))).length, 0, 'a range past the end is empty');
    });

    it('stops a write past maxBytes with TooLargeError and keeps nothing of it', async () => {
      // 12 MiB against a limit of 7: on S3 the multipart upload has begun (5 MiB parts) and is aborted.
      const big = randomBytes(12 * MIB);
      await assert.rejects(store.put('too/large', pieces(big, 256 * 1024), { maxBytes: 7 * MIB, tooLargeMessage: 'File is too large' }), (err: unknown) => {
        assert.ok(err instanceof TooLargeError, `TooLargeError, got ${String(err)}`);
        assert.equal((err as Error).message, 'File is too large');
        return true;
      });
      assert.equal(await store.size('too/large'), null);
      if (kind.name === 's3') assert.ok(s3.requests.some((r) => r.method === 'POST' && r.url.includes('too/large?uploads')), 'a multipart upload had begun');
      if (kind.leftovers) assert.equal(await kind.leftovers(), 0, 'no chunks or multipart uploads left behind');
    });

    it('publishes a blob whole: while a write is under way, readers see the old blob or nothing', async () => {
      await store.put('swap/key', 'old contents');
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const next = randomBytes(3 * MIB);
      async function* slow() {
        yield next.subarray(0, 2 * MIB);
        await gate;
        yield next.subarray(2 * MIB);
      }
      const writing = store.put('swap/key', slow());
      const fresh = store.put('swap/fresh', slow());
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await readAll(other.read('swap/key'))).toString(), 'old contents');
      assert.equal(await other.size('swap/key'), 'old contents'.length);
      assert.equal(await other.size('swap/fresh'), null, 'a blob being written for the first time is not there yet');
      release();
      await writing;
      await fresh;
      assert.ok((await readAll(other.read('swap/key'))).equals(next));
      assert.ok((await readAll(other.read('swap/fresh'))).equals(next));
      if (kind.leftovers) assert.equal(await kind.leftovers(), 0, 'the replaced blob left nothing behind');
    });

    it('moves a blob (onto a free key and over an existing one) and deletes', async () => {
      await store.put('uploads/x', pieces(data));
      await store.move('uploads/x', 'claimed/x');
      assert.equal(await store.size('uploads/x'), null);
      assert.ok((await readAll(other.read('claimed/x'))).equals(data));
      await store.put('uploads/y', 'replacement');
      await store.move('uploads/y', 'claimed/x');
      assert.equal((await readAll(other.read('claimed/x'))).toString(), 'replacement');
      await store.delete('claimed/x');
      assert.equal(await other.size('claimed/x'), null);
      await store.delete('claimed/x'); // deleting what is gone is fine
      if (kind.leftovers) assert.equal(await kind.leftovers(), 0);
    });

    it('fails a read of a missing blob with ENOENT, and a move of one', async () => {
      await assert.rejects(readAll(store.read('nothing/here')), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
      await assert.rejects(store.move('nothing/here', 'elsewhere'));
    });
  });
}

describe('postgres store: reads by binary COPY', { skip: !DIALECTS.includes('postgres') && 'PostgreSQL only' }, () => {
  it('parses the one-row binary COPY of a bytea, an empty result, and refuses anything else', () => {
    const header = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
    const int16 = (n: number) => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; };
    const int32 = (n: number) => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };
    const bytes = randomBytes(1000);
    assert.ok(binaryCopyField(Buffer.concat([header, int16(1), int32(bytes.length), bytes, int16(-1)]))!.equals(bytes));
    assert.equal(binaryCopyField(Buffer.concat([header, int16(-1)])), null);
    assert.throws(() => binaryCopyField(Buffer.from('not a copy at all, no')), /no file header/);
    assert.throws(() => binaryCopyField(Buffer.concat([header, int16(2), int32(1), bytes.subarray(0, 1), int32(1), bytes.subarray(0, 1), int16(-1)])), /2 fields/);
    assert.throws(() => binaryCopyField(Buffer.concat([header, int16(1), int32(bytes.length), bytes.subarray(0, 10)])), /truncated/);
    assert.throws(() => binaryCopyField(Buffer.concat([header, int16(1), int32(1), bytes.subarray(0, 1), int16(1), int32(1), bytes.subarray(0, 1), int16(-1)])), /more than one row/);
  });

  it('a read goes slice by slice through COPY, each on a connection given back at once, and leaves the read cache alone', async () => {
    const database = await createTestDatabaseUrl('postgres');
    const forge = await createForge({ databaseUrl: database.url, blobs: (d) => new PgBlobStore(d.db, d.dialect) });
    try {
      const data = randomBytes(2.5 * MIB);
      await forge.deps.blobs.put('copy/file.bin', data);
      const pool = pgPoolOf(forge.deps.db)!;
      const cache = readCacheOf(forge.deps.db)!;
      let connects = 0;
      let drops = 0;
      const connect = pool.connect.bind(pool);
      const noteWrite = cache.noteWrite.bind(cache);
      (pool as any).connect = (...args: unknown[]) => (connects++, (connect as any)(...args));
      (cache as any).noteWrite = (table: string | null) => (drops++, noteWrite(table));
      try {
        assert.ok((await readAll(forge.deps.blobs.read('copy/file.bin'))).equals(data));
        assert.ok((await readAll(forge.deps.blobs.read('copy/file.bin', { start: MIB - 7, end: MIB + 7 }))).equals(data.subarray(MIB - 7, MIB + 8)));
      } finally {
        (pool as any).connect = connect;
        (cache as any).noteWrite = noteWrite;
      }
      // per read, the blob's row (through Kysely), then one connection per slice
      assert.equal(connects, 1 + 10 + (1 + 2), 'ten 256 KiB slices, then two for the range across a chunk boundary');
      assert.equal(drops, 0, 'a COPY of a select writes nothing');
      assert.equal(pool.idleCount, pool.totalCount, 'every connection is back');
    } finally {
      await forge.close();
      await database.drop();
    }
  });
});

describe('embedders: startForgelet({ blobUrl })', { skip: firstDialect !== 'sqlite' && DIALECTS.includes('sqlite') && 'runs on the first dialect only' }, () => {
  it('refuses the database store on SQLite, and a bad URL, before creating anything', async () => {
    await assert.rejects(startForgelet({ blobUrl: 'postgres' }), (err: Error) => {
      assert.equal(err.name, 'BlobStoreConfigError');
      assert.match(err.message, /^blobs in the database \(--blob-url postgres\) need a PostgreSQL database/);
      return true;
    });
    await assert.rejects(startForgelet({ blobUrl: 's3://K:SECRET@bucket?bogus=1' }), (err: Error) => err.name === 'BlobStoreConfigError' && !err.message.includes('SECRET'));
  });

  it('serves from the store the URL names (a file: directory of the embedder\'s choice)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-embed-blobs-'));
    const running = await startForgelet({ blobUrl: pathToFileURL(dir).href });
    try {
      assert.equal(running.forge.deps.blobs.description, pathToFileURL(dir).href);
      await running.forge.deps.blobs.put('x/y', 'z');
      assert.deepEqual(readdirSync(join(dir, 'x')), ['y']);
    } finally {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('s3 store: objects over the CopyObject limit move through the server', { skip: firstDialect !== 'sqlite' && DIALECTS.includes('sqlite') && 'runs on the first dialect only' }, () => {
  it('streams GetObject into a new upload when the object is larger than copyObjectMaxBytes', async () => {
    const config = { ...parseBlobUrl(s3.blobUrl('bigmove'), {}), credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, copyObjectMaxBytes: MIB } as S3BlobConfig;
    const store = new S3BlobStore(config);
    const data = randomBytes(6 * MIB);
    await store.put('a', pieces(data));
    await store.move('a', 'b');
    assert.equal(await store.size('a'), null);
    assert.ok((await readAll(store.read('b'))).equals(data));
    await store.close();
  });
});
