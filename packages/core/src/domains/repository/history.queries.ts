/**
 * Commit history in the index, in SQL: ancestry walks with a recursive CTE over
 * repository_commit_parents (for the SQL users: branches' merged flag, webhooks, deployments),
 * plus the name comparisons branch and tag lists need. Reads of history answer from git
 * (storage/git-read.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../storage/database.js';
import type { DialectName } from '../../storage/dialect.js';

type Db = Kysely<Database>;

/** Where an ancestry walk starts: one commit, or every ref head of the project (`all`). */
export type WalkStart = { sha: string } | { allRefs: true };

/**
 * `anc(sha)` (or `name`): the start commit(s) and every ancestor. `firstParent` follows only first
 * parents (`git log --first-parent`). UNION (not UNION ALL) ends the walk on shared history.
 */
export function ancestryCte(projectId: number, start: WalkStart, options: { firstParent?: boolean; name?: string } = {}): RawBuilder<{ sha: string }> {
  const self = sql.table(options.name ?? 'anc');
  const seed =
    'sha' in start
      ? sql`select cast(${start.sha} as text) as sha`
      : sql`select commit_sha as sha from repository_refs where project_id = ${projectId} and commit_sha <> ''`;
  const firstParent = options.firstParent ? sql`and p.position = 0` : sql``;
  // Kysely does not parenthesize a raw CTE body.
  return sql<{ sha: string }>`(${seed}
    union
    select p.parent_sha as sha from repository_commit_parents p
      join repository_commits c on c.id = p.commit_id
      join ${self} on ${self}.sha = c.sha
      where c.project_id = ${projectId} ${firstParent})`;
}

/** Which of `shas` are `head` or its ancestors. */
export async function ancestorsAmong(db: Db, projectId: number, head: string, shas: string[]): Promise<Set<string>> {
  const wanted = [...new Set(shas.filter(Boolean))];
  if (!head || !wanted.length) return new Set();
  const rows = await db
    .withRecursive('anc(sha)', () => ancestryCte(projectId, { sha: head }))
    .selectFrom('anc')
    .select('anc.sha')
    .where('anc.sha', 'in', wanted)
    .execute();
  return new Set(rows.map((r) => r.sha));
}

/** A text column compared byte by byte, as git and Ruby sort names (PostgreSQL's collation may not). */
export function bytewise(dialect: DialectName, column: string): RawBuilder<string> {
  return dialect === 'postgres' ? sql<string>`${sql.ref(column)} collate "C"` : sql<string>`${sql.ref(column)}`;
}

/** GitLab's branch and tag `search`: `^term` starts with, `term$` ends with, else contains; case-insensitive. */
export function nameSearch(column: string, search: string): RawBuilder<boolean> {
  const term = search.toLowerCase();
  const escape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
  let pattern: string;
  if (term.startsWith('^')) pattern = `${escape(term.slice(1))}%`;
  else if (term.endsWith('$')) pattern = `%${escape(term.slice(0, -1))}`;
  else pattern = `%${escape(term)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
