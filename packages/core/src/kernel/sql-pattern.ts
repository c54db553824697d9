/** GitLab's search patterns (Gitlab::SQL::Pattern) as Kysely conditions, the same on both dialects. */
import { sql, type Expression, type SqlBool } from 'kysely';

const QUOTED_TERM = /(?<=^| )"[^"]+"(?= |$)/g;
const MIN_PARTIAL_CHARS = 3;

/** A LIKE pattern matching `text` literally (with `escape '\\'`). */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * GitLab's fuzzy match (Gitlab::SQL::Pattern): the query is split into words and `"quoted
 * phrases"`; every word of 3+ characters must occur (case-insensitively) in the column. A
 * query with no such word must equal the column, ignoring case. Blank queries match all.
 */
export function fuzzyMatch(column: string, query: string): Expression<SqlBool> | null {
  const squished = query.trim().replace(/\s+/g, ' ');
  if (squished === '') return null;
  const quoted: string[] = [];
  const rest = squished.replace(QUOTED_TERM, (term) => {
    quoted.push(term.slice(1, -1));
    return '';
  });
  const terms = [...rest.split(' ').filter(Boolean), ...quoted].filter((t) => t.length >= MIN_PARTIAL_CHARS);
  const col = sql`lower(${sql.ref(column)})`;
  if (terms.length === 0) return sql<SqlBool>`${col} like ${likeEscape(squished.toLowerCase())} escape '\\'`;
  const likes = terms.map((t) => sql<SqlBool>`${col} like ${`%${likeEscape(t.toLowerCase())}%`} escape '\\'`);
  return sql<SqlBool>`(${sql.join(likes, sql` and `)})`;
}

