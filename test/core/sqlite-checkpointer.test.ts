/**
 * storage/sqlite-checkpointer.ts: WAL checkpoints run in a worker thread, not in the COMMIT
 * on the event loop, while writes are many; the WAL stays bounded under writes, and closing
 * leaves no WAL behind. Idle, the worker exits and the connection checkpoints by itself.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase, sqliteHandleOf } from '../../packages/core/src/storage/dialect.js';
import { IDLE_MS, WAKE_WRITES } from '../../packages/core/src/storage/sqlite-checkpointer.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `test` holds, up to `ms`. */
async function until(test: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!test()) {
    if (performance.now() > deadline) return false;
    await pause(10);
  }
  return true;
}

/** Runs `body` with a new temporary directory, removed afterwards. */
async function inTempDir(body: (dir: string) => unknown): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'forgelet-checkpointer-'));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('sqlite: WAL checkpoints off the event loop', () => {
  it("the connection's automatic checkpoints are off; the worker keeps the WAL bounded; closing removes it", () =>
    inTempDir(async (dir) => {
      const file = join(dir, 'db.sqlite');
      const handle = openDatabase(file);
      const sqlite = sqliteHandleOf(handle.db)!;
      await sql`create table blobs (id integer primary key, body blob not null)`.execute(handle.db);
      assert.notEqual(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0, 'no worker before writes are many');
      for (let i = 0; i < 2 * WAKE_WRITES; i++) await sql`insert into blobs (body) values (${Buffer.alloc(10, i)})`.execute(handle.db);
      assert.ok(await until(() => sqlite.pragma('wal_autocheckpoint', { simple: true }) === 0, 5000), 'automatic checkpoints turned off once the worker is ready');
      const walPages = () => statSync(`${file}-wal`).size / 4096;
      // 8 rounds of ~600 pages (2.4 MB): without checkpoints the WAL would reach ~4,800 pages.
      let largest = 0;
      for (let round = 0; round < 8; round++) {
        await handle.db.transaction().execute(async (trx) => {
          for (let i = 0; i < 40; i++) await sql`insert into blobs (body) values (${Buffer.alloc(60_000, round + i)})`.execute(trx);
        });
        largest = Math.max(largest, walPages());
        await pause(250); // the worker looks every 100 ms
      }
      assert.ok(largest < 2000, `the WAL grew to ${largest.toFixed(0)} pages`);
      // Everything written is in the database file (checkpointed) once the worker has run.
      assert.ok(await until(() => statSync(file).size > 8 * 40 * 60_000, 2000), `the database file holds the rows: ${statSync(file).size} bytes`);
      await handle.destroy();
      assert.equal(existsSync(`${file}-wal`), false, 'the last connection to close removed the WAL');
    }));

  it('an idle worker exits and the connection checkpoints by itself; a write now and then leaves it so, a burst of writes starts a worker again, which stays while writes go on', () =>
    inTempDir(async (dir) => {
      const file = join(dir, 'db.sqlite');
      const handle = openDatabase(file);
      const sqlite = sqliteHandleOf(handle.db)!;
      const automatic = () => sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;
      await sql`create table rows (id integer primary key, body text not null)`.execute(handle.db);
      for (let i = 0; i < 2 * WAKE_WRITES; i++) await sql`insert into rows (body) values ('a first burst')`.execute(handle.db);
      assert.ok(await until(() => automatic() === 0, 5000), 'a burst of writes started a worker');
      // No commit for IDLE_MS: the worker exits, the connection checkpoints automatically again.
      assert.ok(await until(() => automatic() === 1000, IDLE_MS + 3000), `retired after ${IDLE_MS} ms without a commit`);
      for (let i = 0; i < 3; i++) {
        await sql`insert into rows (body) values ('now and then')`.execute(handle.db);
        await pause(300);
        assert.equal(automatic(), 1000, 'a write now and then starts no worker');
      }
      for (let i = 0; i < 2 * WAKE_WRITES; i++) await sql`insert into rows (body) values ('a burst')`.execute(handle.db);
      assert.ok(await until(() => automatic() === 0, 5000), 'a burst of writes started a worker again');
      // Commits spaced under IDLE_MS for longer than IDLE_MS: the worker stays.
      const goOnUntil = performance.now() + IDLE_MS + 1000;
      while (performance.now() < goOnUntil) {
        await sql`insert into rows (body) values ('more')`.execute(handle.db);
        await pause(IDLE_MS / 5);
        assert.equal(automatic(), 0, 'the worker stays while commits go on');
      }
      await handle.destroy();
      assert.equal(existsSync(`${file}-wal`), false, 'the last connection to close removed the WAL');
    }));

  it('a database left open does not keep the process alive', () =>
    inTempDir(async (dir) => {
      // The sources, from the checkout the tests run in.
      const dialect = join(process.cwd(), 'packages/core/src/storage/dialect.ts');
      const script = join(dir, 'left-open.mts');
      writeFileSync(
        script,
        `import { openDatabase } from ${JSON.stringify(dialect)};
        const handle = openDatabase(${JSON.stringify(join(dir, 'db.sqlite'))});
        await handle.db.schema.createTable('t').addColumn('x', 'integer').execute();
        await new Promise((resolve) => setTimeout(resolve, 300));
        console.log('done');`,
      );
      const child = spawnSync(process.execPath, ['--conditions=source', '--import', 'tsx', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 20_000 });
      assert.equal(child.stdout.trim(), 'done', child.stderr);
      assert.equal(child.signal, null, 'the process ended by itself');
      assert.equal(child.status, 0, child.stderr);
    }));

  it('an in-memory database has no worker', async () => {
    const handle = openDatabase(':memory:');
    const sqlite = sqliteHandleOf(handle.db)!;
    await pause(200);
    assert.notEqual(sqlite.pragma('wal_autocheckpoint', { simple: true }), 0);
    await handle.destroy();
  });
});
