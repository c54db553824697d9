import type { Kysely } from 'kysely';

/** Expired console sessions are swept (access/console-sessions.ts): by `expires_at`, without a scan. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('console_sessions_expires_at').on('console_sessions').column('expires_at').execute();
}
