import { sql, type Kysely } from 'kysely';

/**
 * Commit dates as git keeps them: whole seconds, and the author's and committer's UTC offsets
 * (GitLab shows a commit's dates in their own offsets: `2012-09-20T09:06:12.000+03:00`). The
 * dates stay UTC text (they sort); `authored_tz` / `committed_tz` are `+HH:MM`, null for rows
 * indexed before this migration (shown as `+00:00`). Commits written through the API kept
 * milliseconds git does not have: they are cut to the second, as git has them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('repository_commits').addColumn('authored_tz', 'text').execute();
  await db.schema.alterTable('repository_commits').addColumn('committed_tz', 'text').execute();
  for (const column of ['authored_date', 'committed_date', 'created_at']) {
    await sql`update repository_commits set ${sql.ref(column)} = substr(${sql.ref(column)}, 1, 19) || '.000Z'
      where ${sql.ref(column)} like '____-__-__T__:__:__.___Z' and ${sql.ref(column)} not like '%.000Z'`.execute(db);
  }
}
