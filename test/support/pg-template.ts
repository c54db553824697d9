/**
 * A migrated PostgreSQL template for test servers. Every server the tests start on a new
 * PostgreSQL database would run all of Forgelet's migrations first (about 1.3 s of the two
 * cores, for each of several hundred servers per run); SQLite's new databases load a recorded
 * schema instead. So the first test process of a run builds one migrated database, named by a
 * hash of the migration sources (an edited migration builds a new one), under an advisory lock
 * (test processes run in parallel), and test servers start on copies of it
 * (`CREATE DATABASE … TEMPLATE`). The server still runs its startup on the copy and finds every
 * migration applied. Tests of first start on an empty database (concurrent-start, storage, the
 * CLI's) create theirs with createTestDatabaseUrl alone.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@forgelet/core';
import { createTestDatabaseUrl, databaseUrlOf, quoteIdent, testAdminUrl, withAdminClient } from './databases.js';

const MIGRATIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/core/src/storage/migrations');
const LOCK = 7_212_026;

let template: Promise<string> | undefined;

function templateName(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    if (!file.endsWith('.ts')) continue;
    hash.update(file).update('\0').update(readFileSync(join(MIGRATIONS_DIR, file))).update('\0');
  }
  return `forgelet_tpl_${hash.digest('hex').slice(0, 16)}`;
}

/** The migrated template's name, built by the first caller on this server. */
function migratedTemplate(): Promise<string> {
  return (template ??= (async () => {
    const adminUrl = testAdminUrl();
    const name = templateName();
    await withAdminClient(adminUrl, async (c) => {
      await c.query('SELECT pg_advisory_lock($1)', [LOCK]);
      try {
        if ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return;
        const building = `${name}_building`;
        await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(building)} WITH (FORCE)`);
        await c.query(`CREATE DATABASE ${quoteIdent(building)}`);
        const handle = openDatabase(databaseUrlOf(adminUrl, building));
        try {
          await migrateToLatest(handle.db);
        } finally {
          await handle.destroy();
        }
        await c.query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(name)}`);
      } finally {
        await c.query('SELECT pg_advisory_unlock($1)', [LOCK]);
      }
    });
    return name;
  })());
}

/** A new PostgreSQL database with every migration applied; drop() removes it. */
export async function createMigratedTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createTestDatabaseUrl('postgres', { template: await migratedTemplate() });
}
