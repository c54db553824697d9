/**
 * storage/sqlite-driver.ts: transactions that queue for SQLite's one connection commit as a
 * group, each still isolated, each answered only once its group's COMMIT succeeded.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { openDatabase, sqliteHandleOf, type DatabaseHandle } from '../../packages/core/src/storage/dialect.js';
import { preparedQuery } from '../../packages/core/src/storage/prepared.js';

const countRows = preparedQuery((db: Kysely<any>, tag: string) => db.selectFrom('things').select((eb) => eb.fn.countAll<number>().as('n')).where('tag', '=', tag), { cache: true });

describe('sqlite: group commit', () => {
  let dir: string;
  let handle: DatabaseHandle;
  let db: Kysely<any>;
  let other: Database.Database;
  /** The COMMIT statements run so far on the Forgelet connection. */
  let commits = 0;
  let failNextCommit = false;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'forgelet-group-commit-'));
    const file = join(dir, 'db.sqlite');
    handle = openDatabase(file);
    db = handle.db;
    await sql`create table things (id integer primary key, tag text not null, n integer not null)`.execute(db);
    const sqlite = sqliteHandleOf(db)!;
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((source: string) => {
      if (source !== 'commit') return prepare(source);
      commits++;
      if (!failNextCommit) return prepare(source);
      failNextCommit = false;
      return { run: () => { throw new Error('disk I/O error (simulated)'); } } as never;
    }) as typeof sqlite.prepare;
    other = new Database(file, { readonly: true }); // another process's view
  });
  after(async () => {
    other.close();
    await handle.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (trx: Kysely<any>, tag: string, n: number) => sql`insert into things (tag, n) values (${tag}, ${n})`.execute(trx);
  const seenElsewhere = (tag: string) => (other.prepare('select count(*) as n from things where tag = ?').get(tag) as { n: number }).n;

  it('concurrent transactions share commits, and each caller is answered once its rows are committed', async () => {
    const before = commits;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await insert(trx, 'group', i);
          await new Promise((r) => setImmediate(r)); // work between statements, as a request does
          await insert(trx, 'group', i + 100);
          return i;
        }).then((i) => ({ i, visible: seenElsewhere('group') })),
      ),
    );
    for (const { i, visible } of results) assert.ok(visible >= (i + 1) * 2, `transaction ${i}: committed before its caller heard (${visible} rows seen)`);
    assert.equal(seenElsewhere('group'), 80);
    const used = commits - before;
    assert.ok(used < 40 && used >= 2, `${used} COMMITs for 40 transactions (groups of at most 32)`);
  });

  it('a failing transaction rolls back alone; the others of its group commit', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await insert(trx, 'mixed', i);
          await new Promise((r) => setImmediate(r));
          if (i % 3 === 1) throw new Error(`transaction ${i} fails`);
          await insert(trx, 'mixed', i + 100);
        }),
      ),
    );
    assert.deepEqual(outcomes.map((o) => o.status), Array.from({ length: 10 }, (_, i) => (i % 3 === 1 ? 'rejected' : 'fulfilled')));
    const rows = other.prepare("select n from things where tag = 'mixed' order by n").all() as { n: number }[];
    const kept = [0, 2, 3, 5, 6, 8, 9];
    assert.deepEqual(rows.map((r) => r.n), [...kept, ...kept.map((i) => i + 100)]);
  });

  it('a write outside a transaction, and reads, while a group is open', async () => {
    const work = Array.from({ length: 8 }, (_, i) =>
      db.transaction().execute(async (trx) => {
        await insert(trx, 'around', i);
        await new Promise((r) => setImmediate(r));
      }),
    );
    // queued behind the transactions: a plain write commits the open group first, then itself
    const plain = insert(db, 'around', 1000).then(() => seenElsewhere('around'));
    const reads = Array.from({ length: 8 }, () => countRows(db, 'around'));
    await Promise.all(work);
    assert.equal(await plain, 9, 'the plain write is in the database when it returns, after the transactions queued before it');
    for (const r of await Promise.all(reads)) assert.ok(Number(r[0]!.n) <= 9);
    assert.equal(Number((await countRows(db, 'around'))[0]!.n), 9);
  });

  it('a failed group COMMIT fails every transaction of the group, keeps none of their rows, and empties the read cache', async () => {
    await insert(db, 'lost', -1);
    assert.equal(Number((await countRows(db, 'lost'))[0]!.n), 1); // cached now
    failNextCommit = true;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        db.transaction().execute(async (trx) => {
          await insert(trx, 'lost', i);
          await new Promise((r) => setImmediate(r));
        }),
      ),
    );
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    assert.ok(rejected.length >= 1, 'the transactions of the failed group fail'); // (how many: however the group formed)
    for (const o of rejected) assert.match(String((o as PromiseRejectedResult).reason), /simulated/);
    const fulfilled = outcomes.length - rejected.length;
    assert.equal(seenElsewhere('lost'), 1 + fulfilled, 'only the transactions answered with success are in the database');
    assert.equal(Number((await countRows(db, 'lost'))[0]!.n), 1 + fulfilled, 'the cache was emptied with the group');
    // the connection works afterwards
    await db.transaction().execute((trx) => insert(trx, 'lost', 99));
    assert.equal(seenElsewhere('lost'), 2 + fulfilled);
  });

  it('a second connection to the file in this process waits for the lock without stopping the event loop', async () => {
    const second = openDatabase(join(dir, 'db.sqlite'));
    try {
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second.db : db).transaction().execute(async (trx) => {
            await insert(trx, 'two-connections', i);
            await new Promise((r) => setImmediate(r));
          }),
        ),
      );
      assert.equal(seenElsewhere('two-connections'), 20);
      assert.ok(Date.now() - started < 4000, 'no busy wait ran into the 5 s timeout');
    } finally {
      await second.destroy();
    }
  });

  it('one transaction at a time commits on its own, by the end of its turn', async () => {
    const before = commits;
    for (let i = 0; i < 5; i++) {
      await db.transaction().execute((trx) => insert(trx, 'serial', i));
      assert.equal(seenElsewhere('serial'), i + 1);
    }
    assert.equal(commits - before, 5);
  });
});
