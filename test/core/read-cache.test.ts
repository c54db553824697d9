/**
 * storage/read-cache.ts through a cached prepared query: hits, and every way the database
 * can change under it (a write on this connection, committed or rolled back; a commit by a
 * second connection to the same database; reads inside a transaction), on SQLite (its
 * `data_version`) and on PostgreSQL (the transaction snapshot).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createForge, expireReadCache, readCacheOf, type Forge } from '@forgelet/core';
import { preparedQuery } from '../../packages/core/src/storage/prepared.js';
import { committedAlone, sqliteHandleOf } from '../../packages/core/src/storage/dialect.js';
import { CacheEntries, dependencies, MAX_CHECK_GAP_MS, MAX_ROWS, PgReadCache, tablesWritten, type PgCheck } from '../../packages/core/src/storage/read-cache.js';
import { nextIid } from '../../packages/core/src/kernel/ids.js';
import { paginate } from '../../packages/core/src/kernel/pagination.js';
import { DIALECTS } from '../support/databases.js';
import { startCluster } from '../../scripts/pg-cluster.mjs';

/** Counts the queries a forge's database runs from now on (Kysely's and, on SQLite, statements prepared directly). */
function countQueries(forge: Forge): () => number {
  let n = 0;
  const db = forge.deps.db as unknown as { executeQuery: (...args: unknown[]) => unknown };
  const execute = db.executeQuery;
  db.executeQuery = function (this: unknown, ...args: unknown[]) {
    n++;
    return execute.apply(this, args);
  };
  const sqlite = sqliteHandleOf(forge.deps.db);
  const prepare = sqlite?.prepare;
  if (sqlite) {
    sqlite.prepare = ((source: string) => {
      n++;
      return prepare!.call(sqlite, source);
    }) as typeof sqlite.prepare;
  }
  return () => {
    db.executeQuery = execute;
    if (sqlite) sqlite.prepare = prepare!;
    return n;
  };
}

const selectName = preparedQuery((db, id: number) => db.selectFrom('users').select(['id', 'name']).where('id', '=', id), { cache: true });
const selectNameInTransactions = preparedQuery((db, id: number) => db.selectFrom('users').select(['id', 'name']).where('id', '=', id), { cache: true, inTransactions: true });
/** Writes that commit alone (storage/prepared.ts `commitsAlone`): a rename, and a counter bump with a rename in one statement. */
const renameAlone = preparedQuery((db, id: number, name: string) => db.updateTable('users').set({ name }).where('id', '=', id).returning('name'), { commitsAlone: true });
const bumpAlone = preparedQuery(
  (db, usage: string) => db.insertInto('internal_ids').values({ usage, scope: 'alone', last_value: 1 }).onConflict((oc) => oc.columns(['usage', 'scope']).doUpdateSet((eb) => ({ last_value: eb('internal_ids.last_value', '+', 1) }))).returning('last_value'),
  { commitsAlone: true },
);

