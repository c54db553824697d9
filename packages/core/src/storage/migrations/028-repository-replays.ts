import { sql, type Kysely } from 'kysely';

/**
 * Repositories become git repositories (issue 26). Before, a project's repository lived only in
 * the repository_* tables, with random commit ids and the files of ref heads only. Every project
 * with commits is queued here; the first start of the new version replays each queue entry into
 * a bare git repository and maps the old commit ids to git's wherever the database keeps them
 * (domains/repository/git-replay.ts), removing the entry in the same transaction.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('repository_replays')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`insert into repository_replays (project_id, created_at)
    select distinct project_id, ${new Date().toISOString()} from repository_commits`.execute(db);
}
