import { sql, type Kysely } from 'kysely';

/**
 * A grouped error's latest stack trace moves out of its row into a table of its own. Ingest
 * updates an error's row for every batch of its events (count, last seen, last event id);
 * with a 3 KB stack trace in it each row filled most of a page, so every batch rewrote a page
 * per error it touched. The stack is now written only when the newest event's differs from
 * the one kept.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('error_tracking_error_stacks')
    .addColumn('error_id', 'integer', (c) => c.primaryKey().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('stack_trace', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into error_tracking_error_stacks (error_id, stack_trace)
    select id, stack_trace from error_tracking_errors where stack_trace is not null`.execute(db);
  await db.schema.alterTable('error_tracking_errors').dropColumn('stack_trace').execute();
}
