import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { sqliteHandleOf } from '../dialect.js';
import { loadSqliteSchemaIfEmpty, MIGRATION_LOCK_TABLE, MIGRATION_TABLE } from './sqlite-schema.js';
import * as m001 from './001-accounts.js';
import * as m002 from './002-work-items.js';
import * as m003 from './003-planning.js';
import * as m004 from './004-repository-releases.js';
import * as m005 from './005-ci.js';
import * as m006a from './006-artifact-entries.js';
import * as m006r from './006-repository-changes.js';
import * as m007 from './007-job-token-scope.js';
import * as m008 from './008-approvals.js';
import * as m009 from './009-error-tracking.js';
import * as m010ci from './010-ci-sizes.js';
import * as m010p from './010-packages.js';
import * as m011mr from './011-member-roles.js';
import * as m012d from './012-delivery.js';
import * as m013f from './013-flows.js';
import * as m014bi from './014-bulk-imports.js';
import * as m015cm from './015-counters-metrics.js';
import * as m016pv from './016-package-versions.js';
import * as m017sk from './017-secret-keys.js';
import * as m020re from './020-runner-managers-epic-issues.js';
import * as m021bc from './021-blob-chunks.js';
import * as m022cv from './022-ci-variables.js';
import * as m023nt from './023-namespaces-tokens.js';
import * as m024wh from './024-webhooks.js';
import * as m026cw from './026-cache-writes.js';
import * as m027pc from './027-project-counters.js';
import * as m028rr from './028-repository-replays.js';
import * as m031ac from './031-ai-catalog.js';
import * as m032cs from './032-console-sessions.js';
import * as m034md from './034-merge-request-diffs.js';
import * as m035pt from './035-protected-tags.js';
import * as m037cse from './037-console-session-expiry.js';
import * as m038mrci from './038-merge-request-closing-issues.js';
import * as m039mm from './039-merge-methods.js';
import * as m040cdo from './040-commit-date-offsets.js';
import * as m041es from './041-error-stacks.js';
import * as m042nes from './042-no-error-stacks.js';

/** Every migration, in order. Names sort lexically. */
export const MIGRATIONS: Record<string, Migration> = {
  '001-accounts': m001,
  '002-work-items': m002,
  '003-planning': m003,
  '004-repository-releases': m004,
  '005-ci': m005,
  '006-artifact-entries': m006a,
  '006-repository-changes': m006r,
  '007-job-token-scope': m007,
  '008-approvals': m008,
  '009-error-tracking': m009,
  '010-ci-sizes': m010ci,
  '010-packages': m010p,
  '011-member-roles': m011mr,
  '012-delivery': m012d,
  '013-flows': m013f,
  '014-bulk-imports': m014bi,
  '015-counters-metrics': m015cm,
  '016-package-versions': m016pv,
  '017-secret-keys': m017sk,
  '020-runner-managers-epic-issues': m020re,
  '021-blob-chunks': m021bc,
  '022-ci-variables': m022cv,
  '023-namespaces-tokens': m023nt,
  '024-webhooks': m024wh,
  '026-cache-writes': m026cw,
  '027-project-counters': m027pc,
  '028-repository-replays': m028rr,
  '031-ai-catalog': m031ac,
  '032-console-sessions': m032cs,
  '034-merge-request-diffs': m034md,
  '035-protected-tags': m035pt,
  '037-console-session-expiry': m037cse,
  '038-merge-request-closing-issues': m038mrci,
  '039-merge-methods': m039mm,
  '040-commit-date-offsets': m040cdo,
  '041-error-stacks': m041es,
  '042-no-error-stacks': m042nes,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export interface MigrateOptions {
  /** A new SQLite database gets the recorded schema in one batch (default true; tests compare the two). */
  schemaSnapshot?: boolean;
}

/** Brings the schema up to date; runs on every start (a lock keeps concurrent starts safe). */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<void> {
  const sqlite = sqliteHandleOf(db);
  if (sqlite && options.schemaSnapshot !== false && loadSqliteSchemaIfEmpty(sqlite, new Date().toISOString())) return;
  // Up to date (every start but the first after an upgrade): one read, instead of the migrator's
  // lock and its introspection of every table.
  if (await everyMigrationApplied(db)) return;
  const migrator = new Migrator({ db, provider, migrationTableName: MIGRATION_TABLE, migrationLockTableName: MIGRATION_LOCK_TABLE,
    // Areas landed in parallel, so numbers interleave (two 006s, two 010s); each runs once whatever the order.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
}

async function everyMigrationApplied(db: Kysely<any>): Promise<boolean> {
  let applied: { name: string }[];
  try {
    applied = (await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db)).rows;
  } catch {
    return false; // a new database: no bookkeeping table yet
  }
  const names = new Set(applied.map((r) => r.name));
  return Object.keys(MIGRATIONS).every((name) => names.has(name));
}
