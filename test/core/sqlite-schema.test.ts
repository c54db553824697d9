/**
 * A new SQLite database is created from the recorded schema (generated/sqlite-schema.ts) in
 * one batch instead of migration by migration. These tests hold the two paths equal: the
 * recorded file is what the migrations produce today, a database built from it looks exactly
 * like one migrated step by step (and like one upgraded from an older version), and the
 * migrator finds nothing left to do on it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, type Kysely } from 'kysely';
import { openDatabase, sqliteHandleOf } from '../../packages/core/src/storage/dialect.js';
import { MIGRATIONS, migrateToLatest } from '../../packages/core/src/storage/migrations/index.js';
import { loadSqliteSchemaIfEmpty, MIGRATION_LOCK_TABLE, MIGRATION_TABLE, readSqliteSchema } from '../../packages/core/src/storage/migrations/sqlite-schema.js';
import { SQLITE_SCHEMA } from '../../packages/core/src/generated/sqlite-schema.js';
import { GENERATED_FILE, renderSqliteSchema } from '../../scripts/sqlite-schema.js';

async function withDatabase<T>(url: string, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const handle = openDatabase(url);
  try {
    return await fn(handle.db);
  } finally {
    await handle.destroy();
  }
}

const schemaOf = (db: Kysely<any>) => readSqliteSchema(sqliteHandleOf(db)!);
const appliedOf = async (db: Kysely<any>) =>
  (await db.selectFrom(MIGRATION_TABLE).select('name').orderBy('name').execute()).map((r) => r.name as string);

describe('sqlite: recorded schema for new databases', () => {
  it('the committed file is what the migrations produce (else: npm run generate:schema)', async () => {
    assert.equal(readFileSync(GENERATED_FILE, 'utf8'), await renderSqliteSchema(), `${GENERATED_FILE} is stale: run npm run generate:schema`);
  });

  it('a new database gets the same schema as migrating step by step, and every migration recorded', async () => {
    const stepwise = await withDatabase(':memory:', async (db) => {
      await migrateToLatest(db, { schemaSnapshot: false });
      return { schema: schemaOf(db), applied: await appliedOf(db) };
    });
    const batch = await withDatabase(':memory:', async (db) => {
      await migrateToLatest(db);
      return { schema: schemaOf(db), applied: await appliedOf(db), lock: await db.selectFrom(MIGRATION_LOCK_TABLE).selectAll().execute() };
    });
    assert.ok(stepwise.schema.length > 100, `${stepwise.schema.length} schema objects`);
    assert.deepEqual(batch.schema, stepwise.schema);
    assert.deepEqual(batch.applied, stepwise.applied);
    assert.deepEqual(batch.applied, Object.keys(MIGRATIONS).sort());
    assert.deepEqual(batch.lock, [{ id: 'migration_lock', is_locked: 0 }]);
  });

  it('the migrator finds nothing to run on a database made from the recorded schema', async () => {
    await withDatabase(':memory:', async (db) => {
      await migrateToLatest(db);
      const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE, allowUnorderedMigrations: true });
      const { error, results } = await migrator.migrateToLatest();
      assert.equal(error, undefined);
      assert.deepEqual(results, []);
    });
  });

  it('a database of an older version is upgraded by the migrator to the same schema', async () => {
    const older = SQLITE_SCHEMA.migrations[7]!;
    await withDatabase(':memory:', async (db) => {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE, allowUnorderedMigrations: true });
      assert.equal((await migrator.migrateTo(older)).error, undefined);
      assert.equal((await appliedOf(db)).length, 8);
      await migrateToLatest(db); // not empty: no batch; the migrator runs the other eight
      assert.deepEqual(schemaOf(db), SQLITE_SCHEMA.statements);
      assert.deepEqual(await appliedOf(db), Object.keys(MIGRATIONS).sort());
    });
  });

  it('041 moves the stack traces of grouped errors into their own table; 042 drops it (read from the newest event)', async () => {
    await withDatabase(':memory:', async (db) => {
      const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE, allowUnorderedMigrations: true });
      assert.equal((await migrator.migrateTo('040-commit-date-offsets')).error, undefined);
      const handle = sqliteHandleOf(db)!;
      handle.pragma('foreign_keys = off'); // an error row without its project
      const insert = handle.prepare(`insert into error_tracking_errors (project_id, fingerprint, title, event_count, first_seen_at, last_seen_at, stack_trace, created_at, updated_at)
        values (1, ?, 't', 1, 'x', 'x', ?, 'x', 'x')`);
      const withStack = Number(insert.run('a', '[{"function":"f"}]').lastInsertRowid);
      insert.run('b', null);
      assert.equal((await migrator.migrateTo('041-error-stacks')).error, undefined);
      assert.deepEqual(handle.prepare('select error_id, stack_trace from error_tracking_error_stacks').all(), [{ error_id: withStack, stack_trace: '[{"function":"f"}]' }]);
      const columns = (handle.prepare('pragma table_info(error_tracking_errors)').all() as { name: string }[]).map((c) => c.name);
      assert.equal(columns.includes('stack_trace'), false);
      await migrateToLatest(db);
      assert.deepEqual(handle.prepare(`select name from sqlite_master where name = 'error_tracking_error_stacks'`).all(), []);
      assert.equal((handle.prepare('select count(*) as n from error_tracking_errors').get() as { n: number }).n, 2);
    });
  });

  it('two connections to one new file: the schema is created once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'forgelet-schema-'));
    try {
      const file = join(dir, 'forgelet.db');
      const a = openDatabase(file);
      const b = openDatabase(file);
      try {
        const now = new Date().toISOString();
        assert.equal(loadSqliteSchemaIfEmpty(sqliteHandleOf(a.db)!, now), true);
        assert.equal(loadSqliteSchemaIfEmpty(sqliteHandleOf(b.db)!, now), false);
        await Promise.all([migrateToLatest(a.db), migrateToLatest(b.db)]);
        assert.deepEqual(schemaOf(b.db), SQLITE_SCHEMA.statements);
        assert.equal((await appliedOf(b.db)).length, SQLITE_SCHEMA.migrations.length);
      } finally {
        await a.destroy();
        await b.destroy();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
