import { sql, type Kysely } from 'kysely';

/**
 * `projects.open_issues_count` (migration 015) moves to `project_counters`: every issue opened,
 * closed or deleted wrote the project row, and a write to a table drops every read-cache entry
 * that read it (storage/read-cache.ts), so each issue write made every request in every project
 * look its project up again, in this process and, through the write log, in the others.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_counters')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('open_issues_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await backfillProjectCounters(db);
  await db.schema.alterTable('projects').dropColumn('open_issues_count').execute();
}

/** The counts from the issues present, on their own so a test can run them over a table left empty. */
export async function backfillProjectCounters(db: Kysely<any>): Promise<void> {
  await sql`insert into project_counters (project_id, open_issues_count)
    select project_id, count(*) from issues where state = 'opened' and confidential = 0 group by project_id`.execute(db);
}
