import type { Kysely } from 'kysely';

/**
 * A grouped error's latest stack trace is read from its newest event (errors.ts
 * `latestStacks`), which holds it already: the copy kept by 041 goes. Ingest spent about a
 * twentieth of its time serializing that copy to compare it with the stored one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('error_tracking_error_stacks').execute();
}
