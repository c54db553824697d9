/**
 * Reading users, for every domain that shows or acts as one: a page's authors, assignees or
 * creators by id, one user by id. Users are identity (this layer); the domains read them here
 * rather than each writing the same query. Filters that belong in a domain's own SQL (a list
 * narrowed by `author_username`, approvers found by commit email) join the table there.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database.js';
import type { UserRow } from './user.table.js';

/** The users with these ids (any order; missing ids are skipped; none asked, no query). */
export async function selectUsersByIds(db: Kysely<Database>, ids: Iterable<number>): Promise<UserRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  return db.selectFrom('users').selectAll().where('id', 'in', unique).execute();
}

/** The users with these ids, by id. */
export async function usersByIds(db: Kysely<Database>, ids: Iterable<number>): Promise<Map<number, UserRow>> {
  return new Map((await selectUsersByIds(db, ids)).map((u) => [u.id, u]));
}

/** One user by id. */
export function selectUserById(db: Kysely<Database>, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}
