import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as m001 from './001-accounts.js';
import * as m002 from './002-work-items.js';
import * as m003 from './003-planning.js';
import * as m004 from './004-repository-releases.js';
import * as m005 from './005-ci.js';
import * as m006a from './006-artifact-entries.js';
import * as m007 from './007-job-token-scope.js';

/** Every migration, in order. Names sort lexically. */
const MIGRATIONS: Record<string, Migration> = {
  '001-accounts': m001,
  '002-work-items': m002,
  '003-planning': m003,
  '004-repository-releases': m004,
  '005-ci': m005,
  '006-artifact-entries': m006a,
  '007-job-token-scope': m007,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Brings the schema up to date; runs on every start (a lock keeps concurrent starts safe). */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'forgelet_migrations', migrationLockTableName: 'forgelet_migration_lock' });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
}