describe('read cache: what a statement writes and what a read depends on', () => {
  it('an insert or update names its table, a with statement of inserts and updates all of theirs; anything else may write any table', () => {
    assert.deepEqual(tablesWritten('insert into "issues" ("title") values (?) returning *'), ['issues']);
    assert.deepEqual(tablesWritten('\n    insert into internal_ids (usage, scope, last_value) values (?, ?, 1)\n    on conflict (usage, scope) do update set last_value = internal_ids.last_value + 1'), ['internal_ids']);
    assert.deepEqual(tablesWritten('update "projects" set "open_issues_count" = "open_issues_count" + ? where "id" = ?'), ['projects']);
    assert.deepEqual(tablesWritten('UPDATE Users SET name = 1'), ['users']);
    assert.deepEqual(
      tablesWritten('with "next_iid" as (insert into "internal_ids" ("usage") values ($1) returning "last_value"), "counted" as (insert into "project_counters" ("project_id") values ($2) on conflict ("project_id") do update set "open_issues_count" = 1) insert into "issues" ("iid") values ((select "last_value" from "next_iid")) returning *'),
      ['internal_ids', 'project_counters', 'issues'],
    );
    assert.deepEqual(tablesWritten('with x as (update users set name = 1 returning id) update projects set name = 2 where id in (select id from x)'), ['users', 'projects']);
    for (const other of [
      'delete from "users" where "id" = ?',
      'insert or replace into users values (1)',
      'with x as (select 1) update users set name = 1 where exists (select 1 from (delete from projects) d)',
      'with x as (delete from issues returning project_id) update projects set name = 1',
      'with x as (select 1) select * from x',
      'drop table users',
      'pragma user_version = 3',
      'vacuum',
    ]) {
      assert.equal(tablesWritten(other), null, other);
    }
  });

  it('dropping a table forgets its entries everywhere: the bookkeeping stays the size of what is cached', () => {
    const entries = new CacheEntries();
    const tables = dependencies('select * from "projects" where "id" = ?');
    for (let i = 0; i < 5000; i++) {
      entries.set(`project ${i}`, [{ id: i }], tables);
      entries.drop('projects'); // a write to projects after each read, as issue creation does
    }
    assert.equal(entries.links, 0);
    entries.set('a', [{ id: 1 }], tables);
    entries.set('a', [{ id: 2 }], tables); // set again: one entry, linked once per word
    assert.equal(entries.links, tables.length);
    assert.deepEqual(entries.get('a'), [{ id: 2 }]);
    entries.drop('users');
    assert.deepEqual(entries.get('a'), [{ id: 2 }], 'another table leaves it');
  });

  it('bounded by rows as well as entries: pages of a hundred rows never hold more than MAX_ROWS; a result too large is not kept', () => {
    const entries = new CacheEntries();
    const tables = dependencies('select * from "namespaces" where "id" in (?)');
    const page = (n: number) => Array.from({ length: 100 }, (_, i) => ({ id: n * 100 + i }));
    for (let n = 0; n < 1000; n++) {
      entries.set(`page ${n}`, page(n), tables);
      assert.ok(entries.size <= MAX_ROWS, `${entries.size} rows after page ${n}`);
    }
    assert.deepEqual(entries.get('page 999'), page(999), 'the newest is kept');
    entries.set('page 999', [{ id: 1 }], tables);
    entries.drop('namespaces');
    assert.equal(entries.size, 0, 'set again and dropped: the count follows');
    entries.set('huge', Array.from({ length: MAX_ROWS }, (_, i) => ({ id: i })), tables);
    assert.equal(entries.get('huge'), undefined);
    assert.equal(entries.size, 0);
  });

  it('PostgreSQL: a check drops the tables of logged transactions that ended, everything for any other or after a long gap', async () => {
    let now = 0;
    let answer: PgCheck = { snapshot: '10:10:', writes: null };
    const seen: (string | null)[] = [];
    const cache = new PgReadCache(async (prev) => {
      seen.push(prev);
      return answer;
    }, () => now);
    const fill = async () => {
      const g = await cache.ready();
      cache.set('u', [{ name: 'x' }], ['users'], g);
      cache.set('p', [{ id: 1 }], ['projects'], g);
    };
    const turn = () => new Promise((r) => setImmediate(r));
    const has = () => [cache.get('u') !== undefined, cache.get('p') !== undefined];
    await fill();
    // 10 and 11 ended, both logged, writing projects: users stays
    answer = { snapshot: '12:12:', writes: '10:projects 11:projects,issues' };
    cache.expire();
    await turn();
    await cache.ready();
    assert.deepEqual(has(), [true, false]);
    assert.equal(seen.at(-1), '10:10:');
    await fill();
    // 12 ended (logged, issues), 13 still running, 14 ended unlogged: everything
    answer = { snapshot: '13:15:13', writes: '12:issues' };
    cache.expire();
    await turn();
    await cache.ready();
    assert.deepEqual(has(), [false, false]);
    await fill();
    // 13 ended, logged with an unknown table ('*'): everything
    answer = { snapshot: '15:15:', writes: '13:*' };
    cache.expire();
    await turn();
    await cache.ready();
    assert.deepEqual(has(), [false, false]);
    await fill();
    // this process's own transaction 15 (reported) ended, not logged in this answer: kept
    cache.committed(15n);
    answer = { snapshot: '16:16:', writes: '' };
    cache.expire();
    await turn();
    await cache.ready();
    assert.deepEqual(has(), [true, true]);
    // a check longer than MAX_CHECK_GAP_MS after the last one does not compare: everything
    now += MAX_CHECK_GAP_MS + 1;
    answer = { snapshot: '17:17:', writes: '16:issues' };
    cache.expire();
    await turn();
    await cache.ready();
    assert.equal(seen.at(-1), null);
    assert.deepEqual(has(), [false, false]);
  });

  it('a read depends on every table its SQL names, in any clause', () => {
    const deps = dependencies('select "p".* from "projects" as "p" where exists (select 1 from members m where m.source_id = p.id) and p.namespace_id in (select id from "namespaces", routes)');
    for (const table of ['projects', 'members', 'namespaces', 'routes']) assert.ok(deps.includes(table), table);
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: read cache`, () => {
    let dir: string;
    let a: Forge;
    let b: Forge;
    let drop: () => Promise<void> = async () => {};
    let userId: number;
    let databaseUrl: string;

    const nameOf = async (forge: Forge) => (await selectName(forge.deps.db, userId))[0]?.name;
    const rename = (forge: Forge, name: string) => forge.deps.db.updateTable('users').set({ name }).where('id', '=', userId).execute();

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'forgelet-read-cache-core-'));
      let url = join(dir, 'forgelet.db');
      if (dialect === 'postgres') {
        // A cluster of its own: transaction ids are the cluster's, and a transaction of another
        // test's database ending unlogged drops every entry (as a psql write would), which
        // would make the counts below depend on what runs beside this file.
        const cluster = await startCluster();
        url = cluster.url;
        drop = () => cluster.stop();
      }
      databaseUrl = url;
      // Two forges on one database: two connections, as two processes would have.
      a = await createForge({ databaseUrl: url });
      b = await createForge({ databaseUrl: url });
      await a.bootstrapRoot({ token: 'glpat-read-cache-root-token' });
      userId = (await a.deps.db.selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()).id;
      await rename(a, 'first');
    });
    after(async () => {
      await a.close();
      await b.close();
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('exists on both dialects, and serves repeated reads without a query', async () => {
      assert.ok(readCacheOf(a.deps.db));
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'first');
      const queries = countQueries(a);
      assert.equal(await nameOf(a), 'first');
      assert.equal(await nameOf(a), 'first');
      assert.equal(queries(), 0);
      await new Promise((r) => setImmediate(r)); // this turn's check ends with it
    });

    it('a caller cannot change a cached row: rows are frozen', async () => {
      await nameOf(a);
      const [row] = await selectName(a.deps.db, userId);
      assert.equal(row!.name, 'first');
      const change = () => ((row as { name: string }).name = 'changed by a caller');
      assert.throws(change, TypeError);
      const rows = await selectName(a.deps.db, userId);
      assert.equal(rows[0]!.name, 'first');
      rows.pop();
      assert.equal(await nameOf(a), 'first', 'the list handed out is a copy too');
    });

    it('a write on the same connection is seen by the next read', async () => {
      assert.equal(await nameOf(a), 'first');
      await rename(a, 'second');
      assert.equal(await nameOf(a), 'second');
    });

    it('a commit by another connection is seen once a request starts (and on the next turn of the event loop)', async () => {
      assert.equal(await nameOf(a), 'second');
      await rename(b, 'third');
      // what the server does when a request starts
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'third');
      await rename(b, 'fourth');
      await new Promise((r) => setImmediate(r));
      assert.equal(await nameOf(a), 'fourth');
    });

    it('requests that start in the same turn of the event loop share one check for other commits', { skip: dialect === 'postgres' && 'SQLite only' }, async () => {
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db); // a first request of this turn: checks on its first lookup
      const seen = await nameOf(a);
      await rename(b, `${seen}, again`);
      expireReadCache(a.deps.db); // a second one read from the sockets in the same pass
      assert.equal(await nameOf(a), seen);
      await new Promise((r) => setImmediate(r)); // the next turn checks again
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), `${seen}, again`);
      await rename(b, seen);
      await new Promise((r) => setImmediate(r));
    });

    it('reads inside a transaction see its own writes; a rolled-back write leaves the old value', async () => {
      assert.equal(await nameOf(a), 'fourth');
      await assert.rejects(
        a.deps.db.transaction().execute(async (trx) => {
          await trx.updateTable('users').set({ name: 'uncommitted' }).where('id', '=', userId).execute();
          assert.equal((await selectName(trx, userId))[0]?.name, 'uncommitted');
          throw new Error('roll back');
        }),
        /roll back/,
      );
      assert.equal(await nameOf(a), 'fourth');
    });

    it('a raw SQL write is seen too', async () => {
      assert.equal(await nameOf(a), 'fourth');
      await sql`update users set name = ${'fifth'} where id = ${userId}`.execute(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
    });

    it('writes on the connection itself, in the same turn of the event loop as a cached read, are seen', { skip: dialect === 'postgres' && 'SQLite only' }, async () => {
      const sqlite = sqliteHandleOf(a.deps.db)!;
      // prepared before the reads, run after them: the statement itself drops the cache
      const update = sqlite.prepare('update users set name = ? where id = ?');
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal(await nameOf(a), 'fifth'); // from the cache
      update.run('sixth', userId);
      assert.equal(await nameOf(a), 'sixth');
      sqlite.exec(`update users set name = 'seventh' where id = ${userId}`);
      assert.equal(await nameOf(a), 'seventh');
      const returning = sqlite.prepare('update users set name = ? where id = ? returning name');
      assert.deepEqual(returning.all('eighth', userId), [{ name: 'eighth' }]);
      assert.equal(await nameOf(a), 'eighth');
    });

    it('a write to another table keeps the entry, also once that write has committed and a request checks', async () => {
      const other = preparedQuery((db, id: number) => db.selectFrom('users').select('username').where('id', '=', id), { cache: true });
      await rename(a, 'fifth'); // (the SQLite-only test above left another name)
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal((await other(a.deps.db, userId))[0]?.username, 'root');
      // a transaction writing other tables only, committed, as an issue creation does
      await a.deps.db.transaction().execute(async (trx) => {
        await nextIid(trx, 'read-cache-test', 'scope:1');
        await trx.updateTable('internal_ids').set({ last_value: 7 }).where('usage', '=', 'read-cache-test').execute();
      });
      const queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      await new Promise((r) => setImmediate(r)); // a later turn, a new request: the check sees our own commit only
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal((await other(a.deps.db, userId))[0]?.username, 'root');
      assert.equal(queries(), 0, 'served from the cache throughout');
    });

    it('a write to the table, in a transaction, drops what read it; a delete of anything drops everything', async () => {
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      await a.deps.db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ name: 'in a transaction' }).where('id', '=', userId).execute();
      });
      assert.equal(await nameOf(a), 'in a transaction');
      await rename(a, 'fifth');
      assert.equal(await nameOf(a), 'fifth');
      let queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal(queries(), 0);
      await a.deps.db.deleteFrom('internal_ids').where('usage', '=', 'read-cache-test').execute();
      queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal(queries(), 1, 'read again after a delete');
    });

    it("another connection's commit to an unrelated table drops everything (SQLite: its tables are not known)", { skip: dialect === 'postgres' && 'SQLite only: PostgreSQL reads the write log' }, async () => {
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      await b.deps.db.transaction().execute((trx) => nextIid(trx, 'read-cache-test', 'scope:2'));
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      const queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal(queries(), 1);
    });

    it("another process's transaction drops only the tables it wrote, from the write log (PostgreSQL)", { skip: dialect === 'sqlite' && 'PostgreSQL only' }, async () => {
      const check = async () => {
        await new Promise((r) => setImmediate(r));
        expireReadCache(a.deps.db);
      };
      await check();
      assert.equal(await nameOf(a), 'fifth');
      // b (another process) commits a transaction writing other tables: a keeps its entry
      await b.deps.db.transaction().execute((trx) => nextIid(trx, 'read-cache-test', 'scope:2'));
      await check();
      let queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      assert.equal(queries(), 0, 'kept: the other transaction wrote internal_ids only');
      // b renames the user in a transaction: a's next request reads the new name
      await b.deps.db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'renamed by b' }).where('id', '=', userId).execute());
      await check();
      queries = countQueries(a);
      assert.equal(await nameOf(a), 'renamed by b');
      assert.equal(queries(), 1, 'dropped: the other transaction wrote users');
      // a write b makes outside a transaction is not logged: everything goes
      await b.deps.db.updateTable('internal_ids').set({ last_value: 9 }).where('usage', '=', 'read-cache-test').execute();
      await check();
      queries = countQueries(a);
      assert.equal(await nameOf(a), 'renamed by b');
      assert.equal(queries(), 1, 'dropped: an unlogged transaction ended');
      // so does a transaction b rolls back
      await b.deps.db.transaction().execute(async (trx) => {
        await nextIid(trx, 'read-cache-test', 'scope:4');
        throw new Error('roll back');
      }).catch(() => {});
      await check();
      queries = countQueries(a);
      assert.equal(await nameOf(a), 'renamed by b');
      assert.equal(queries(), 1, 'dropped: a rolled-back transaction ended');
      // and a write from a program that is not Forgelet, in a transaction of its own
      const other = new pg.Client({ connectionString: databaseUrl });
      await other.connect();
      await other.query(`begin; update users set name = 'renamed by psql' where id = ${userId}; commit`);
      await other.end();
      await check();
      assert.equal(await nameOf(a), 'renamed by psql');
      await b.deps.db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'fifth' }).where('id', '=', userId).execute());
      await check();
      assert.equal(await nameOf(a), 'fifth');
    });

    it('inTransactions: a cached read inside a transaction hits without a query, and follows writes here and in another process', async () => {
      const check = async () => {
        await new Promise((r) => setImmediate(r));
        expireReadCache(a.deps.db);
        await nameOf(a); // the request's first cached lookup runs the check
      };
      /** The name as a transaction of `forge` reads it, and how many queries that transaction ran for it. */
      const nameInTransaction = (forge: Forge) =>
        forge.deps.db.transaction().execute(async (trx) => {
          let n = 0;
          const t = trx as unknown as { executeQuery: (...args: unknown[]) => unknown };
          const execute = t.executeQuery;
          t.executeQuery = function (this: unknown, ...args: unknown[]) {
            n++;
            return execute.apply(this, args);
          };
          const direct = countQueries(forge); // SQLite: run on the transaction's connection directly
          const name = (await selectNameInTransactions(trx, userId))[0]?.name;
          return [name, n + direct()] as const;
        });
      await check();
      assert.deepEqual(await nameInTransaction(a), ['fifth', 1], 'a miss reads in the transaction');
      assert.deepEqual(await nameInTransaction(a), ['fifth', 0], 'then a hit, without a query');
      // another process renames the user: the next check drops the entry
      await b.deps.db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'sixth' }).where('id', '=', userId).execute());
      await check();
      assert.deepEqual(await nameInTransaction(a), ['sixth', 1]);
      assert.deepEqual(await nameInTransaction(a), ['sixth', 0]);
      // a write here drops it at once
      await rename(a, 'fifth');
      assert.deepEqual(await nameInTransaction(a), ['fifth', 1]);
      // a read overtaken by a write of its table is not kept
      await rename(a, 'fifth');
      await a.deps.db.transaction().execute(async (trx) => {
        const read = selectNameInTransactions(trx, userId);
        readCacheOf(a.deps.db)!.noteWrite('users');
        await read;
      });
      assert.deepEqual(await nameInTransaction(a), ['fifth', 1]);
      // outside a transaction the option changes nothing
      assert.equal((await selectNameInTransactions(a.deps.db, userId))[0]?.name, 'fifth');
    });

    it('the write log records each committing transaction once, with its tables (PostgreSQL)', { skip: dialect === 'sqlite' && 'PostgreSQL only' }, async () => {
      const before = await sql<{ n: string }>`select count(*)::text as n from cache_writes`.execute(a.deps.db);
      const txid = await a.deps.db.transaction().execute(async (trx) => {
        await nextIid(trx, 'read-cache-test', 'scope:5');
        await trx.updateTable('users').set({ name: 'fifth' }).where('id', '=', userId).execute();
        return (await sql<{ x: string }>`select txid_current()::text as x`.execute(trx)).rows[0]!.x;
      });
      const row = await sql<{ tables: string }>`select tables from cache_writes where txid = ${txid}::bigint`.execute(a.deps.db);
      assert.deepEqual(row.rows[0]?.tables.split(',').sort(), ['internal_ids', 'users']);
      // a transaction that wrote nothing records nothing
      await a.deps.db.transaction().execute((trx) => trx.selectFrom('users').select('id').execute());
      const after = await sql<{ n: string }>`select count(*)::text as n from cache_writes`.execute(a.deps.db);
      assert.equal(Number(after.rows[0]!.n), Number(before.rows[0]!.n) + 1);
    });

    it('a write that commits alone: committed with its write-log row, seen here at once and by the other process by its tables; a failing one leaves nothing', async () => {
      const check = async () => {
        await new Promise((r) => setImmediate(r));
        expireReadCache(a.deps.db);
      };
      await check();
      assert.equal(await nameOf(a), 'fifth');
      const logRows = async () => (dialect === 'postgres' ? Number((await sql<{ n: string }>`select count(*)::text as n from cache_writes`.execute(a.deps.db)).rows[0]!.n) : 0);
      const logged = await logRows();
      // b bumps a counter alone: committed (a second bump counts on), logged with its table, and a keeps its users entry
      assert.deepEqual(await bumpAlone(b.deps.db, 'alone-test'), [{ last_value: 1 }]);
      assert.deepEqual(await bumpAlone(b.deps.db, 'alone-test'), [{ last_value: 2 }]);
      if (dialect === 'postgres') {
        assert.equal(await logRows(), logged + 2);
        const last = await sql<{ tables: string }>`select tables from cache_writes order by txid desc limit 1`.execute(a.deps.db);
        assert.equal(last.rows[0]!.tables, 'internal_ids');
      }
      await check();
      let queries = countQueries(a);
      assert.equal(await nameOf(a), 'fifth');
      if (dialect === 'postgres') assert.equal(queries(), 0, 'kept: the other process wrote internal_ids only');
      // b renames alone: a's next request reads the new name; a's own rename alone is seen at once
      assert.deepEqual(await renameAlone(b.deps.db, userId, 'renamed alone by b'), [{ name: 'renamed alone by b' }]);
      await check();
      queries = countQueries(a);
      assert.equal(await nameOf(a), 'renamed alone by b');
      assert.equal(queries(), 1);
      await renameAlone(a.deps.db, userId, 'fifth');
      assert.equal(await nameOf(a), 'fifth');
      // a statement that fails commits nothing, not even its log row, and the connection goes on
      // (a rename and a username another user has: a unique violation, on both dialects)
      const other = await a.deps.db.insertInto('users').values({ username: 'alone-other', email: 'alone-other@example.com', name: 'Other', state: 'active', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } as never).returning('id').executeTakeFirstOrThrow();
      const failing = sql<{ name: string }>`update users set name = 'never', username = 'alone-other' where id = ${userId} returning name`.compile(a.deps.db);
      const before = await logRows();
      await assert.rejects(a.deps.db.executeQuery({ ...failing, sql: committedAlone(failing.sql) }), /unique|UNIQUE/);
      assert.equal(await logRows(), before);
      assert.equal((await a.deps.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirstOrThrow()).name, 'fifth');
      assert.deepEqual(await bumpAlone(a.deps.db, 'alone-test'), [{ last_value: 3 }]);
      await a.deps.db.deleteFrom('users').where('id', '=', other.id).execute();
      // never inside a transaction (it would commit the transaction's other writes, or none)
      await assert.rejects(a.deps.db.transaction().execute((trx) => renameAlone(trx, userId, 'in a transaction')), /commits alone was run in a transaction/);
      assert.equal(await nameOf(a), 'fifth');
    });

    it('a transaction in which a statement failed still ends, and the cache stays right (PostgreSQL aborts it)', async () => {
      expireReadCache(a.deps.db);
      assert.equal(await nameOf(a), 'fifth');
      await a.deps.db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ name: 'before the failure' }).where('id', '=', userId).execute();
        await trx.insertInto('users').values({ id: userId } as never).execute().catch(() => {}); // fails
      }).catch(() => {}); // PostgreSQL answers the commit of an aborted transaction by rolling back
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      const name = await nameOf(a);
      const direct = await a.deps.db.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirstOrThrow();
      assert.equal(name, direct.name);
      assert.equal(name, dialect === 'postgres' ? 'fifth' : 'before the failure');
      await rename(a, 'fifth');
      // the connections are usable afterwards
      await Promise.all(Array.from({ length: 12 }, () => a.deps.db.transaction().execute((trx) => nextIid(trx, 'read-cache-test', 'scope:3'))));
      assert.equal(await nameOf(a), 'fifth');
    });

    it("a page's count comes from the cache until a table it reads is written; its rows always from the database", async () => {
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      const list = () => a.deps.db.selectFrom('internal_ids').select(['scope', 'last_value']).where('usage', '=', 'read-cache-test').orderBy('scope');
      const page = () => paginate(a.deps.db, list(), { page: 1, per_page: 1 }, (rows) => rows);
      // countQueries sees the count (a cached read) on both dialects, and the rows (Kysely's own query) on SQLite only
      const rowsRead = dialect === 'sqlite' ? 1 : 0;
      const first = await page();
      assert.ok(first.total! >= 1);
      let queries = countQueries(a);
      assert.equal((await page()).total, first.total);
      assert.equal(queries(), rowsRead, 'the count is not read again');
      // a write to another table keeps the count (in a transaction: PostgreSQL's write log names its tables)
      await a.deps.db.transaction().execute((trx) => trx.updateTable('users').set({ name: 'renamed while counting' }).where('id', '=', userId).execute());
      queries = countQueries(a);
      assert.equal((await page()).total, first.total);
      assert.equal(queries(), rowsRead);
      // a new row in the table counted: counted again
      await a.deps.db.transaction().execute((trx) => nextIid(trx, 'read-cache-test', 'scope:counted'));
      queries = countQueries(a);
      assert.equal((await page()).total, first.total! + 1);
      assert.equal(queries(), rowsRead + 1);
      await rename(a, 'fifth');
    });

    it('a slow read that a write overtook is not kept (PostgreSQL)', { skip: dialect === 'sqlite' && 'PostgreSQL only: SQLite reads are synchronous' }, async () => {
      const cache = readCacheOf(a.deps.db) as PgReadCache;
      const generation = await cache.ready();
      cache.noteWrite('users');
      cache.set('overtaken', [{ name: 'stale' }], ['users'], generation);
      assert.equal(cache.get('overtaken'), undefined);
      const now = await cache.ready();
      cache.set('kept', [{ name: 'fresh' }], ['users'], now);
      assert.deepEqual(cache.get('kept'), [{ name: 'fresh' }]);
    });

    it('a request started while a check is under way waits for a check of its own (PostgreSQL)', { skip: dialect === 'sqlite' && 'PostgreSQL only' }, async () => {
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db);
      const first = nameOf(a); // its check is on the wire
      await rename(b, 'while checking');
      await new Promise((r) => setImmediate(r));
      expireReadCache(a.deps.db); // a request that arrived after the commit
      assert.equal(await nameOf(a), 'while checking');
      await first;
      await rename(b, 'fifth');
      await new Promise((r) => setImmediate(r));
    });
  });
}
